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
import { getHeapStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { ToolCallError } from "../tool/index.js";
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

/** How many shell calls have stopped, process-wide: the patched engine gives a turn at the next boundary after it grows (patches/README.md, H15). */
const stops = ((globalThis as unknown as Record<symbol, { n: number } | undefined>)[Symbol.for("toolshell.stops")] ??= { n: 0 });

/** A shell call stopped: running scripts halt at their next statement, not only at their next turn. */
export function noteStop(): void {
  stops.n++;
}

/** Halts the running script when its shell call has stopped (the time limit, most often). */
function haltIfStopped(ctx: HaltContext): void {
  const scope = currentScope();
  if (scope?.isStopped()) haltScript(ctx);
}

/** The share of the process's heap limit past which a running script is stopped (docs/security.md "What each limit defends"). */
export const HEAP_SHARE = 0.8;
/** Room kept below the heap limit: `heap_size_limit` counts the young generation's reserve (up to 192 MiB on Node 24), which long-lived data never gets. */
const HEAP_RESERVE = 256 * 1048576;

/** The heap use past which a running script is stopped: 80% of the limit, at most the limit less {@link HEAP_RESERVE}, at least half of it. */
export function heapBound(limit: number): number {
  return Math.max(limit / 2, Math.min(limit * HEAP_SHARE, limit - HEAP_RESERVE));
}

/**
 * Halts the running script when the process's heap has passed {@link HEAP_SHARE} of its limit:
 * what one script holds (variables, arrays, strings of up to the engine's 64 MiB each) is not
 * bounded in total by the engine, and a process out of heap dies with every session in it. The
 * shell call stops with an `unavailable` error saying so; its variables are dropped with it.
 */
function haltIfHeapFull(ctx: HaltContext): void {
  const full = () => {
    const h = getHeapStatistics();
    return h.used_heap_size >= heapBound(h.heap_size_limit) ? h : undefined;
  };
  if (!full()) return;
  // What is used may be garbage (a script stopped a moment ago): collected first, so only a
  // script that holds the memory is stopped, never the next one to run.
  collectGarbage();
  const heap = full();
  if (!heap) return;
  const mib = (n: number) => Math.round(n / 1048576);
  const error = new ToolCallError("unavailable", `the host's memory passed ${mib(heap.used_heap_size)} MiB of its ${mib(heap.heap_size_limit)} MiB heap (the bound is ${mib(heapBound(heap.heap_size_limit))} MiB) while this script ran; the script was stopped and what it held was let go`);
  // Its stack formatted now: an error's unformatted stack keeps the frames' objects (the
  // interpreter, and all the script holds) alive as long as the error lives in the stop report.
  void error.stack;
  currentScope()?.stopWith?.(error);
  haltScript(ctx, error);
}

let gc: (() => void) | null | undefined;
/** A full garbage collection (V8's `gc`, made available on first use); nothing when it cannot be had. */
function collectGarbage(): void {
  if (gc === undefined) {
    try {
      setFlagsFromString("--expose-gc");
      gc = runInNewContext("gc") as () => void;
    } catch {
      gc = null;
    }
  }
  gc?.();
}

/**
 * A command held the event loop past the engine's bound (patches/README.md, H30: a regular
 * expression over a long input, a large sort, a yq loop): the engine stops the command with a
 * limit error, and its shell call is stopped too, so the script halts at its next statement even
 * where the command caught that error (awk, sed and `[[ =~ ]]` treat a failed match as no match).
 */
function stopHeldCall(what: string, holdMs: number): void {
  currentScope()?.stopWith?.(new ToolCallError("unavailable", `${what} computed for ${holdMs} ms without a break, holding every other session; the script was stopped (a smaller input or a simpler pattern stays under the bound)`));
}

/**
 * Lets a stopped shell call halt its script at the next statement, command or `[[ ]]` term,
 * output kept, even when the script computes without running any command of ours. The patched
 * engine (patches/README.md, H15) gives the event loop a turn every 20 ms of script work and
 * then calls the hooks in
 * `globalThis[Symbol.for("toolshell.afterYield")]`; and stops a shell call one of whose commands
 * held the event loop past the engine's bound (`globalThis[Symbol.for("toolshell.onHeld")]`). Idempotent.
 */
export function installHaltAtYield(): void {
  const g = globalThis as unknown as Record<symbol, Set<(ctx: HaltContext) => void> | undefined>;
  const hooks = (g[AFTER_YIELD] ??= new Set());
  hooks.add(haltIfStopped);
  hooks.add(haltIfHeapFull);
  (globalThis as unknown as Record<symbol, typeof stopHeldCall>)[Symbol.for("toolshell.onHeld")] = stopHeldCall;
}
