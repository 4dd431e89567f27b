/**
 * Sessions, their files, events, steps and the nested calls of a step in the PostgreSQL store:
 * the runtime's SessionStore port (src/runtime/durable.ts) over a pool, with the same rules as
 * the SQLite store:
 * - `appendEvent` and `recordCall` only queue (queue.ts); a completed `tool.nested_call` is
 *   written with its call's record in one transaction, in the session's order. The events of
 *   one session are written under a transaction lock of that session, so `seq` grows in the
 *   order they commit, across processes too: a reader paging by `seq` never skips one.
 * - A step's end writes its result, the calls still waiting and the files that changed in one
 *   transaction; under a lease (lease.ts) a step's begin and end are refused when the fence moved.
 * - `sessions.rev` grows with every begin and end of a step; a process that finds it moved
 *   since it last read or wrote the session reads the saved files again (`refreshSession`,
 *   and before diffing files at a step's end).
 *
 * See docs/sessions.md → The store, Durable steps.
 */
import type { Pool, PoolClient } from "pg";
import type { RecordedCall, SessionEvent, SessionFiles, SessionSnapshot, StepRecord, StepStatus } from "../../runtime/index.js";
import { diffTree, readTree, restored, syncTree, writeTree, type FileEntry } from "../files.js";
import { PendingCalls, type PendingCall } from "../pending.js";
import { agentOf, callColumns, callRow, clampLimit, eventColumns, eventRecord, fileRow, json, now, SESSIONS_ORDER, sessionMetadata, sessionsWhere, runningStepRow, sessionRow, stepRow, type Row } from "../rows.js";
import { DEFAULT_AGENT, type SessionListOptions, type SessionRecord, type StoredEvent } from "../types.js";
import { FenceError, type Leases } from "./lease.js";
import { inTransaction, type WriteQueue } from "./queue.js";

/** First key of the transaction lock a session's event writes take: "ev" in ASCII. */
const EVENT_LOCK_CLASS = 0x6576;

const FILES = "SELECT path, kind, mode, content, target, hash FROM session_files WHERE session_id = $1 ORDER BY path";

async function insertCall(c: PoolClient, p: PendingCall): Promise<void> {
  await c.query(
    `INSERT INTO step_calls (session_id, tool_call_id, idx, call_id, command, input_key, output, read_only, done, at, task, started) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
     ON CONFLICT (session_id, tool_call_id, idx) DO UPDATE SET call_id = excluded.call_id, command = excluded.command, input_key = excluded.input_key,
       output = excluded.output, read_only = excluded.read_only, done = excluded.done, at = excluded.at, task = excluded.task, started = excluded.started`,
    [p.sessionId, p.toolCallId, ...callColumns(p.call)],
  );
}

/** The session data of one store instance (see the file comment). */
export class SessionData {
  readonly #pending = new PendingCalls();
  /** Hash of every saved file per session, as of `#revs`. */
  readonly #hashes = new Map<string, Map<string, string>>();
  /** The `sessions.rev` this instance last read or wrote, per session. */
  readonly #revs = new Map<string, number>();

  constructor(
    private readonly pool: Pool,
    private readonly queue: WriteQueue,
    private readonly leases: Leases,
  ) {}

  async getSession(id: string): Promise<SessionRecord | undefined> {
    const r = (await this.pool.query("SELECT * FROM sessions WHERE id = $1", [id])).rows[0] as Row | undefined;
    return r ? sessionRow(r) : undefined;
  }

  async listSessions(options: SessionListOptions): Promise<SessionRecord[]> {
    const { where, values } = sessionsWhere("postgres", options);
    const r = await this.pool.query(`SELECT * FROM sessions ${where} ${SESSIONS_ORDER} LIMIT $${values.length + 1}`, [...values, options.limit ?? 1000]);
    return r.rows.map((x: Row) => sessionRow(x));
  }

  async openSession(session: { id: string; metadata: Record<string, unknown>; files: SessionFiles }): Promise<SessionSnapshot> {
    let row = (await this.pool.query("SELECT * FROM sessions WHERE id = $1", [session.id])).rows[0] as Row | undefined;
    if (!row) {
      const t = now();
      const made = await this.pool.query(
        "INSERT INTO sessions (id, agent_id, metadata, shell_calls, created_at, updated_at) VALUES ($1, $2, $3, 0, $4, $4) ON CONFLICT (id) DO NOTHING RETURNING rev",
        [session.id, agentOf(session.metadata), json(session.metadata), t],
      );
      if (made.rows.length) {
        this.#hashes.set(session.id, new Map());
        this.#revs.set(session.id, Number(made.rows[0].rev));
        return { metadata: session.metadata, shellCalls: 0, created: true };
      }
      row = (await this.pool.query("SELECT * FROM sessions WHERE id = $1", [session.id])).rows[0] as Row;
    }
    const entries = (await this.pool.query(FILES, [session.id])).rows.map(fileRow);
    const failed = await writeTree(session.files.fs, entries, session.files.exclude);
    this.#remember(session.id, Number(row.rev), restored(entries, failed));
    return { metadata: sessionMetadata(row), shellCalls: Number(row.shell_calls), created: false };
  }

