import { defineCommand, type Command, type ExecResult } from "../../just-bash.js";

function shortFlags(args: string[]): string {
  let flags = "";
  for (const a of args) {
    if (a === "--") break;
    if (/^-[A-Za-z]+$/.test(a)) flags += a.slice(1);
  }
  return flags;
}

async function original(name: string, args: string[], run?: (a: string[]) => Promise<ExecResult>): Promise<ExecResult> {
  if (!run) return { stdout: "", stderr: `${name}: not available\n`, exitCode: 127 };
  return run(args);
}

/**
 * Wrap just-bash's `uniq` so `uniq -c` prints counts the GNU way: right-aligned in
 * 7 columns, then a space (`      3 b`); just-bash uses 4. Everything else is the
 * bundled command's. Source: GNU coreutils `uniq` (`%7lu `); docs/shell.md conformance corpus.
 */
export function createUniqCommand(): Command {
  return defineCommand("uniq", async (args, ctx) => {
    const r = await original("uniq", args, ctx.origCommand);
    const counting = shortFlags(args).includes("c") || args.includes("--count");
    if (!counting || r.exitCode !== 0) return r;
    const stdout = r.stdout.replace(/^ *(\d+) /gm, (_m, n: string) => `${n.padStart(7)} `);
    return { ...r, stdout };
  });
}

/**
 * Wrap just-bash's `wc` so that, reading stdin with two or more counts, each count is
 * right-aligned in 7 columns like GNU wc (`      2       3`); a single count and
 * file operands keep the bundled output. Source: GNU coreutils `wc` (stdin width 7).
 */
export function createWcCommand(): Command {
  return defineCommand("wc", async (args, ctx) => {
    const r = await original("wc", args, ctx.origCommand);
    const operands = args.filter((a) => !a.startsWith("-") || a === "-");
    if (operands.length > 0 || r.exitCode !== 0) return r;
    const stdout = r.stdout.replace(/^ *(\d+(?: +\d+)+) *$/gm, (line) =>
      line
        .trim()
        .split(/ +/)
        .map((n) => n.padStart(7))
        .join(" "),
    );
    return { ...r, stdout };
  });
}

/**
 * Wrap just-bash's `ln` so a refused symbolic link says what GNU ln says on EPERM
 * (`ln: failed to create symbolic link 'x': Operation not permitted`), and so does a refused hard
 * link to a file (a session's in-memory files keep none); the bundled command reports its
 * directory message for every EPERM. The workspace folder (just-bash's
 * `ReadWriteFs`) refuses symbolic links so none can point outside it. Everything else,
 * output and status included, is the bundled command's. Source: GNU coreutils `ln`.
 */
export function createLnCommand(): Command {
  return defineCommand("ln", async (args, ctx) => {
    const r = await original("ln", args, ctx.origCommand);
    if (r.exitCode === 0) return r;
    let symbolic = false;
    let i = 0;
    for (; i < args.length && args[i]!.startsWith("-"); i++) {
      const a = args[i]!;
      if (a === "--") {
        i++;
        break;
      }
      if (a === "--symbolic" || (/^-[sfvn]+$/.test(a) && a.includes("s"))) symbolic = true;
    }
    const [target, link] = args.slice(i);
    if (link === undefined || r.stderr !== `ln: '${target}': hard link not allowed for directory\n`) return r;
    if (symbolic) return { ...r, stderr: `ln: failed to create symbolic link '${link}': Operation not permitted\n` };
    // A hard link to a file: a session's in-memory files keep none (shell/session-fs.ts).
    const st = await ctx.fs.stat(ctx.fs.resolvePath(ctx.cwd, target)).catch(() => undefined);
    if (!st?.isFile) return r;
    return { ...r, stderr: `ln: failed to create hard link '${link}' => '${target}': Operation not permitted (a session's files keep no hard links: use ln -s, or cp)\n` };
  });
}
