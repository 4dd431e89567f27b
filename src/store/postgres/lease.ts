/**
 * Session leases of the PostgreSQL store: a session's shell calls run one at a time across every
 * process on the database. A lease is a session-level advisory lock held on a connection of its
 * own for as long as the lease lasts: when the process dies its connection closes and the
 * database lets the lock go. Taking a lease adds one to the session's fence
 * (`session_leases.fence`); the store's writes of steps and files made under a lease check that
 * fence inside their transaction and are refused when a newer one exists, so a process whose
 * connection was lost (and whose lease another process has since taken) cannot write over the
 * newer holder's work.
 *
 * A lease holds one connection of the lease pool for as long as it lasts (one shell call). When
 * every lease connection is held, further leases queue here in order (first come, first served)
 * instead of failing on the pool's connection timeout: more sessions may run a shell call at once
 * than there are lease connections, the rest wait their turn (docs/deployment.md → Sizing).
 * Waiting is bounded by the caller's deadline (the shell call's own wait) and by `waitMs`, for a
 * connection and the lock together; past it the lease rejects with an error saying which.
 *
 * See docs/sessions.md → The store; src/runtime/durable.ts (`SessionStore.lease`, `SessionLease`).
 */
import type { Pool, PoolClient } from "pg";
import type { SessionLease } from "../../runtime/index.js";

/** First key of every session lock (advisory locks with two int keys): "ts" in ASCII. */
export const LEASE_LOCK_CLASS = 0x7473;

/** The error a write made under a lease that was lost rejects with. */
export class FenceError extends Error {
  constructor(sessionId: string, mine: number, current: number) {
    super(`session ${sessionId} was taken over by another process (lease fence ${current}, this process holds ${mine}): the write is refused`);
    this.name = "FenceError";
  }
}

interface Held {
  sessionId: string;
  fence: number;
  client: PoolClient;
  released: boolean;
  /** Aborted when the lease's connection breaks while held: the lock is gone with it. */
  lost: AbortController;
  onBreak: (err?: Error) => void;
  /** Gives the lease's connection slot back. */
  free: () => void;
}

/** Unlocks and returns the lease's connection (dropped when the unlock fails); once only. */
async function letGo(h: Held): Promise<void> {
  if (h.released) return;
  h.released = true;
  h.client.off("error", h.onBreak);
  h.client.off("end", h.onBreak);
  let broken = false;
  await h.client.query("SELECT pg_advisory_unlock($1::int, hashtext($2))", [LEASE_LOCK_CLASS, h.sessionId]).catch(() => (broken = true));
  h.client.release(broken);
  h.free();
}

const ignore = (): void => {};

/** A lease waiting for a connection of the lease pool. */
interface Waiter {
  grant: () => void;
  refuse: (err: Error) => void;
  timer?: NodeJS.Timeout;
}

/** The leases this process holds. */
export class Leases {
  /** Leases holding (or opening) a connection of the lease pool. */
  #busy = 0;
  /** Leases waiting for one, in order of arrival. */
  readonly #queue: Waiter[] = [];
  /** The newest lease of each session held here. */
  readonly #held = new Map<string, Held>();
  /** Every lease held here and not yet let go. */
  readonly #all = new Set<Held>();

  constructor(
    private readonly pool: Pool,
    private readonly waitMs: number,
    /** Connections of the lease pool (its `max`). */
    private readonly size: number,
  ) {}

  /** Leases waiting for a connection of the lease pool now. */
  get waiting(): number {
    return this.#queue.length;
  }

