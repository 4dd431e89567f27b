/**
 * The `tools` command inside the shell: argv → help / search / subcommand / a nested call;
 * output on stdout; errors as one JSON line on stderr with exit code 1.
 *
 * See README → The `tools` command.
 */
import { decodeBytesToUtf8, defineCommand, type Command } from "../../just-bash.js";
import { renderSource, renderTool } from "../../../catalog/index.js";
import { isPromiseLike, redactionFailed, ToolCallError, toToolCallError, type CatalogTool } from "../../../tool/index.js";
import { haltScript } from "../../halt.js";
import { buildInput } from "./input.js";
import { errorLine, renderOutput } from "./output.js";
import { currentScope, type ShellScope } from "../../scope.js";

type Result = { stdout: string; stderr: string; exitCode: number };

const ok = (stdout: string, stderr = ""): Result => ({ stdout, stderr, exitCode: 0 });
const fail = (err: ToolCallError, stdout = ""): Result => ({ stdout, stderr: errorLine(err), exitCode: 1 });

function isHelp(word: string | undefined): boolean {
  return word === "--help" || word === "-h" || word === "help";
}

/**
 * Whether `tools … TOOL WORDS` shows the tool's help instead of calling it: a first word `help`,
 * `-h` or `--help`, or `--help` anywhere unless the tool takes a `help` field (then it is that
 * field). The one rule: the command follows it, and so does the reading before a script starts.
 */
export function asksForHelp(tool: Pick<CatalogTool, "inputSchema">, words: readonly string[]): boolean {
  const props = (tool.inputSchema.properties ?? {}) as Record<string, unknown>;
  return isHelp(words[0]) || (words.includes("--help") && !("help" in props));
}

/**
 * Creates the `tools` command. It serves whichever shell call runs it (found through async
 * context); outside a shell call it answers `unavailable`. Never throws except to halt the script
 * when the runtime says an error stops it.
 */
export function createToolsCommand(): Command {
  return defineCommand("tools", async (args, ctx) => {
    const scope = currentScope();
    if (!scope) return fail(new ToolCallError("unavailable", "the tools command runs only inside a toolshell shell call", false));
    if (scope.isStopped()) return fail(new ToolCallError("stopped", "an earlier call stopped the script, so this one did not run"));
    // stdin is read only when the call uses it: the shell's stdin is one stream that a command
    // reading it uses up (docs/shell.md), so `tools srv tool k=v` leaves it for the commands after.
    let text: string | undefined;
    const stdin = (): string => (text ??= decodeBytesToUtf8(ctx.stdin));
    let result: Result;
    try {
      result = await dispatch(scope, args, stdin, ctx);
    } catch (err) {
      const e = toToolCallError(err);
      if (scope.stopsScript(e)) haltScript(ctx, e);
      result = fail(e);
    }
    // Secrets from the config never reach the script, whatever path the text took (a server's
    // start-up error, a help page, a result); text the redactor fails on is not shown at all.
    if (scope.redact) {
      try {
        result = { stdout: scope.redact(result.stdout), stderr: scope.redact(result.stderr), exitCode: result.exitCode };
      } catch {
        result = fail(redactionFailed());
      }
    }
    return result;
  });
}

/**
 * The one place `tools` words are dispatched: a subcommand (`help`, `search`, `plan`, `scripts`,
 * …, looked up through the scope), else a source's help, a tool's help, or a nested call.
 */
async function dispatch(scope: ShellScope, args: string[], stdin: () => string, ctx: Parameters<Parameters<typeof defineCommand>[1]>[1]): Promise<Result> {
  const [first, ...rest] = args;
  const handler = scope.subcommand(first === undefined || isHelp(first) ? "help" : first);
  if (handler) {
    const handled = await handler(rest, {
      get stdin() {
        return stdin();
      },
      cwd: ctx.cwd,
      fs: ctx.fs,
      exec: ctx.exec ? (script, o) => ctx.exec!(script, { cwd: o.cwd, stdin: o.stdin, env: o.env, signal: ctx.signal }) : undefined,
    });
    if (handled) return handled;
  }
  const { catalog } = scope;
  const resolving = catalog.resolve(args, scope.signal);
  const resolved = isPromiseLike(resolving) ? await resolving : resolving;
  if (resolved.kind === "source") return ok(renderSource(catalog, resolved.source));
  const { tool, rest: words } = resolved;
  if (asksForHelp(tool, words)) return ok(renderTool(catalog, tool));
  const input = buildInput(tool, {
    args: words,
    get stdin() {
      return stdin();
    },
  });
  const fromStdin = words.includes("-") || (words.length === 0 && stdin().trim() !== "");
  let output;
  try {
    output = await scope.callTool({ tool, command: resolved.command, input });
  } catch (err) {
    if (err instanceof ToolCallError && err.code === "invalid_input" && !fromStdin && stdin().trim().startsWith("{")) {
      throw new ToolCallError("invalid_input", `${err.message} (stdin holds JSON that was not read: add \`-\` to merge it under the pairs)`);
    }
    throw err;
  }
  const rendering = renderOutput(output, ctx.fs, ctx.cwd, tool.name);
  const rendered = isPromiseLike(rendering) ? await rendering : rendering;
  if (rendered.files.length) scope.noteFiles(rendered.files);
  return ok(rendered.stdout, rendered.stderr);
}
