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
 *   toolshell approvals [--json]   pending approval requests of every session (--session: one)
 *   toolshell approve ID DECISION  answer one, in whichever session asked (allow, allow_always, …)
 *   toolshell auth SERVER          sign in to an MCP server that uses OAuth (--list, --logout)
 *   toolshell completion SHELL     a completion script for bash, zsh or fish
 *   toolshell daemon status|stop   the config's warm host (exec, run, list, plan, approvals and
 *                                  approve run there unless --no-daemon; README "The CLI")
 *   toolshell scripts …            saved scripts: list, show, save, versions, diff, archive, restore, run
 *   toolshell triggers …           triggers: list, show, create, update, delete, run, runs
 *   toolshell servers …            the config's MCP servers: list, add, update, remove (a running serve follows)
 *
 * Common options: --config FILE (default: ./toolshell.config.json, then ./.mcp.json),
 * --workspace DIR (a real folder mounted read-write as the working directory).
 * The script's stdout and stderr pass through; the exit code is the script's, or 3 when it
 * stopped for a person's approval (without a terminal the stop report is printed on stderr as
 * JSON; on a terminal the person is asked y / a / n / r).
 *
 * See README → The CLI, Approvals.
 */

// The plain forms, `toolshell exec SCRIPT` and `toolshell run FILE` with no option, are what an
// agent or a person runs over and over: they go to runCli as commander would send them (the
// program's options at their defaults), without loading commander and every other command's
// definition, about 40% of a warm run's own start (README "Performance"). Anything else — an
// option, a word starting with `-`, a missing or extra word — is parsed by program.ts.
// A reader that closed the pipe (`toolshell … | head -1`) ends the command quietly, as Unix
// tools end on SIGPIPE, with the exit code it had so far; any other failure to write exits 1.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (err: NodeJS.ErrnoException) => process.exit(err.code === "EPIPE" ? (process.exitCode ?? 0) : 1));
}
const [, , command, operand, ...extra] = process.argv;
if ((command === "exec" || command === "run") && operand !== undefined && !operand.startsWith("-") && extra.length === 0) {
  const { runCli } = await import("./commands.js");
  await runCli(command === "exec" ? { kind: "exec", script: operand, options: { daemon: true } } : { kind: "run", file: operand, options: { daemon: true } });
} else {
  await import("./program.js");
}