  /**
   * Waits for a free connection slot of the lease pool, in order of arrival, until `deadline`.
   * @throws Error past the deadline.
   */
  async #slot(sessionId: string, deadline: number): Promise<void> {
    if (this.#busy < this.size && this.#queue.length === 0) {
      this.#busy++;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const w: Waiter = {
        grant: () => {
          clearTimeout(w.timer);
          this.#busy++;
          resolve();
        },
        refuse: (err) => {
          clearTimeout(w.timer);
          const i = this.#queue.indexOf(w);
          if (i >= 0) this.#queue.splice(i, 1);
          reject(err);
        },
      };
      const ms = Math.min(2 ** 31 - 1, Math.max(0, deadline - Date.now()));
      w.timer = setTimeout(() => w.refuse(new Error(`could not get a database connection to hold session ${sessionId}'s lease: all ${this.size} lease connections stayed busy for ${ms} ms (storePool.leases, docs/deployment.md → Sizing)`)), ms);
      this.#queue.push(w);
    });
  }

  /** Gives a connection slot back: to the first lease waiting, if any. */
  #free(): void {
    this.#busy--;
    this.#queue.shift()?.grant();
  }

  /** The fence of the lease this process holds on `sessionId`, if any. */
  fenceOf(sessionId: string): number | undefined {
    return this.#held.get(sessionId)?.fence;
  }

  /**
   * Takes the lease of `sessionId`, waiting (until `deadline`, epoch ms, and at most `waitMs`)
   * for a lease connection and while another connection holds the session.
   * @throws Error when no connection is free in time, the lock is not had within the wait, or
   *   the database fails.
   */
  async take(sessionId: string, deadline = Infinity): Promise<SessionLease> {
    const start = Date.now();
    const waitMs = Math.max(0, Math.min(this.waitMs, deadline - start));
    const until = start + waitMs;
    await this.#slot(sessionId, until);
    let client: PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      this.#free();
      throw new Error(`could not get a database connection to hold session ${sessionId}'s lease: ${(err as Error).message}`, { cause: err });
    }
    // A pooled connection serves many leases: one listener each, so a break never crashes the process.
    if (!client.listeners("error").includes(ignore)) client.on("error", ignore);
    let fence: number;
    try {
      const lockMs = Math.max(1, Math.floor(until - Date.now()));
      await client.query(`SET statement_timeout = ${lockMs}`);
      try {
        await client.query("SELECT pg_advisory_lock($1::int, hashtext($2))", [LEASE_LOCK_CLASS, sessionId]);
      } catch (err) {
        // Waited until the deadline: the session is busy (runtime/lease.ts answers it as such).
        if ((err as { code?: string }).code === "57014") throw Object.assign(new Error(`session ${sessionId} is held by another process: waited ${Math.round(waitMs)} ms for its lease`, { cause: err }), { code: "session_busy" });
        throw err;
      }
      await client.query("RESET statement_timeout");
      const r = await client.query(
        `INSERT INTO session_leases (session_id, fence, taken_at) VALUES ($1, 1, $2)
         ON CONFLICT (session_id) DO UPDATE SET fence = session_leases.fence + 1, taken_at = excluded.taken_at RETURNING fence`,
        [sessionId, new Date().toISOString()],
      );
      fence = Number(r.rows[0].fence);
    } catch (err) {
      client.release(true);
      this.#free();
      throw err;
    }
    const lost = new AbortController();
    const held: Held = {
      sessionId,
      fence,
      client,
      released: false,
      lost,
      free: () => this.#free(),
      onBreak: (err) => {
        if (!held.released) lost.abort(new Error(`the database connection holding session ${sessionId}'s lease broke${err?.message ? ` (${err.message})` : ""}`));
      },
    };
    client.on("error", held.onBreak);
    client.on("end", held.onBreak);
    this.#held.set(sessionId, held);
    this.#all.add(held);
    return {
      fence,
      lost: lost.signal,
      release: async () => {
        if (this.#held.get(sessionId) === held) this.#held.delete(sessionId);
        this.#all.delete(held);
        await letGo(held);
      },
    };
  }

  /**
   * Inside a write's transaction on `c`: refuses the write when this process holds a lease on
   * `sessionId` and the database has a newer fence. The fence row is locked (shared) until the
   * transaction ends, so no lease changes hands between this check and the commit.
   * @throws FenceError when the fence is stale.
   */
  async check(c: PoolClient, sessionId: string, fence = this.fenceOf(sessionId)): Promise<void> {
    if (fence === undefined) return;
    const r = await c.query("SELECT fence FROM session_leases WHERE session_id = $1 FOR SHARE", [sessionId]);
    const current = r.rows.length ? Number(r.rows[0].fence) : 0;
    if (current > fence) throw new FenceError(sessionId, fence, current);
  }

  /** Lets every lease go (the store closes). Never rejects. */
  async releaseAll(): Promise<void> {
    for (const w of [...this.#queue]) w.refuse(new Error("the store is closing: no session lease is taken"));
    const all = [...this.#all];
    this.#all.clear();
    this.#held.clear();
    for (const h of all) await letGo(h);
  }
}
