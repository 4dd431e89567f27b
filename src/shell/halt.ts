/**
 * Halting a running script from inside a command, keeping what it printed so far.
 *
 * just-bash stops a whole execution (pipelines, `$(...)`, subshells, `bash -c`, functions, loops)
 * when a command exhausts a budget of the shared execution scope, and returns the output produced
 * before that point with exit code 126. Aborting the exec signal would stop it too, but drops the
 * output. We use the documented `CommandExecutionBudget.consumeLimited` with a maximum of zero.
 *
 * See README → Approvals.
 */
import type { ToolCallError } from "../tool/index.js";
import { currentScope } from "./scope.js";

/** The budget kind whose exhaustion marks a toolshell halt in the engine's stderr. */
export const HALT_KIND = "toolshell_halt";

/** The stderr line just-bash prints for our halt (removed by the engine adapter). */
export const HALT_LINE = new RegExp(`^bash: tools: ${HALT_KIND} work limit exceeded \\(0\\)\\n?`, "m");

/**
 * Stops the script that runs the current command. Always throws (the engine's limit error).
 * `reason` is for the caller's records; the runtime already holds the stop state.
 */
export function haltScript(ctx: { executionScope?: { consumeLimited(kind: string, count: number, maximum: number, site?: string): number } }, reason?: ToolCallError): never {
  void reason;
  if (!ctx.executionScope) throw new Error("toolshell: cannot halt: the engine gave no execution scope");
  ctx.executionScope.consumeLimited(HALT_KIND, 1, 0, "tools");
  throw new Error("toolshell: halt did not stop the script");
}

type HaltContext = Parameters<typeof haltScript>[0];

const AFTER_YIELD = Symbol.for("toolshell.afterYield");

/** Halts the running script when its shell call has stopped (the time limit, most often). */
function haltIfStopped(ctx: HaltContext): void {
  const scope = currentScope();
  if (scope?.isStopped()) haltScript(ctx);
}

/**
 * Lets a stopped shell call halt its script at the next statement, command or `[[ ]]` term,
 * output kept, even when the script computes without running any command of ours. The patched
 * engine (patches/README.md, H15) gives the event loop a turn every 20 ms of script work and
 * then calls the hooks in
 * `globalThis[Symbol.for("toolshell.afterYield")]`. Idempotent.
 */
export function installHaltAtYield(): void {
  const g = globalThis as unknown as Record<symbol, Set<(ctx: HaltContext) => void> | undefined>;
  const hooks = (g[AFTER_YIELD] ??= new Set());
  hooks.add(haltIfStopped);
}
