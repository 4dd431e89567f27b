/**
 * The `toolshell` command's parser: every subcommand and option (commander), loaded by main.ts
 * for any invocation but the plain `exec SCRIPT` / `run FILE` it hands to runCli itself.
 *
 * See README → The CLI.
 */
import { Argument, Command, Option } from "commander";
import { createRequire } from "node:module";
import { runCli } from "./commands.js";
import { registerScriptsCommands } from "./scripts.js";
import { registerServersCommands } from "./servers.js";
import { registerTriggersCommands } from "./triggers.js";
import { oneOf, someOf } from "./usage.js";
import { COMPLETION_SHELLS } from "./completion.js";
import { CLIENTS } from "../gateway/clients.js";
import { DECISIONS } from "../policy/decisions.js";
import { terminalText } from "../display/show-input.js";



const VERSION = (createRequire(import.meta.url)("../../package.json") as { version: string }).version;

const program = new Command();
program
  .name("toolshell")
  .description("Every tool an agent has — local tools, MCP servers, saved scripts — behind one `tools` command in a sandboxed bash.")
  .option("-c, --config <file>", "config file (default: ./toolshell.config.json, then ./.mcp.json)")
  .option("-w, --workspace <dir>", "a real folder mounted read-write as the working directory")
  .option("--timeout <ms>", "time limit of the shell call in milliseconds")
  .option("--session <id>", "the session to run in (default: cli); its files, approvals and events persist")
  .option("--store <file|url>", "the store: a SQLite file, :memory: or a postgres:// URL (default: .toolshell/state.db beside the config)")
  .option("--no-daemon", "run in this process instead of the config's warm host")
  .option("--daemon-idle <seconds>", "idle time after which a warm host started now exits (default 300, or $TOOLSHELL_DAEMON_IDLE)")
  .version(VERSION, "-V, --version", "print the version")
  // A subcommand's --help lists these too: they go before or after the subcommand alike.
  .configureHelp({ showGlobalOptions: true })
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
  .description("list the approval requests waiting for an answer, of every session in the store (--session: of one)")
  .addOption(new Option("--json", "print them as JSON (raw input and its escaped display)"))
  .action((opts: { json?: boolean }) => runCli({ kind: "approvals", json: opts.json === true, options: program.opts() }));

program
  .command("approve")
  .description("answer an approval request of any session (checked against --session when given): allow | allow_always | reject | reject_always")
  .argument("<request-id>", "the request id from the stop report (apr_…)")
  .addArgument(new Argument("<decision>", "allow, allow_always, reject or reject_always").argParser(oneOf("decision", DECISIONS)))
  .action((requestId: string, decision: string) => runCli({ kind: "approve", requestId, decision, options: program.opts() }));

program
  .command("daemon")
  .description("the config's warm host: status (is it running, since when) or stop")
  // `serve` is how a run starts the host; it is not for people.
  .addArgument(new Argument("<action>", "status | stop").argParser(oneOf("daemon action", ["status", "stop"], ["serve"])))
  .addOption(new Option("--idle <seconds>", "with serve: idle time before exit").hideHelp())
  .addOption(new Option("--after-pid <pid>", "with serve: open the host once this process has exited").hideHelp())
  .action(async (action: string, opts: { idle?: string; afterPid?: string }) => {
    const { runDaemonCommand } = await import("./daemon.js");
    process.exitCode = await runDaemonCommand(action, opts.idle, program.opts(), opts.afterPid);
  });

program
  .command("mcp")
  .description("serve an MCP server whose tools are bash plus the direct tools, fronting every configured server (stdio, or --http PORT)")
  .option("--http <port>", "serve Streamable HTTP on this port (0: any free port) instead of stdio")
  .option("--host <host>", "host to bind with --http", "127.0.0.1")
  .option("--max-sessions <n>", "with --http: MCP sessions kept at once; past it a new one gets 503 (default 100)")
  .option("--session-idle <ms>", "with --http: close an MCP session idle this long (default 1800000, 30 minutes)")
  .addOption(new Option("--import <client...>", `also front the servers of: ${CLIENTS.join(", ")}`).argParser(someOf("client", CLIENTS)))
  .option("--write <file>", "with --import: write the merged config to FILE and exit")
  .option("--session <id>", "toolshell session id of a stdio client", "mcp")
  .option("--store <file|url>", "the store: a SQLite file or a postgres:// URL (default: the config's store, else .toolshell/state.db beside it)")
  .option("--no-elicitation", "never ask through MCP elicitation; offer the toolshell_approve tool instead")
  .option("--no-approve-tool", "do not offer toolshell_approve: answers come only from `toolshell approve` or the HTTP API")
  // `--session` is also a program option, and commander gives it to the program wherever it is
  // written: `toolshell mcp --session ID` lands there, so it is read from both.
  .action((opts: import("./agents.js").McpCliOptions) =>
    import("./agents.js").then((m) => m.runMcp({ ...opts, session: (program.opts() as { session?: string }).session ?? opts.session }, program.opts())),
  );

