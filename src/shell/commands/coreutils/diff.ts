import { createTwoFilesPatch, formatPatch } from "diff";
import { decodeBytesToUtf8, defineCommand, type Command, type CommandContext, type ExecResult } from "../../just-bash.js";

/** How long one `diff` may look for the shortest edit before it gives a whole-file diff. */
export const DIFF_SEARCH_MS = 2_000;

/**
 * Wrap just-bash's `diff` so two large files that differ never hold the host: the bundled
 * command computes the shortest edit in one synchronous run (30,000 lines that all differ held
 * the event loop for minutes, every session and the HTTP API with it, past the time limit). Here
 * the search runs in slices that let other work in between (jsdiff's callback mode) and stops
 * after {@link DIFF_SEARCH_MS}; then the answer is a correct but not shortest diff — one hunk
 * removing every old line and adding every new one, as GNU diff's heuristics also give up on
 * minimality for large inputs. The output of any diff that finds its edit in time is the bundled
 * command's (the same jsdiff call, `-u` format). `--help`, `-q`, identical files and missing
 * operands go to the bundled command as they are. docs/security.md "What each limit defends".
 */
export function createDiffCommand(): Command {
  return defineCommand("diff", async (args, ctx) => {
    const run = ctx.origCommand;
    if (!run) return { stdout: "", stderr: "diff: not available\n", exitCode: 127 };
    const operands = args.filter((a) => a === "-" || !a.startsWith("-"));
    const flags = args.filter((a) => a !== "-" && a.startsWith("-"));
    // Only the plain forms this wrapper knows; any other goes to the bundled command.
    if (operands.length !== 2 || !flags.every((f) => /^-[usi]+$/.test(f) || f === "--unified" || f === "--ignore-case" || f === "--report-identical-files")) return run(args);
    const [a, b] = operands as [string, string];
    const left = await read(ctx, a);
    const right = await read(ctx, b);
    const ignoreCase = flags.some((f) => f === "--ignore-case" || (/^-[usi]+$/.test(f) && f.includes("i")));
    if (left === undefined || right === undefined || (ignoreCase ? left.toLowerCase() === right.toLowerCase() : left === right)) return run(args);
    return { stdout: await patch(a, b, left, right, ctx.signal), stderr: "", exitCode: 1 } satisfies ExecResult;
  });
}

/** An operand's text as the bundled command reads it (`-` is stdin); undefined when it cannot be read. */
async function read(ctx: CommandContext, operand: string): Promise<string | undefined> {
  try {
    return operand === "-" ? decodeBytesToUtf8(ctx.stdin) : await ctx.fs.readFile(ctx.fs.resolvePath(ctx.cwd, operand));
  } catch {
    return undefined;
  }
}

/** The unified diff of `left` and `right`, found in slices; past the search time (or aborted), the whole-file diff. */
function patch(a: string, b: string, left: string, right: string, signal: AbortSignal | undefined): Promise<string> {
  return new Promise((resolve) => {
    const deadline = signal?.aborted ? 0 : DIFF_SEARCH_MS;
    createTwoFilesPatch(a, b, left, right, "", "", {
      context: 3,
      timeout: deadline,
      callback: (found: string | undefined) => resolve(found ?? wholeFile(a, b, left, right)),
    });
  });
}

/** One hunk: every line of `left` removed, every line of `right` added (a correct diff, not the shortest). */
function wholeFile(a: string, b: string, left: string, right: string): string {
  const lines = (text: string, mark: string): string[] => {
    if (text === "") return [];
    const out = text.replace(/\n$/, "").split("\n").map((l) => mark + l);
    if (!text.endsWith("\n")) out.push("\\ No newline at end of file");
    return out;
  };
  const removed = lines(left, "-");
  const added = lines(right, "+");
  const count = (text: string) => (text === "" ? 0 : text.replace(/\n$/, "").split("\n").length);
  const oldLines = count(left);
  const newLines = count(right);
  return formatPatch({
    oldFileName: a,
    newFileName: b,
    oldHeader: "",
    newHeader: "",
    hunks: [{ oldStart: oldLines ? 1 : 0, oldLines, newStart: newLines ? 1 : 0, newLines, lines: [...removed, ...added] }],
  });
}
