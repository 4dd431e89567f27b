#!/usr/bin/env node
/**
 * The `toolshell` command: run scripts over the configured tools from a terminal.
 *
 *   toolshell exec 'SCRIPT'        run a script given as an argument
 *   toolshell run FILE|-           run a script file (or stdin)
 *   toolshell list [--tokens]      the same listing as `tools --help`
 *   toolshell plan FILE|-          each tools call a script would make, with its risk
 *   toolshell approvals            pending approval requests of the CLI session
 *   toolshell approve ID DECISION  answer one (allow, allow_always, reject, reject_always)
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
import { runCli } from "./commands.js";

const program = new Command();
program
  .name("toolshell")
  .description("Every tool an agent has — local tools, MCP servers, saved scripts — behind one `tools` command in a sandboxed bash.")
  .option("-c, --config <file>", "config file (default: ./toolshell.config.json, then ./.mcp.json)")
  .option("-w, --workspace <dir>", "a real folder mounted read-write as the working directory")
  .option("--timeout <ms>", "time limit of the shell call in milliseconds")
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
  .action((opts: { tokens?: boolean }) => runCli({ kind: "list", tokens: !!opts.tokens, options: program.opts() }));

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

program.parseAsync(process.argv).catch((err: unknown) => {
  process.stderr.write(`toolshell: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 2;
});