  #remember(sessionId: string, rev: number, entries: FileEntry[]): void {
    this.#hashes.set(sessionId, new Map(entries.map((e) => [e.path, e.hash])));
    this.#revs.set(sessionId, rev);
  }

  async refreshSession(session: { id: string; files: SessionFiles }): Promise<SessionSnapshot | undefined> {
    const row = (await this.pool.query("SELECT * FROM sessions WHERE id = $1", [session.id])).rows[0] as Row | undefined;
    if (!row || this.#revs.get(session.id) === Number(row.rev)) return undefined;
    const entries = (await this.pool.query(FILES, [session.id])).rows.map(fileRow);
    const failed = await syncTree(session.files.fs, entries, session.files.exclude);
    this.#remember(session.id, Number(row.rev), restored(entries, failed));
    return { metadata: sessionMetadata(row), shellCalls: Number(row.shell_calls), created: false };
  }

  /** Inside a write's transaction: locks the session row and says whether this instance's `rev` is still current. */
  async #current(c: PoolClient, sessionId: string): Promise<boolean> {
    const r = await c.query("SELECT rev FROM sessions WHERE id = $1 FOR UPDATE", [sessionId]);
    return r.rows.length > 0 && Number(r.rows[0].rev) === this.#revs.get(sessionId);
  }

  /** After a write that added one to `rev`: keeps it when this instance was current before. */
  #wrote(sessionId: string, wasCurrent: boolean, rev: number | undefined): void {
    if (wasCurrent && rev !== undefined) this.#revs.set(sessionId, rev);
  }

  appendEvent(event: SessionEvent): void {
    const pend = this.#pending.takeFor(event);
    const cols = eventColumns(event);
    const fence = this.leases.fenceOf(event.session_id);
    this.queue.push(event.session_id, async (c) => {
      await c.query("SELECT pg_advisory_xact_lock($1::int, hashtext($2))", [EVENT_LOCK_CLASS, event.session_id]);
      if (pend) {
        // A call made under a lease that was lost is not kept for replay; its event still is.
        let stale = false;
        try {
          await this.leases.check(c, event.session_id, fence);
        } catch (err) {
          if (!(err instanceof FenceError)) throw err;
          stale = true;
        }
        if (!stale) await insertCall(c, pend);
      }
      await c.query("INSERT INTO events (session_id, type, tool_call_id, at, data) VALUES ($1, $2, $3, $4, $5)", cols);
      await c.query("UPDATE sessions SET updated_at = $1 WHERE id = $2 AND updated_at < $1", [event.at, event.session_id]);
    });
  }

  async listEvents(sessionId: string, options: { after?: number; limit?: number }): Promise<StoredEvent[]> {
    await this.queue.idle(sessionId);
    const r = await this.pool.query("SELECT seq, data FROM events WHERE session_id = $1 AND seq > $2 ORDER BY seq LIMIT $3", [sessionId, options.after ?? 0, clampLimit(options.limit, 1000, 100_000)]);
    return r.rows.map((x: Row) => eventRecord(sessionId, x));
  }

  async getStep(sessionId: string, stepId: string): Promise<StepRecord | undefined> {
    const r = (await this.pool.query("SELECT * FROM steps WHERE session_id = $1 AND step_id = $2", [sessionId, stepId])).rows[0] as Row | undefined;
    return r ? stepRow(r) : undefined;
  }

  async listSteps(sessionId: string, options: { status?: StepStatus }): Promise<StepRecord[]> {
    const rows = (await this.pool.query("SELECT * FROM steps WHERE session_id = $1 ORDER BY COALESCE(first_started_at, started_at), ord", [sessionId])).rows.map((x: Row) => stepRow(x));
    return options.status ? rows.filter((s) => s.status === options.status) : rows;
  }

  async runningSteps(): Promise<Array<{ sessionId: string; stepId: string; holder?: string }>> {
    return ((await this.pool.query("SELECT session_id, step_id, holder FROM steps WHERE status = 'running'")).rows as Row[]).map(runningStepRow);
  }

  async beginStep(step: StepRecord, shellCalls: number): Promise<void> {
    const t = now();
    const fence = this.leases.fenceOf(step.sessionId);
    let wasCurrent = false;
    const rev = await inTransaction(this.pool, async (c) => {
      await this.leases.check(c, step.sessionId, fence);
      await c.query("INSERT INTO sessions (id, agent_id, metadata, shell_calls, created_at, updated_at) VALUES ($1, $2, '{}', 0, $3, $3) ON CONFLICT (id) DO NOTHING", [step.sessionId, DEFAULT_AGENT, t]);
      wasCurrent = await this.#current(c, step.sessionId);
      await c.query(
        `INSERT INTO steps (session_id, step_id, kind, tool_call_id, request_hash, request, status, attempt, started_at, first_started_at, holder) VALUES ($1, $2, $3, $4, $5, $6, 'running', $7, $8, $8, $9)
         ON CONFLICT (session_id, step_id) DO UPDATE SET status = 'running', attempt = excluded.attempt, started_at = excluded.started_at, holder = excluded.holder, ended_at = NULL`,
        [step.sessionId, step.stepId, step.kind, step.toolCallId, step.requestHash, json(step.request), step.attempt, step.startedAt, step.holder ?? null],
      );
      const r = await c.query("UPDATE sessions SET updated_at = $1, shell_calls = GREATEST(shell_calls, $2), rev = rev + 1 WHERE id = $3 RETURNING rev", [t, shellCalls, step.sessionId]);
      return r.rows.length ? Number(r.rows[0].rev) : undefined;
    });
    this.#wrote(step.sessionId, wasCurrent, rev);
  }

  async nextShellCall(sessionId: string): Promise<number> {
    const t = now();
    await this.pool.query("INSERT INTO sessions (id, agent_id, metadata, shell_calls, created_at, updated_at) VALUES ($1, $2, '{}', 0, $3, $3) ON CONFLICT (id) DO NOTHING", [sessionId, DEFAULT_AGENT, t]);
    // One statement: the row lock makes concurrent callers (other replicas) get one number each.
    const r = await this.pool.query("UPDATE sessions SET shell_calls = shell_calls + 1 WHERE id = $1 RETURNING shell_calls", [sessionId]);
    return Number(r.rows[0].shell_calls);
  }

  recordCall(sessionId: string, toolCallId: string, call: RecordedCall): void | Promise<void> {
    // A call following an upstream task, or marked as started, is written now, without an event;
    // the answer settles once it is (durable.ts).
    if (call.task === undefined && call.started === undefined) return this.#pending.add(sessionId, toolCallId, call);
    const fence = this.leases.fenceOf(sessionId);
    this.queue.push(sessionId, async (c) => {
      await this.leases.check(c, sessionId, fence); // not kept under a lease that was lost
      await insertCall(c, { sessionId, toolCallId, call });
    });
    return this.queue.idle(sessionId);
  }

  async recordedCalls(sessionId: string, toolCallId: string): Promise<RecordedCall[]> {
    await this.queue.idle(sessionId);
    const r = await this.pool.query("SELECT * FROM step_calls WHERE session_id = $1 AND tool_call_id = $2 ORDER BY idx", [sessionId, toolCallId]);
    return r.rows.map(callRow);
  }

  async endStep(end: { sessionId: string; stepId: string; status: StepStatus; result: unknown; requestId?: string; files: SessionFiles }): Promise<void> {
    const id = end.sessionId;
    const entries = await readTree(end.files.fs, end.files.exclude);
    await this.queue.idle(id);
    const calls = this.#pending.takeSession(id);
    const fence = this.leases.fenceOf(id);
    let rev: number | undefined;
    try {
      rev = await inTransaction(this.pool, async (c) => {
        await this.leases.check(c, id, fence);
        for (const p of calls) await insertCall(c, p);
        let saved = this.#hashes.get(id);
        if (!(await this.#current(c, id)) || !saved) {
          const r = await c.query("SELECT path, hash FROM session_files WHERE session_id = $1", [id]);
          saved = new Map(r.rows.map((x: Row) => [x.path as string, x.hash as string]));
        }
        const { changed, removed } = diffTree(entries, saved);
        if (changed.length) {
          await c.query(
            `INSERT INTO session_files (session_id, path, kind, mode, content, target, hash)
             SELECT $1, * FROM unnest($2::text[], $3::text[], $4::int[], $5::bytea[], $6::text[], $7::text[])
             ON CONFLICT (session_id, path) DO UPDATE SET kind = excluded.kind, mode = excluded.mode, content = excluded.content, target = excluded.target, hash = excluded.hash`,
            [id, changed.map((e) => e.path), changed.map((e) => e.kind), changed.map((e) => e.mode), changed.map((e) => e.content ?? null), changed.map((e) => e.target ?? null), changed.map((e) => e.hash)],
          );
        }
        if (removed.length) await c.query("DELETE FROM session_files WHERE session_id = $1 AND path = ANY($2::text[])", [id, removed]);
        await c.query("UPDATE steps SET status = $1, result = $2, request_id = $3, ended_at = $4 WHERE session_id = $5 AND step_id = $6", [end.status, json(end.result), end.requestId ?? null, now(), id, end.stepId]);
        const r = await c.query("UPDATE sessions SET updated_at = $1, rev = rev + 1 WHERE id = $2 RETURNING rev", [now(), id]);
        return r.rows.length ? Number(r.rows[0].rev) : undefined;
      });
    } catch (err) {
      // The calls' records are still worth keeping (a step that runs again replays them) unless
      // the session changed hands.
      if (!(err instanceof FenceError)) for (const p of calls) this.queue.push(id, (c) => insertCall(c, p));
      throw err;
    }
    // The saved files are now exactly `entries`, whoever wrote before.
    this.#hashes.set(id, new Map(entries.map((e) => [e.path, e.hash])));
    if (rev !== undefined) this.#revs.set(id, rev);
  }
}
