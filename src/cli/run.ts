/**
 * Running a saved script or a trigger from the command line: these open the whole host (config,
 * store, MCP servers) the way `toolshell exec` does, make one shell call, and exit with its
 * outcome.
 *
 * See README → The CLI.
 */
import type { ShellResult } from "../runtime/index.js";
import type { Host } from "../server/host.js";
import { CLI_SESSION, EXIT_NEEDS_APPROVAL, openToolShell, type CommonOptions } from "./commands.js";
import { agentId, fail, type ManageOptions } from "./manage.js";
import { CliError } from "./cli-error.js";

function write(stream: NodeJS.WriteStream, text: string): Promise<void> {
  return new Promise((resolve) => (text ? stream.write(text, () => resolve()) : resolve()));
}

/** Opens the host, runs `fn`, closes the host; resolves with `fn`'s exit code (or the error's). Never throws. */
export async function withHost(options: CommonOptions, o: ManageOptions, fn: (host: Host) => Promise<number>): Promise<number> {
  let host: Host | undefined;
  try {
    try {
      host = await openToolShell(options);
    } catch (err) {
      throw new CliError("unavailable", (err as Error).message);
    }
    return await fn(host);
  } catch (err) {
    return fail(o, err);
  } finally {
    await host?.close().catch(() => {});
  }
}

/** The shell call's outcome as an exit code: the script's, or 3 when it stopped for approval. */
export function exitCodeOf(result: ShellResult): number {
  return result.tools?.stopped?.reason === "needs_approval" && result.tools.stopped.request_id ? EXIT_NEEDS_APPROVAL : result.exit_code;
}

/** Session `id` opened for `agent`. @throws CliError `conflict` when it is another principal's or agent's. */
async function ownSession(host: Host, id: string, agent: string): Promise<ReturnType<Host["session"]>> {
  const { SessionOwnerError } = await import("../runtime/index.js");
  try {
    const session = host.session(id, { agent_id: agent });
    await session.ready;
    return session;
  } catch (err) {
    // Here a session is chosen with --session.
    throw err instanceof SessionOwnerError ? new CliError("conflict", err.message.replace(/: open it .*$/, ": choose another session id (--session)")) : err;
  }
}

/**
 * Runs `script` as one shell call in `--session` (default `cli`, or `cli:<agent>` for another
 * agent) for `agent`. Prints stdout and stderr as the script wrote them and, when it stopped,
 * the stop report as one JSON line on stderr; with `--json`, the whole result as JSON on stdout
 * (the HTTP API's `/bash` answer). Resolves with the exit code.
 */
export async function runScriptCall(options: CommonOptions, o: ManageOptions, script: string, agent: string | undefined): Promise<number> {
  const agentName = await agentId({ agent });
  const sessionId = options.session ?? (agent === undefined || agentName === "default" ? CLI_SESSION : `cli:${agentName}`);
  return withHost(options, o, async (host) => {
    // Another principal's or agent's session is refused by the one rule (runtime/lineage.ts `ownerRefusal`).
    const session = await ownSession(host, sessionId, agentName);
    const { cliPerson } = await import("./person.js");
    const { processTerminal } = await import("./terminal.js");
    const result = await session.bash(script, { person: cliPerson(process.stderr, processTerminal()) });
    if (o.json) {
      await write(process.stdout, JSON.stringify(result, null, 2) + "\n");
    } else {
      await write(process.stdout, result.stdout);
      await write(process.stderr, result.stderr);
      if (result.tools?.stopped) await write(process.stderr, JSON.stringify({ tools: { ...result.tools, stdout: undefined, stderr: undefined } }) + "\n");
    }
    return exitCodeOf(result);
  });
}
