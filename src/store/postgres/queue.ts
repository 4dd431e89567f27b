/**
 * The write queue of the PostgreSQL store: `appendEvent`, `recordCall` and approval books are
 * written from synchronous calls on the hot path, which must neither block on the network nor
 * throw. Each write joins a lane (one per session); a lane's writes
 * run in the order they were queued, those queued while one runs go together in one
 * transaction, and lanes run side by side. A batch that fails is tried again one write at a
 * time, so one bad write does not take the others with it; a write that still fails is kept as
 * reported (`onFailure`). A write that fails for a passing reason — no connection free in time,
 * a connection lost, a deadlock or serialization failure — is tried again a few times, with a
 * growing pause, before it counts as failed.
 *
 * See docs/sessions.md → The store; src/runtime/durable.ts (`appendEvent` and `recordCall` are
 * synchronous and must not throw).
 */
import type { Pool, PoolClient } from "pg";

/** One queued write: runs on a client inside a transaction. */
export type Write = (c: PoolClient) => Promise<void>;

/**
 * True for failures worth trying again: no SQLSTATE (the connection could not be had or broke),
 * or a SQLSTATE of class 08 (connection), 40 (transaction rollback: deadlock, serialization),
 * 53 (insufficient resources) or 57P (the server shutting down or restarting).
 */
export function transient(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== "string" || !/^[0-9A-Z]{5}$/.test(code)) return true;
  return /^(08|40|53|57P)/.test(code);
}

/** Pauses before the tries after the first, in ms. */
const RETRY_PAUSES = [100, 400, 1600];

/** Runs `write` in a transaction, trying again after a {@link transient} failure. */
async function withRetries(pool: Pool, write: Write): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await inTransaction(pool, write);
    } catch (err) {
      if (attempt >= RETRY_PAUSES.length || !transient(err)) throw err;
      await new Promise((resolve) => setTimeout(resolve, RETRY_PAUSES[attempt]));
    }
  }
}

interface Lane {
  writes: Write[];
  running?: Promise<void>;
}

/**
 * Runs `fn` in a transaction on a client of `pool`: committed when it resolves, rolled back when
 * it rejects (the client is dropped when even the rollback fails).
 * @throws whatever `fn` or the database throws.
 */
export async function inTransaction<T>(pool: Pool, fn: (c: PoolClient) => Promise<T>): Promise<T> {
  const c = await pool.connect();
  let broken = false;
  try {
    await c.query("BEGIN");
    try {
      const out = await fn(c);
      await c.query("COMMIT");
      return out;
    } catch (err) {
      await c.query("ROLLBACK").catch(() => (broken = true));
      throw err;
    }
  } finally {
    c.release(broken);
  }
}

/** Ordered writes per lane (see the file comment). */
export class WriteQueue {
  readonly #lanes = new Map<string, Lane>();

  /** @param onFailure called with a write that failed for good (never throws into the queue). */
  constructor(
    private readonly pool: Pool,
    private readonly onFailure: (lane: string, err: Error) => void = () => {},
  ) {}

  /** Queues `write` at the end of `lane`. Never throws. */
  push(lane: string, write: Write): void {
    let l = this.#lanes.get(lane);
    if (!l) this.#lanes.set(lane, (l = { writes: [] }));
    l.writes.push(write);
    if (!l.running) l.running = this.#drain(lane, l);
  }

  async #drain(name: string, lane: Lane): Promise<void> {
    while (lane.writes.length) {
      const batch = lane.writes.splice(0);
      try {
        await withRetries(this.pool, async (c) => {
          for (const w of batch) await w(c);
        });
      } catch (err) {
        if (transient(err)) {
          // The database stayed out of reach: the batch fails whole (trying each write alone
          // would only wait that long again for every one).
          this.#fail(name, err, batch.length);
          continue;
        }
        // One write the database refuses must not take the others with it.
        for (const w of batch) {
          try {
            await withRetries(this.pool, w);
          } catch (e) {
            this.#fail(name, e, 1);
          }
        }
      }
    }
    lane.running = undefined;
    if (this.#lanes.get(name) === lane) this.#lanes.delete(name);
  }

  #fail(lane: string, err: unknown, writes: number): void {
    const e = err instanceof Error ? err : new Error(String(err));
    try {
      this.onFailure(lane, writes > 1 ? new Error(`${writes} writes lost: ${e.message}`, { cause: e }) : e);
    } catch {}
  }

  /** Resolves when `lane` (or, without one, every lane) has nothing queued or running. Never rejects. */
  async idle(lane?: string): Promise<void> {
    for (;;) {
      const running = lane === undefined ? [...this.#lanes.values()].map((l) => l.running) : [this.#lanes.get(lane)?.running];
      const waits = running.filter((p): p is Promise<void> => p !== undefined);
      if (!waits.length) return;
      await Promise.all(waits);
    }
  }
}
