/**
 * Holding a session while it runs, for several replicas on one database (docs/deployment.md):
 * with a store that has `lease`, a shell call or a step of a session first waits for the
 * session's turn in this process, then takes the store's lease (other processes wait), brings in
 * what another process wrote since (`onTaken`: files, shell-call count, approval book), runs, and
 * lets go — after a failure or a time-out too. A section already holding the session (an answer
 * given inside a running shell call) runs at once instead of waiting for itself.
 *
 * Without `lease` (SQLite: one process owns the store) nothing is held and `fn` just runs.
 *
 * See docs/deployment.md → What is shared; docs/sessions.md → Durable steps.
 */
import { contextSlot } from "../async/context.js";
import type { SessionStore } from "./durable.js";
import { KeyedQueue } from "../async/keyed-queue.js";
import { ToolCallError } from "../tool/index.js";

/** The session could not be had in time: another shell call of it (here or on another replica) is still running. */
export class SessionBusyError extends Error {
  constructor(sessionId: string, waitedMs: number) {
    super(`session ${sessionId} is busy: another shell call of it (on this or another replica) is still running after ${waitedMs} ms; try again`);
    this.name = "SessionBusyError";
  }
}

const holding = contextSlot<ReadonlySet<object>>("toolshell.holding");
const turns = new KeyedQueue<object>();
const leaseLost = contextSlot<AbortSignal>("toolshell.lease-lost");

/**
 * Inside {@link holdSession}: calls `stop` with why once the lease held loses its connection
 * (another process may take the session now). @returns a function that stops watching.
 */
export function whenLeaseLost(stop: (err: ToolCallError) => void): () => void {
  const lost = leaseLost.get();
  if (!lost) return () => {};
  const onLost = () => {
    const why = lost.reason instanceof Error ? lost.reason.message : "the session's lease was lost";
    stop(new ToolCallError("unavailable", `the shell call stopped: ${why}, so another replica may take the session now; what ran before is in the report, and its changes to the session's files may not be kept`, true));
  };
  if (lost.aborted) onLost();
  else lost.addEventListener("abort", onLost, { once: true });
  return () => lost.removeEventListener("abort", onLost);
}

/** The `code` of a store's error when it waited for a session's lease until the deadline (see {@link SessionStore.lease}). */
export const SESSION_BUSY = "session_busy";

/** Rejects with {@link SessionBusyError} past `deadline`; a value that arrives late goes to `late`. */
function before<T>(p: Promise<T>, deadline: number, sessionId: string, waitMs: number, late?: (v: T) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let over = false;
    const timer = setTimeout(() => {
      over = true;
      reject(new SessionBusyError(sessionId, waitMs));
    }, Math.max(0, deadline - Date.now()));
    p.then(
      (v) => {
        clearTimeout(timer);
        if (over) late?.(v);
        else resolve(v);
      },
      (err: unknown) => {
        clearTimeout(timer);
        // A store that gave up waiting for the session itself (`code: "session_busy"`, the
        // PostgreSQL lease's own time-out at the same deadline) says the same as the timer.
        if (!over) reject((err as { code?: unknown } | null)?.code === SESSION_BUSY ? new SessionBusyError(sessionId, waitMs) : err);
      },
    );
  });
}

/** True while `owner` holds its session, or waits for it, in this process. */
export function heldHere(owner: object): boolean {
  return turns.busy(owner);
}

/**
 * Runs `fn` holding session `sessionId` (see the file comment). `owner` is the in-process
 * session object (one turn at a time per owner); `waitMs` bounds the wait for the turn and the
 * lease together.
 * @throws SessionBusyError when the session could not be had within `waitMs`; whatever the
 *         store's `lease` or `onTaken` throws (the lease is let go); whatever `fn` throws.
 */
export async function holdSession<T>(
  owner: object,
  store: SessionStore,
  sessionId: string,
  waitMs: number,
  onTaken: () => Promise<void>,
  fn: () => Promise<T>,
): Promise<T> {
  if (!store.lease || holding.get()?.has(owner)) return fn();
  const deadline = Date.now() + waitMs;
  const turn = turns.turn(owner);
  try {
    await before(turn.ready, deadline, sessionId, waitMs);
    const lease = await before(store.lease(sessionId, deadline), deadline, sessionId, waitMs, (late) => void late.release().catch(() => {}));
    try {
      await onTaken();
      const held = new Set(holding.get() ?? []);
      held.add(owner);
      return await holding.run(held, () => (lease.lost ? leaseLost.run(lease.lost, fn) : fn()));
    } finally {
      await lease.release().catch(() => {});
    }
  } finally {
    turn.end();
  }
}
