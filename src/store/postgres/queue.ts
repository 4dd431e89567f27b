/**
 * The write queue of the PostgreSQL store: `appendEvent`, `recordCall`, approval books and
 * ratings are written from synchronous calls on the hot path, which must neither block on the
 * network nor throw. Each write joins a lane (one per session, one for ratings); a lane's writes
 * run in the order they were queued, those queued while one runs go together in one
 * transaction, and lanes run side by side. A batch that fails is tried again one write at a
 * time, so one bad write does not take the others with it; a write that still fails is kept as
 * the lane's failure, which the next awaited write of that session reports.
 *
 * Rule source: src/runtime/durable.ts (`appendEvent` and `recordCall` are synchronous and must
 * not throw); docs/sessions.md "The store" (one transaction per step; close waits for writes).
 */
import type { Pool, PoolClient } from "pg";

/** One queued write: runs on a client inside a transaction. */
export type Write = (c: PoolClient) => Promise<void>;

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
  readonly #failures = new Map<string, Error>();

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
        await inTransaction(this.pool, async (c) => {
          for (const w of batch) await w(c);
        });
      } catch {
        for (const w of batch) {
          try {
            await inTransaction(this.pool, w);
          } catch (err) {
            const e = err instanceof Error ? err : new Error(String(err));
            this.#failures.set(name, e);
            try {
              this.onFailure(name, e);
            } catch {}
          }
        }
      }
    }
    lane.running = undefined;
    if (this.#lanes.get(name) === lane) this.#lanes.delete(name);
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

  /** The last write of `lane` that failed for good since the last call, taken out; else undefined. */
  takeFailure(lane: string): Error | undefined {
    const e = this.#failures.get(lane);
    this.#failures.delete(lane);
    return e;
  }
}