program
  .command("check")
  .description("advisory findings about the config and its tools (always exits 0)")
  .option("--json", "print the findings as JSON")
  .option("--no-load", "do not start servers that are not loaded")
  .option("--schema-limit <tokens>", "tokens an input schema may take (default 1000)")
  .action((opts: import("./agents.js").CheckCliOptions) => import("./agents.js").then((m) => m.runCheck(opts, program.opts())));

program
  .command("auth")
  .description("sign in to an MCP server that uses OAuth (prints the URL, receives the redirect on 127.0.0.1), --list the sign-ins, or --logout")
  .argument("[server]", "the server's name in the config")
  .option("--list", "each OAuth server's state: signed in, who, expires at, scopes")
  .option("--logout", "forget the server's tokens")
  .option("--no-open", "do not open a browser; only print the URL")
  .option("--principal <name>", "who the sign-in is for (a session's principal or agent_id; default: default)")
  .option("--json", "with --list: print JSON")
  .option("--wait <ms>", "how long to wait for the sign-in (default 600000)")
  .action(async (server: string | undefined, opts: import("./auth.js").AuthCliOptions) => {
    const { runAuth } = await import("./auth.js");
    process.exitCode = await runAuth(server, opts, program.opts());
  });

// The session timeline and the HTTP API (src/cli/sessions.ts).
program
  .command("events")
  .description("print a session's timeline (nested calls under their shell call); --json prints JSON lines")
  .argument("<session>", "the session id (the CLI's own is cli; a trigger's is trg_ and its id, e.g. trg_trg_95e43f…)")
  .option("--json", "one JSON event per line, with its seq")
  .option("--after <seq>", "only events after this seq")
  .option("--store <file|url>", "the store: a SQLite file or a postgres:// URL (default: the config's store, else .toolshell/state.db beside it)")
  .action(async (session: string, opts: { json?: boolean; after?: string; store?: string }) => {
    const { runEvents } = await import("./sessions.js");
    process.exitCode = await runEvents(session, { json: opts.json, after: opts.after, options: { ...program.opts(), store: opts.store ?? (program.opts() as { store?: string }).store } });
  });

program
  .command("serve")
  .description("serve the HTTP API (sessions, approvals, scripts, triggers, webhooks) and run the triggers")
  .option("--host <host>", "address to listen on (default: config server.host, else 127.0.0.1)")
  .option("--port <port>", "port (default: config server.port, else 8787; 0 picks a free one)")
  .option("--store <file|url>", "the store: a SQLite file or a postgres:// URL (default: the config's store, else .toolshell/state.db beside it)")
  .option("--no-triggers", "do not run schedules (webhooks and run-now still work)")
  .option("--tls-cert <file>", "serve HTTPS with this PEM certificate (with --tls-key; default: config server.tls)")
  .option("--tls-key <file>", "the PEM private key of --tls-cert")
  .option("--trust-proxy", "a TLS proxy is in front: believe its X-Forwarded-Proto and X-Forwarded-For (default: config server.trustProxy)")
  .option("--log-level <level>", "the JSON log lines on stdout: debug, info (default), warn, error or off")
  .action(async (opts: { host?: string; port?: string; store?: string; triggers?: boolean; tlsCert?: string; tlsKey?: string; trustProxy?: boolean; logLevel?: string }) => {
    const { runServe } = await import("./sessions.js");
    process.exitCode = await runServe({ host: opts.host, port: opts.port, noTriggers: opts.triggers === false, tlsCert: opts.tlsCert, tlsKey: opts.tlsKey, trustProxy: opts.trustProxy, logLevel: opts.logLevel, options: { ...program.opts(), store: opts.store ?? (program.opts() as { store?: string }).store } });
  });

program
  .command("completion")
  .description("print a completion script for the CLI's commands and options: bash, zsh or fish")
  .addArgument(new Argument("<shell>", "bash, zsh or fish").argParser(oneOf("shell", COMPLETION_SHELLS)))
  .action(async (shell: string) => {
    const { completionScript } = await import("./completion.js");
    process.stdout.write(completionScript(shell, program));
  });
// Saved scripts and triggers over the store beside the config (src/cli/scripts.ts, src/cli/triggers.ts);
// servers over the config file and its running serve (src/cli/servers.ts).
registerScriptsCommands(program, () => program.opts());
registerTriggersCommands(program, () => program.opts());
registerServersCommands(program, () => program.opts());

program.parseAsync(process.argv).catch((err: unknown) => {
  process.stderr.write(terminalText(`toolshell: ${err instanceof Error ? err.message : String(err)}\n`));
  process.exitCode = 2;
});
