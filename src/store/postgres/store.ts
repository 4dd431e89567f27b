/**
 * The PostgreSQL store: everything the SQLite store keeps (sessions and their files, events,
 * steps and step calls, approvals, ratings, saved scripts, triggers and their runs, OAuth
 * sign-ins), in one database several processes share. It opens a pool for queries, a second
 * pool for the connections that hold session leases (so leases never starve queries), and one
 * connection that listens for other processes' approval changes.
 *
 * - Writes from synchronous calls (`appendEvent`, `recordCall`, approval books) are
 *   queued in order per session (queue.ts); reads of a session first wait for its queued writes,
 *   and `close()` waits for all of them.
 * - Migrations run at open under an advisory lock (migrations.ts); a newer schema is refused.
 * - `lease` / `refreshSession`: lease.ts and sessions.ts. `changedElsewhere`: notify.ts.
 * - Ratings (../ratings.ts): a key this process has not seen is read from the database, so one
 *   another process kept is found; the first rating kept for a key stays.
 *
 * See docs/sessions.md → The store; src/store/types.ts (`Store`).
 */
import type pg from "pg";
import type { ApprovalBook, ApprovalRequest, ApprovalSnapshot, Rating } from "../../policy/index.js";
import type { RecordedCall, SessionEvent, SessionFiles, SessionLease, SessionSnapshot, StepRecord, StepStatus } from "../../runtime/index.js";
import { ratingRow, StoredRatings } from "../ratings.js";
import { bookOf, json, now, requestRows, withReplica, type Row } from "../rows.js";
import type { ScriptInput, ScriptRecord, ScriptVersion, SessionListOptions, SessionRecord, SharedKind, SharedRecord, Store, StoredEvent, TriggerRecord, TriggerRunRecord } from "../types.js";
import { PostgresCredentialStore } from "./credentials.js";
import { Leases } from "./lease.js";
import { migratePostgres } from "./migrations.js";
import { CHANGES_CHANNEL, ChangeListener, type ChangeNote } from "./notify.js";
import { WriteQueue } from "./queue.js";
import * as records from "./records.js";
import { SessionData } from "./sessions.js";
import { postgresLocation } from "./url.js";

/** Options of {@link openPostgresStore}. */
export interface PostgresStoreOptions {
  /** Connections of the query pool (default 10). */
  poolSize?: number;
  /** Connections that may hold session leases at once (default 20). */
  leasePoolSize?: number;
  /** How long opening a connection may take before it fails, in ms (default 10,000). */
  connectTimeoutMs?: number;
  /** How long `lease()` waits for another process to let a session go, in ms (default 120,000). */
  leaseWaitMs?: number;
  /** How long the start waits for another process's migration, in ms (default 60,000). */
  migrationWaitMs?: number;
  /** Called when a queued write (an event, a call record, an approval change) failed for good. Default: a line on stderr. */
  onWriteError?: (err: Error) => void;
  /**
   * Called when the store's own connection to the server is lost and when it is back, each once
   * per loss, with a sentence saying so (while it is lost, queries wait for or fail on the
   * server). Default: the sentence on stderr.
   */
  onConnection?: (state: "lost" | "restored", message: string) => void;
}

const leasePoolSize = (o: PostgresStoreOptions): number => o.leasePoolSize ?? 20;

/**
 * Opens the PostgreSQL store at `url`: checks the URL, connects, migrates the schema and starts
 * listening for changes.
 * @throws Error naming the URL without its password when the URL is bad, the server cannot be
 *   reached or refuses the sign-in (within `connectTimeoutMs`), or the schema is newer than this code.
 */
export async function openPostgresStore(url: string, options: PostgresStoreOptions = {}): Promise<PostgresStore> {
  const location = postgresLocation(url);
  const connectionTimeoutMillis = options.connectTimeoutMs ?? 10_000;
  const base = { connectionString: url.trim(), connectionTimeoutMillis, keepAlive: true, application_name: "toolshell" };
  // Loaded here, so a host on SQLite never loads the PostgreSQL client.
  const { default: pg } = await import("pg");
  const pool = new pg.Pool({ ...base, max: options.poolSize ?? 10 });
  const leasePool = new pg.Pool({ ...base, max: leasePoolSize(options), idleTimeoutMillis: 5_000 });
  // An idle connection that breaks is dropped by the pool; without a listener it would crash the process.
  pool.on("error", () => {});
  leasePool.on("error", () => {});
  const listener = new ChangeListener(() => new pg.Client(base), location, options.onConnection ?? ((_state, message) => process.stderr.write(`toolshell: ${message}\n`)));
  try {
    await migratePostgres(pool, options.migrationWaitMs ?? 60_000);
    await listener.start();
    return new PostgresStore({ location, pool, leasePool, listener, options });
  } catch (err) {
    await listener.close();
    await Promise.all([pool.end().catch(() => {}), leasePool.end().catch(() => {})]);
    throw new Error(`could not open the PostgreSQL store at ${location}: ${(err as Error).message || String(err)}`, { cause: err });
  }
}

