/**
 * `sleep` that a shell call's stop (time limit, approval stop) interrupts while keeping the
 * script's output so far: when the shell call stops during a sleep, the script is halted the
 * same way a stopping `tools` call halts it, so the stop report still carries stdout and stderr.
 * Durations as GNU sleep: numbers with an optional s/m/h/d suffix, summed.
 *
 * See README → Approvals.
 */
import { defineCommand, type Command } from "../../just-bash.js";
import { ToolCallError } from "../../../tool/index.js";
import { haltScript } from "../../halt.js";
import { currentScope } from "../../scope.js";

const UNITS: Record<string, number> = { "": 1000, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Milliseconds of `sleep` operands, or an error message (GNU wording). */
export function sleepDuration(args: string[]): number | string {
  if (args.length === 0) return "sleep: missing operand";
  let ms = 0;
  for (const a of args) {
    const m = /^(\d+(?:\.\d*)?|\.\d+)([smhd]?)$/.exec(a);
    if (!m) return `sleep: invalid time interval '${a}'`;
    ms += Number(m[1]) * UNITS[m[2]];
  }
  return ms;
}

/** The `sleep` command. */
export function createSleepCommand(): Command {
  return defineCommand("sleep", async (args, ctx) => {
    const ms = sleepDuration(args);
    if (typeof ms === "string") return { stdout: "", stderr: `${ms}\n`, exitCode: 1 };
    const scope = currentScope();
    const signals = [scope?.signal, ctx.signal].filter((s): s is AbortSignal => !!s);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        for (const s of signals) s.removeEventListener("abort", done);
        resolve();
      }
      for (const s of signals) {
        if (s.aborted) return done();
        s.addEventListener("abort", done, { once: true });
      }
    });
    if (scope?.isStopped()) haltScript(ctx, new ToolCallError("stopped", "the shell call stopped during sleep"));
    if (ctx.signal?.aborted) return { stdout: "", stderr: "", exitCode: 130 };
    return { stdout: "", stderr: "", exitCode: 0 };
  });
}
