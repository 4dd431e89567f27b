/**
 * The bound of what one shell call prints (config `maxOutputBytes`): past it the script stops,
 * exit code 126, with what it printed up to the bound kept and one line on stderr saying why. The
 * two engines reach it differently — just-bash counts every byte against
 * `executionLimits.maxOutputSize` and stops itself (its line is replaced by ours here); bashkit
 * has no such limit, so its output is counted as it streams out and the run cancelled, and a
 * finished run's result measured whole ({@link OutputKeeper}) — and both end in {@link outputPassed}.
 *
 * See docs/security.md → Bounded output.
 */
import { DEFAULT_MAX_OUTPUT_BYTES } from "../config/index.js";

export { DEFAULT_MAX_OUTPUT_BYTES };

/** The exit code of a script stopped at the bound (just-bash's code for any execution limit). */
export const OUTPUT_PASSED_EXIT = 126;

/** The line a shell call's stderr ends with when its output passed the bound. */
export function outputPassedLine(maxOutputBytes: number): string {
  return `toolshell: output passed maxOutputBytes (${maxOutputBytes} bytes); the script was stopped\n`;
}

/** The result of a script stopped at the bound: what it printed up to the bound, and the line. */
export function outputPassed(kept: { stdout: string; stderr: string }, maxOutputBytes: number): { stdout: string; stderr: string; exitCode: number } {
  const stderr = kept.stderr === "" || kept.stderr.endsWith("\n") ? kept.stderr : `${kept.stderr}\n`;
  return { stdout: kept.stdout, stderr: stderr + outputPassedLine(maxOutputBytes), exitCode: OUTPUT_PASSED_EXIT };
}

/**
 * just-bash's result as toolshell gives it: a run just-bash stopped at `maxOutputSize` (exit 126,
 * its last stderr line `bash: SITE: total output size exceeded (>N bytes), …` or
 * `bash: CMD: output size limit exceeded (N bytes)`, N the bound) gets toolshell's line instead.
 * Any other result is returned as it is. A script that prints such a line itself and exits 126 is
 * told the same: it stopped, and it printed no more than the bound.
 */
export function afterJustBash(r: { stdout: string; stderr: string; exitCode: number }, maxOutputBytes: number): { stdout: string; stderr: string; exitCode: number } {
  if (r.exitCode !== OUTPUT_PASSED_EXIT) return r;
  const body = r.stderr.endsWith("\n") ? r.stderr.slice(0, -1) : r.stderr;
  const cut = body.lastIndexOf("\n") + 1;
  const last = body.slice(cut);
  const engineLine = new RegExp(`^bash: .*output size (?:limit )?exceeded \\(>?${maxOutputBytes} bytes\\)`);
  if (!engineLine.test(last)) return r;
  return outputPassed({ stdout: r.stdout, stderr: body.slice(0, cut) }, maxOutputBytes);
}

/** `text` cut to at most `bytes` UTF-8 bytes, never inside a character. */
function utf8Prefix(text: string, bytes: number): string {
  const buf = Buffer.from(text, "utf8");
  if (buf.length <= bytes) return text;
  let end = bytes;
  while (end > 0 && (buf[end]! & 0xc0) === 0x80) end--;
  return buf.subarray(0, end).toString("utf8");
}

/**
 * Counts output as it streams out of an engine (bashkit's `onOutput` chunks), keeping stdout and
 * stderr up to the bound together; the first chunk that passes it is kept up to the bound and
 * `add` answers false: the caller cancels the run. Nothing past the bound is kept.
 */
export class OutputKeeper {
  private readonly out: string[] = [];
  private readonly err: string[] = [];
  private used = 0;
  /** True once the output passed the bound. */
  passed = false;

  constructor(readonly maxOutputBytes: number) {}

  /** Takes one chunk. @returns false when the output has now passed the bound. */
  add(chunk: { stdout?: string; stderr?: string }): boolean {
    for (const [text, into] of [
      [chunk.stdout ?? "", this.out],
      [chunk.stderr ?? "", this.err],
    ] as const) {
      if (this.passed || text === "") continue;
      const size = Buffer.byteLength(text, "utf8");
      if (size <= this.maxOutputBytes - this.used) {
        into.push(text);
        this.used += size;
        continue;
      }
      into.push(utf8Prefix(text, this.maxOutputBytes - this.used));
      this.used = this.maxOutputBytes;
      this.passed = true;
    }
    return !this.passed;
  }

  /** What was kept. */
  kept(): { stdout: string; stderr: string } {
    return { stdout: this.out.join(""), stderr: this.err.join("") };
  }
}