/** The PostgreSQL implementation of {@link Store} (made by {@link openPostgresStore}). */
export class PostgresStore implements Store {
  readonly location: string;
  readonly ratings: StoredRatings;
  readonly credentials: PostgresCredentialStore;
  holder?: string;
  /** The query pool (tests and tools may read the database through it). */
  readonly pool: pg.Pool;
  readonly #leasePool: pg.Pool;
  readonly #listener: ChangeListener;
  readonly #queue: WriteQueue;
  readonly #leases: Leases;
  readonly #data: SessionData;
  #closed = false;

  /** Use {@link openPostgresStore}. */
  constructor(o: { location: string; pool: pg.Pool; leasePool: pg.Pool; listener: ChangeListener; options: PostgresStoreOptions }) {
    this.location = o.location;
    this.pool = o.pool;
    this.#leasePool = o.leasePool;
    this.#listener = o.listener;
    const report = o.options.onWriteError ?? ((err: Error) => process.stderr.write(`toolshell: the PostgreSQL store at ${o.location} could not write: ${err.message}\n`));
    this.#queue = new WriteQueue(o.pool, (_lane, err) => report(err));
    this.#leases = new Leases(o.leasePool, o.options.leaseWaitMs ?? 120_000, leasePoolSize(o.options));
    this.#data = new SessionData(o.pool, this.#queue, this.#leases);
    this.credentials = new PostgresCredentialStore(o.pool);
    const read = async (key: string): Promise<Rating | undefined> => {
      this.#open();
      const r = (await this.pool.query('SELECT key, probability, rated_at, "by" FROM ratings WHERE key = $1', [key])).rows[0] as Row | undefined;
      return r ? ratingRow(r) : undefined;
    };
    this.ratings = new StoredRatings({
      read,
      insert: async (r) => {
        this.#open();
        const added = await this.pool.query(
          'INSERT INTO ratings (key, probability, rated_at, "by") VALUES ($1, $2, $3, $4) ON CONFLICT (key) DO NOTHING RETURNING key, probability, rated_at, "by"',
          [r.key, r.probability, r.rated_at, r.by],
        );
        return added.rows[0] ? ratingRow(added.rows[0] as Row) : ((await read(r.key)) ?? r);
      },
    });
  }

  #open(): void {
    if (this.#closed) throw new Error(`the PostgreSQL store at ${this.location} is closed`);
  }

  // ── sessions, files, events, steps (sessions.ts) ────────────────────────────

  async getSession(id: string): Promise<SessionRecord | undefined> {
    this.#open();
    return this.#data.getSession(id);
  }

  async listSessions(options: SessionListOptions = {}): Promise<SessionRecord[]> {
    this.#open();
    return this.#data.listSessions(options);
  }

  async openSession(session: { id: string; metadata: Record<string, unknown>; files: SessionFiles }): Promise<SessionSnapshot> {
    this.#open();
    return this.#data.openSession(session);
  }

  /** See SessionStore.refreshSession: the session's newer files and snapshot when another process wrote it since. */
  async refreshSession(session: { id: string; files: SessionFiles }): Promise<SessionSnapshot | undefined> {
    this.#open();
    return this.#data.refreshSession(session);
  }

  /**
   * See SessionStore.lease: holds `sessionId` for one shell call across processes. While every
   * lease connection is held, waits its turn for one (lease.ts).
   * @throws Error when another process holds it or no lease connection is free past `deadline`
   *   or `leaseWaitMs`, or no connection can be opened.
   */
  async lease(sessionId: string, deadline?: number): Promise<SessionLease> {
    this.#open();
    const lease = await this.#leases.take(sessionId, deadline);
    return {
      fence: lease.fence,
      ...(lease.lost ? { lost: lease.lost } : {}),
      // What was queued under the lease (events, an approval answer) is committed before the
      // next holder can read it: the lease goes only once the session's writes are done.
      release: async () => {
        await this.#queue.idle(sessionId);
        await lease.release();
      },
    };
  }

