#!/usr/bin/env node
/**
 * The `toolshell` command: run scripts over the configured tools from a terminal.
 *
 *   toolshell exec 'SCRIPT'        run a script given as an argument
 *   toolshell run FILE|-           run a script file (or stdin)
 *   toolshell list [--tokens]      the same listing as `tools --help` (--tokens: the model's tool list in o200k tokens)
 *   toolshell mcp [--http PORT]    the MCP gateway: bash + the direct tools, over stdio or Streamable HTTP
 *   toolshell check [--json]       advisory findings about the config and its tools (exit 0)
 *   toolshell plan FILE|-          each tools call a script would make, with its risk
 *   toolshell approvals            pending approval requests of the CLI session
 *   toolshell approve ID DECISION  answer one (allow, allow_always, reject, reject_always)
 *   toolshell scripts …            saved scripts: list, show, save, versions, diff, archive, restore, run
 *   toolshell triggers …           triggers: list, show, create, update, delete, run, runs
 *
 * Common options: --config FILE (default: ./toolshell.config.json, then ./.mcp.json),
 * --workspace DIR (a real folder mounted read-write as the working directory).
 * The script's stdout and stderr pass through; the exit code is the script's, or 3 when it
 * stopped for a person's approval (without a terminal the stop report is printed on stderr as
 * JSON; on a terminal the person is asked y / a / n / r).
 *
 * Rule source: issue 2 "The CLI and the demo"; issue 4 "The person's side".
 */
import { Command, Option } from "commander";
import { createRequire } from "node:module";
import { runCli } from "./commands.js";
import { registerScriptsCommands } from "./scripts.js";
import { registerTriggersCommands } from "./triggers.js";

const VERSION = (createRequire(import.meta.url)("../../package.json") as { version: string }).version;

const program = new Command();
program
  .name("toolshell")
  .description("Every tool an agent has — local tools, MCP servers, saved scripts — behind one `tools` command in a sandboxed bash.")
  .option("-c, --config <file>", "config file (default: ./toolshell.config.json, then ./.mcp.json)")
  .option("-w, --workspace <dir>", "a real folder mounted read-write as the working directory")
  .option("--timeout <ms>", "time limit of the shell call in milliseconds")
  .option("--session <id>", "the session to run in (default: cli); its files, approvals and events persist")
  .option("--store <file>", "the state file (default: .toolshell/state.db beside the config)")
  .version(VERSION, "-V, --version", "print the version")
  .showHelpAfterError();

program
  .command("exec")
  .description("run SCRIPT as one shell call")
  .argument("<script>", "the bash script")
  .action((script: string) => runCli({ kind: "exec", script, options: program.opts() }));

program
  .command("run")
  .description("run a script file (- reads the script from stdin)")
  .argument("<file>", "script file, or -")
  .action((file: string) => runCli({ kind: "run", file, options: program.opts() }));

program
  .command("list")
  .description("list servers and tools (the same listing as `tools --help`)")
  .addOption(new Option("--tokens", "also print the size of the bash tool's description in tokens"))
  .action((opts: { tokens?: boolean }) =>
    opts.tokens ? import("./agents.js").then((m) => m.runListTokens(program.opts())) : runCli({ kind: "list", tokens: false, options: program.opts() }),
  );

program
  .command("plan")
  .description("print each tools call a script would make, with its risk; runs nothing")
  .argument("<file>", "script file, or -")
  .action((file: string) => runCli({ kind: "plan", file, options: program.opts() }));

program
  .command("approvals")
  .description("list the CLI session's approval requests waiting for an answer")
  .action(() => runCli({ kind: "approvals", options: program.opts() }));

program
  .command("approve")
  .description("answer an approval request: allow | allow_always | reject | reject_always")
  .argument("<request-id>", "the request id from the stop report (apr_…)")
  .argument("<decision>", "allow, allow_always, reject or reject_always")
  .action((requestId: string, decision: string) => runCli({ kind: "approve", requestId, decision, options: program.opts() }));

program
  .command("mcp")
  .description("serve an MCP server whose tools are bash plus the direct tools, fronting every configured server (stdio, or --http PORT)")
  .option("--http <port>", "serve Streamable HTTP on this port (0: any free port) instead of stdio")
  .option("--host <host>", "host to bind with --http", "127.0.0.1")
  .option("--import <client...>", "also front the servers of: claude-desktop, cursor, claude-code, vscode")
  .option("--write <file>", "with --import: write the merged config to FILE and exit")
  .option("--session <id>", "toolshell session id of a stdio client", "mcp")
  .option("--store <file>", "the store file (default: the config's store, else .toolshell/state.db beside it)")
  .option("--no-elicitation", "never ask through MCP elicitation; offer the toolshell_approve tool instead")
  .option("--no-approve-tool", "do not offer toolshell_approve: answers come only from `toolshell approve` or the HTTP API")
  .action((opts: import("./agents.js").McpCliOptions) => import("./agents.js").then((m) => m.runMcp(opts, program.opts())));

program
  .command("check")
  .description("advisory findings about the config and its tools (always exits 0)")
  .option("--json", "print the findings as JSON")
  .option("--no-load", "do not start servers that are not loaded")
  .option("--schema-limit <tokens>", "tokens an input schema may take (default 1000)")
  .action((opts: import("./agents.js").CheckCliOptions) => import("./agents.js").then((m) => m.runCheck(opts, program.opts())));

// Issue 5: the session timeline and the HTTP API (src/cli/sessions.ts).
program
  .command("events")
  .description("print a session's timeline (nested calls under their shell call); --json prints JSON lines")
  .argument("<session>", "the session id (the CLI's own is cli; a trigger's is trg_<trigger id>)")
  .option("--json", "one JSON event per line, with its seq")
  .option("--after <seq>", "only events after this seq")
  .option("--store <file>", "the store file (default: the config's store, else .toolshell/state.db beside it)")
  .action(async (session: string, opts: { json?: boolean; after?: string; store?: string }) => {
    const { runEvents } = await import("./sessions.js");
    process.exitCode = await runEvents(session, { json: opts.json, after: opts.after, options: { ...program.opts(), store: opts.store ?? (program.opts() as { store?: string }).store } });
  });

program
  .command("serve")
  .description("serve the HTTP API (sessions, approvals, scripts, triggers, webhooks) and run the triggers")
  .option("--host <host>", "address to listen on (default: config server.host, else 127.0.0.1)")
  .option("--port <port>", "port (default: config server.port, else 8787; 0 picks a free one)")
  .option("--store <file>", "the store file (default: the config's store, else .toolshell/state.db beside it)")
  .option("--no-triggers", "do not run schedules (webhooks and run-now still work)")
  .action(async (opts: { host?: string; port?: string; store?: string; triggers?: boolean }) => {
    const { runServe } = await import("./sessions.js");
    process.exitCode = await runServe({ host: opts.host, port: opts.port, noTriggers: opts.triggers === false, options: { ...program.opts(), store: opts.store ?? (program.opts() as { store?: string }).store } });
  });

// Saved scripts and triggers over the store beside the config (src/cli/scripts.ts, src/cli/triggers.ts).
registerScriptsCommands(program, () => program.opts());
registerTriggersCommands(program, () => program.opts());

program.parseAsync(process.argv).catch((err: unknown) => {
  process.stderr.write(`toolshell: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 2;
});