  appendEvent(event: SessionEvent): void {
    if (this.#closed) return;
    try {
      this.#data.appendEvent(event);
    } catch {}
  }

  async listEvents(sessionId: string, options: { after?: number; limit?: number } = {}): Promise<StoredEvent[]> {
    this.#open();
    return this.#data.listEvents(sessionId, options);
  }

  async getStep(sessionId: string, stepId: string): Promise<StepRecord | undefined> {
    this.#open();
    return this.#data.getStep(sessionId, stepId);
  }

  async listSteps(sessionId: string, options: { status?: StepStatus } = {}): Promise<StepRecord[]> {
    this.#open();
    return this.#data.listSteps(sessionId, options);
  }

  async runningSteps(): Promise<Array<{ sessionId: string; stepId: string; holder?: string }>> {
    this.#open();
    return this.#data.runningSteps();
  }

  async beginStep(step: StepRecord, shellCalls: number): Promise<void> {
    this.#open();
    return this.#data.beginStep(this.holder ? { ...step, holder: this.holder } : step, shellCalls);
  }

  async nextShellCall(sessionId: string): Promise<number> {
    this.#open();
    return this.#data.nextShellCall(sessionId);
  }

  recordCall(sessionId: string, toolCallId: string, call: RecordedCall): void | Promise<void> {
    if (this.#closed) return;
    try {
      return this.#data.recordCall(sessionId, toolCallId, withReplica(call, this.holder));
    } catch {}
  }

  async recordedCalls(sessionId: string, toolCallId: string): Promise<RecordedCall[]> {
    this.#open();
    return this.#data.recordedCalls(sessionId, toolCallId);
  }

  async endStep(end: { sessionId: string; stepId: string; status: StepStatus; result: unknown; requestId?: string; files: SessionFiles }): Promise<void> {
    this.#open();
    return this.#data.endStep(end);
  }

  // ── approvals ───────────────────────────────────────────────────────────────

  async approvalBook(sessionId: string): Promise<ApprovalBook> {
    this.#open();
    await this.#queue.idle(sessionId);
    const state = (await this.pool.query("SELECT data FROM approval_state WHERE session_id = $1", [sessionId])).rows[0] as Row | undefined;
    const requests = requestRows((await this.pool.query("SELECT data FROM approval_requests WHERE session_id = $1 ORDER BY created_at, ord", [sessionId])).rows);
    return bookOf(sessionId, state?.data as string | undefined, requests, (snap) => this.#saveApprovals(sessionId, snap));
  }

  #saveApprovals(sessionId: string, snap: ApprovalSnapshot): void {
    if (this.#closed) return;
    const { requests, ...rest } = snap;
    const note = this.#listener.note(sessionId);
    this.#queue.push(sessionId, async (c) => {
      for (const r of requests) {
        await c.query(
          `INSERT INTO approval_requests (id, session_id, status, tool, created_at, answered_at, data) VALUES ($1, $2, $3, $4, $5, $6, $7)
           ON CONFLICT (id) DO UPDATE SET session_id = excluded.session_id, status = excluded.status, tool = excluded.tool, created_at = excluded.created_at, answered_at = excluded.answered_at, data = excluded.data`,
          [r.id, sessionId, r.status, r.tool, r.created_at, r.answered_at ?? null, json(r)],
        );
      }
      await c.query(
        "INSERT INTO approval_state (session_id, data, updated_at) VALUES ($1, $2, $3) ON CONFLICT (session_id) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at",
        [sessionId, json(rest), now()],
      );
      // Delivered to the other processes' listeners when this transaction commits.
      await c.query("SELECT pg_notify($1, $2)", [CHANGES_CHANNEL, note]);
    });
  }

  /** See Store.changedElsewhere: true once after another store instance changed approvals (LISTEN/NOTIFY), or the listening connection was lost. */
  changedElsewhere(): boolean {
    return this.#listener.takeChanged();
  }

  /**
   * Resolves at the next approval change another store instance makes (with the session it
   * changed), or undefined when the store closes, the listening connection is lost, or `signal`
   * aborts. Never rejects.
   */
  nextChange(signal?: AbortSignal): Promise<ChangeNote | undefined> {
    return this.#listener.next(signal);
  }

  async pendingApprovals(options: { agentId?: string } = {}): Promise<ApprovalRequest[]> {
    this.#open();
    await this.#queue.idle();
    const r = options.agentId
      ? await this.pool.query("SELECT r.data FROM approval_requests r JOIN sessions s ON s.id = r.session_id WHERE r.status = 'pending' AND s.agent_id = $1 ORDER BY r.created_at, r.ord", [options.agentId])
      : await this.pool.query("SELECT data FROM approval_requests WHERE status = 'pending' ORDER BY created_at, ord");
    return requestRows(r.rows);
  }

  // ── saved scripts, triggers, runs (records.ts) ──────────────────────────────

  async listScripts(agentId: string, options: { includeArchived?: boolean } = {}): Promise<ScriptRecord[]> {
    this.#open();
    return records.listScripts(this.pool, agentId, options.includeArchived === true);
  }

  async getScript(agentId: string, idOrName: string, options: { version?: number } = {}): Promise<ScriptRecord | undefined> {
    this.#open();
    return records.getScript(this.pool, agentId, idOrName, options.version);
  }

  async saveScript(agentId: string, input: ScriptInput): Promise<ScriptRecord> {
    this.#open();
    return records.saveScript(this.pool, agentId, input);
  }

  async scriptVersions(agentId: string, idOrName: string): Promise<ScriptVersion[]> {
    this.#open();
    return records.scriptVersions(this.pool, agentId, idOrName);
  }

  async setScriptArchived(agentId: string, idOrName: string, archived: boolean): Promise<ScriptRecord | undefined> {
    this.#open();
    return records.setScriptArchived(this.pool, agentId, idOrName, archived);
  }

  async listTriggers(options: { agentId?: string } = {}): Promise<TriggerRecord[]> {
    this.#open();
    return records.listTriggers(this.pool, options.agentId);
  }

  async getTrigger(id: string): Promise<TriggerRecord | undefined> {
    this.#open();
    return records.getTrigger(this.pool, id);
  }

  async findTrigger(agentId: string, name: string): Promise<TriggerRecord | undefined> {
    this.#open();
    return records.findTrigger(this.pool, agentId, name);
  }

  async putTrigger(trigger: TriggerRecord): Promise<void> {
    this.#open();
    return records.putTrigger(this.pool, trigger);
  }

  async setTriggerTimes(id: string, times: Pick<TriggerRecord, "last_run_at" | "next_run_at">): Promise<void> {
    this.#open();
    return records.setTriggerTimes(this.pool, id, times);
  }

  async deleteTrigger(id: string): Promise<boolean> {
    this.#open();
    return records.deleteTrigger(this.pool, id);
  }

  async putTriggerRun(run: TriggerRunRecord): Promise<void> {
    this.#open();
    return records.putTriggerRun(this.pool, run);
  }

  async getTriggerRun(id: string): Promise<TriggerRunRecord | undefined> {
    this.#open();
    return records.getTriggerRun(this.pool, id);
  }

  async listTriggerRuns(triggerId: string, options: { limit?: number } = {}): Promise<TriggerRunRecord[]> {
    this.#open();
    return records.listTriggerRuns(this.pool, triggerId, options.limit);
  }

  async listShared(kind: SharedKind): Promise<SharedRecord[]> {
    this.#open();
    return records.listShared(this.pool, kind);
  }

  async putShared(kind: SharedKind, key: string, data: Record<string, unknown> | null, options: { quiet?: boolean } = {}): Promise<void> {
    this.#open();
    return records.putShared(this.pool, kind, key, data, !!options.quiet);
  }

  async noteChange(): Promise<void> {
    this.#open();
    return records.noteChange(this.pool);
  }

  async changeCount(): Promise<number> {
    this.#open();
    return records.changeCount(this.pool);
  }

  /**
   * Resolves when every write queued so far (events, call records, approval changes)
   * has been committed or has failed for good. Never rejects.
   */
  flush(): Promise<void> {
    return this.#queue.idle();
  }

  async ping(): Promise<void> {
    this.#open();
    await this.pool.query("SELECT 1");
  }

  /** Waits for queued writes, lets every lease go, stops listening and closes the pools. Safe to call twice. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#queue.idle();
    await this.#leases.releaseAll();
    await this.#listener.close();
    await Promise.all([this.pool.end().catch(() => {}), this.#leasePool.end().catch(() => {})]);
  }
}
