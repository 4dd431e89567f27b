/**
 * The embedded default store: one SQLite file through node:sqlite or better-sqlite3 12.x (driver.ts; WAL mode, schema
 * migrations in code). `:memory:` keeps everything in memory (tests, benchmarks).
 *
 * Durability: WAL with `synchronous=NORMAL` — a committed transaction survives the process being
 * killed (SIGKILL included); the last transactions before a power loss may be lost. The writes of
 * one step are one transaction: a nested call's record with its event; a step's end with its
 * result and the session's files. A crash never leaves half of either.
 *
 * Several processes may open one file (the warm host beside a `--no-daemon` run): each reads a
 * session's files again when another changed them (`refreshSession`). See docs/sessions.md → The store.
 */
import { closeSync, existsSync, mkdirSync, openSync } from "node:fs";
import path from "node:path";
import { narrowPrivateFile } from "../config/private-files.js";
import type { ApprovalBook, ApprovalRequest, ApprovalSnapshot, Rating } from "../policy/index.js";
import type { RecordedCall, SessionEvent, SessionFiles, SessionSnapshot, StepRecord, StepStatus } from "../runtime/index.js";
import { SqliteCredentialStore } from "./credentials.js";
import { openDatabase, type SqlDatabase, type SqlStatement } from "./driver.js";
import { diffTree, readTree, restored, syncTree, writeTree } from "./files.js";
import { migrate } from "./migrations.js";
import { PendingCalls, type PendingCall } from "./pending.js";
import { ratingRow, StoredRatings } from "./ratings.js";
import {
  agentOf, bookOf, callColumns, callRow, withReplica, clampLimit, eventColumns, eventRecord, fileRow, json, newScriptId, NO_FIELDS, now, parse,
  requestRows, runningStepRow, scriptRecord, SESSIONS_ORDER, sessionMetadata, sessionRow, sessionsWhere, stepRow, versionRow, type Row,
} from "./rows.js";
import { prepareStatements } from "./statements.js";
import {
  DEFAULT_AGENT, type ScriptInput, type ScriptRecord, type ScriptVersion, type SessionListOptions, type SessionRecord, type SharedKind, type SharedRecord, type Store,
  type StoredEvent, type TriggerRecord, type TriggerRunRecord,
} from "./types.js";

/** Options of {@link SqliteStore}. */
export interface SqliteStoreOptions {
  /** The database file (its folder is created), or `:memory:`. */
  file: string;
}

/**
 * Opens (creating when missing) a SQLite store at `file`, or in memory for `:memory:`.
 * @throws Error naming the file (SQLite's own says only "disk I/O error") when it cannot be opened or its schema is newer than this code.
 */
export function openSqliteStore(file: string): SqliteStore {
  try {
    return new SqliteStore({ file });
  } catch (err) {
    throw new Error(`the store ${file} could not be opened: ${(err as Error).message}`, { cause: err });
  }
}

/** The SQLite implementation of {@link Store}. Synchronous underneath; the async methods resolve at once. */
export class SqliteStore implements Store {
  readonly location: string;
  holder?: string;
  /** The database, through whichever driver opened it (driver.ts). */
  readonly db: SqlDatabase;
  readonly ratings: StoredRatings;
  /** OAuth sign-ins to MCP servers (tokens: the file is created readable by its owner only). */
  readonly credentials: SqliteCredentialStore;
  /** Completed calls waiting for their `tool.nested_call` event, by session + call id. */
  private readonly pending = new PendingCalls();
  /** Hash of every saved file per session, to write only what changed. */
  private readonly fileHashes = new Map<string, Map<string, string>>();
  private readonly st: Record<string, SqlStatement>;

  constructor(options: SqliteStoreOptions) {
    const file = options.file === ":memory:" ? ":memory:" : path.resolve(options.file);
    if (file !== ":memory:") {
      mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      // The store holds OAuth tokens: private to its owner. SQLite gives its -wal and -shm files
      // the database file's permissions.
      if (!existsSync(file)) closeSync(openSync(file, "a", 0o600));
      narrowPrivateFile(file);
    }
    this.location = file;
    this.db = openDatabase(file);
    if (file !== ":memory:") this.db.pragma("journal_mode = WAL");
    this.db.pragma("synchronous = NORMAL");
    this.db.pragma("foreign_keys = ON");
    this.db.pragma("busy_timeout = 5000");
    migrate(this.db);
    this.st = prepareStatements(this.db);
    this.credentials = new SqliteCredentialStore(this.db);
    const { getRating, addRating } = this.st;
    const read = (key: string): Rating | undefined => {
      const r = getRating.get(key) as Row | undefined;
      return r ? ratingRow(r) : undefined;
    };
    this.ratings = new StoredRatings({
      read: async (key) => read(key),
      insert: async (r) => {
        addRating.run(r.key, r.probability, r.rated_at, r.by);
        return read(r.key) ?? r;
      },
    });
  }

  // ── sessions and their files ────────────────────────────────────────────────

  async getSession(id: string): Promise<SessionRecord | undefined> {
    const r = this.st.getSession.get(id) as Row | undefined;
    return r ? sessionRow(r) : undefined;
  }

  async listSessions(options: SessionListOptions = {}): Promise<SessionRecord[]> {
    const { where, values } = sessionsWhere("sqlite", options);
    return (this.db.prepare(`SELECT * FROM sessions ${where} ${SESSIONS_ORDER} LIMIT ?`).all(...values, options.limit ?? 1000) as Row[]).map((r) => sessionRow(r));
  }

  async openSession(session: { id: string; metadata: Record<string, unknown>; files: SessionFiles }): Promise<SessionSnapshot> {
    const row = this.st.getSession.get(session.id) as Row | undefined;
    if (!row) {
      const t = now();
      this.st.insertSession.run(session.id, agentOf(session.metadata), json(session.metadata), t, t);
      this.fileHashes.set(session.id, new Map());
      return { metadata: session.metadata, shellCalls: 0, created: true };
    }
    return this.loadFiles(session, row, writeTree);
  }

  /** See SessionStore.refreshSession: two processes may share one file (the warm host beside `--no-daemon`). */
  async refreshSession(session: { id: string; files: SessionFiles }): Promise<SessionSnapshot | undefined> {
    const known = this.fileHashes.get(session.id);
    const row = this.st.getSession.get(session.id) as Row | undefined;
    if (!row || !known) return undefined;
    const saved = this.st.fileHashes.all(session.id) as Row[];
    if (saved.length === known.size && saved.every((r) => known.get(r.path as string) === r.hash)) return undefined;
    return this.loadFiles(session, row, syncTree);
  }

  /** The session's saved files put into `files` (written, or synced), remembered as this store's last read. */
  private async loadFiles(session: { id: string; files: SessionFiles }, row: Row, put: typeof syncTree | typeof writeTree): Promise<SessionSnapshot> {
    const entries = (this.st.files.all(session.id) as Row[]).map(fileRow);
    const failed = await put(session.files.fs, entries, session.files.exclude);
    this.fileHashes.set(session.id, new Map(restored(entries, failed).map((e) => [e.path, e.hash])));
    return { metadata: sessionMetadata(row), shellCalls: row.shell_calls, created: false };
  }

  private savedHashes(sessionId: string): Map<string, string> {
    let m = this.fileHashes.get(sessionId);
    if (!m) {
      m = new Map((this.st.fileHashes.all(sessionId) as Row[]).map((r) => [r.path as string, r.hash as string]));
      this.fileHashes.set(sessionId, m);
    }
    return m;
  }

  // ── events ──────────────────────────────────────────────────────────────────

  private insertEvent(e: SessionEvent): void {
    this.st.insertEvent.run(...eventColumns(e));
    this.st.activeAt.run(e.at, e.session_id, e.at);
  }

  private insertCall(p: PendingCall): void {
    this.st.putCall.run(p.sessionId, p.toolCallId, ...callColumns(p.call));
  }

  appendEvent(event: SessionEvent): void {
    try {
      const pend = this.pending.takeFor(event);
      if (pend) {
        this.db.transaction(() => {
          this.insertCall(pend);
          this.insertEvent(event);
        })();
      } else {
        this.insertEvent(event);
      }
    } catch {}
  }

  async listEvents(sessionId: string, options: { after?: number; limit?: number } = {}): Promise<StoredEvent[]> {
    const rows = this.st.events.all(sessionId, options.after ?? 0, clampLimit(options.limit, 1000, 100_000)) as Row[];
    return rows.map((r) => eventRecord(sessionId, r));
  }

  // ── steps ───────────────────────────────────────────────────────────────────

  async getStep(sessionId: string, stepId: string): Promise<StepRecord | undefined> {
    const r = this.st.getStep.get(sessionId, stepId) as Row | undefined;
    return r ? stepRow(r) : undefined;
  }

  async listSteps(sessionId: string, options: { status?: StepStatus } = {}): Promise<StepRecord[]> {
    const rows = (this.st.steps.all(sessionId) as Row[]).map((r) => stepRow(r));
    return options.status ? rows.filter((s) => s.status === options.status) : rows;
  }

  async runningSteps(): Promise<Array<{ sessionId: string; stepId: string; holder?: string }>> {
    return (this.st.runningSteps.all() as Row[]).map(runningStepRow);
  }

  async beginStep(step: StepRecord, shellCalls: number): Promise<void> {
    this.db.transaction(() => {
      const t = now();
      this.st.insertSession.run(step.sessionId, DEFAULT_AGENT, "{}", t, t);
      const { sessionId, stepId, kind, toolCallId, requestHash, attempt, startedAt } = step;
      this.st.upsertStep.run({ sessionId, stepId, kind, toolCallId, requestHash, request: json(step.request), attempt, startedAt, holder: this.holder ?? null });
      this.st.touchSession.run(t, shellCalls, step.sessionId);
    })();
  }

  async nextShellCall(sessionId: string): Promise<number> {
    return this.db.transaction(() => {
      const t = now();
      this.st.insertSession.run(sessionId, DEFAULT_AGENT, "{}", t, t);
      return Number((this.st.nextShellCall.get(sessionId) as Row).shell_calls);
    })();
  }

  recordCall(sessionId: string, toolCallId: string, call: RecordedCall): void {
    if (call.task === undefined && call.started === undefined) return this.pending.add(sessionId, toolCallId, call);
    try {
      // Following an upstream task, or marked as started: written now, without an event (durable.ts).
      this.insertCall({ sessionId, toolCallId, call: withReplica(call, this.holder) });
    } catch {}
  }

  async recordedCalls(sessionId: string, toolCallId: string): Promise<RecordedCall[]> {
    return (this.st.calls.all(sessionId, toolCallId) as Row[]).map(callRow);
  }

  async endStep(end: { sessionId: string; stepId: string; status: StepStatus; result: unknown; requestId?: string; files: SessionFiles }): Promise<void> {
    const entries = await readTree(end.files.fs, end.files.exclude);
    const saved = this.savedHashes(end.sessionId);
    const { changed, removed } = diffTree(entries, saved);
    this.db.transaction(() => {
      for (const p of this.pending.takeSession(end.sessionId)) this.insertCall(p);
      for (const e of changed) this.st.putFile.run(end.sessionId, e.path, e.kind, e.mode, e.content ?? null, e.target ?? null, e.hash);
      for (const p of removed) this.st.delFile.run(end.sessionId, p);
      this.st.endStep.run(end.status, json(end.result), end.requestId ?? null, now(), end.sessionId, end.stepId);
      this.st.touchSession.run(now(), 0, end.sessionId);
    })();
    this.fileHashes.set(end.sessionId, new Map(entries.map((e) => [e.path, e.hash])));
  }

  // ── approvals ───────────────────────────────────────────────────────────────

  /** See Store.changedElsewhere; SQLite's data_version moves when another connection commits. */
  changedElsewhere(): boolean {
    const version = this.db.pragma("data_version") as number;
    const changed = this.dataVersion !== undefined && version !== this.dataVersion;
    this.dataVersion = version;
    return changed;
  }
  private dataVersion: number | undefined;

  async approvalBook(sessionId: string): Promise<ApprovalBook> {
    const state = this.st.approvalState.get(sessionId) as Row | undefined;
    const requests = requestRows(this.st.approvalRequests.all(sessionId) as Row[]);
    return bookOf(sessionId, state?.data as string | undefined, requests, (snap) => this.saveApprovals(sessionId, snap));
  }

  private saveApprovals(sessionId: string, snap: ApprovalSnapshot): void {
    const { requests, ...rest } = snap;
    this.db.transaction(() => {
      for (const r of requests) this.st.putApprovalRequest.run(r.id, sessionId, r.status, r.tool, r.created_at, r.answered_at ?? null, json(r));
      this.st.putApprovalState.run(sessionId, json(rest), now());
    })();
  }

  async pendingApprovals(options: { agentId?: string } = {}): Promise<ApprovalRequest[]> {
    const rows = (options.agentId
      ? this.db
          .prepare("SELECT r.data FROM approval_requests r JOIN sessions s ON s.id = r.session_id WHERE r.status = 'pending' AND s.agent_id = ? ORDER BY r.created_at")
          .all(options.agentId)
      : this.db.prepare("SELECT data FROM approval_requests WHERE status = 'pending' ORDER BY created_at").all()) as Row[];
    return requestRows(rows);
  }

  // ── saved scripts ───────────────────────────────────────────────────────────

  async listScripts(agentId: string, options: { includeArchived?: boolean } = {}): Promise<ScriptRecord[]> {
    const out: ScriptRecord[] = [];
    for (const s of this.st.scripts.all(agentId) as Row[]) {
      if (s.archived === 1 && !options.includeArchived) continue;
      const v = this.st.version.get(s.id, s.version) as Row | undefined;
      if (v) out.push(scriptRecord(s, v));
    }
    return out;
  }

  async getScript(agentId: string, idOrName: string, options: { version?: number } = {}): Promise<ScriptRecord | undefined> {
    return this.scriptNow(agentId, idOrName, options.version);
  }

  private scriptNow(agentId: string, idOrName: string, version?: number): ScriptRecord | undefined {
    const s = this.st.scriptByKey.get(agentId, idOrName, idOrName) as Row | undefined;
    if (!s) return undefined;
    const v = this.st.version.get(s.id, version ?? s.version) as Row | undefined;
    return v ? scriptRecord(s, v) : undefined;
  }

  async saveScript(agentId: string, input: ScriptInput): Promise<ScriptRecord> {
    return this.db.transaction(() => {
      const t = now();
      let s = this.st.scriptByKey.get(agentId, input.name, input.name) as Row | undefined;
      const version = s ? s.version + 1 : 1;
      // None given: the previous version's schema (ScriptInput).
      const schema = input.input_schema ?? (s ? parse<Record<string, unknown>>((this.st.version.get(s.id, s.version) as Row).input_schema as string, NO_FIELDS) : NO_FIELDS);
      if (!s) this.st.insertScript.run(newScriptId(), agentId, input.name, t, t);
      else this.st.bumpScript.run(version, t, s.id);
      s = this.st.scriptByKey.get(agentId, input.name, input.name) as Row;
      this.st.insertVersion.run(s.id, version, input.description, json(schema), input.body, t, input.created_by ?? "api");
      return this.scriptNow(agentId, s.id)!;
    })();
  }

  async scriptVersions(agentId: string, idOrName: string): Promise<ScriptVersion[]> {
    const s = this.st.scriptByKey.get(agentId, idOrName, idOrName) as Row | undefined;
    if (!s) return [];
    return (this.st.versions.all(s.id) as Row[]).map((v) => versionRow(s.id, v));
  }

  async setScriptArchived(agentId: string, idOrName: string, archived: boolean): Promise<ScriptRecord | undefined> {
    const s = this.st.scriptByKey.get(agentId, idOrName, idOrName) as Row | undefined;
    if (!s) return undefined;
    this.st.archiveScript.run(archived ? 1 : 0, now(), s.id);
    return this.scriptNow(agentId, s.id);
  }

  // ── triggers ────────────────────────────────────────────────────────────────

  async listTriggers(options: { agentId?: string } = {}): Promise<TriggerRecord[]> {
    const rows = (options.agentId ? this.st.triggersOf.all(options.agentId) : this.st.triggers.all()) as Row[];
    return rows.map((r) => parse<TriggerRecord>(r.data, null as unknown as TriggerRecord)).filter(Boolean);
  }

  async getTrigger(id: string): Promise<TriggerRecord | undefined> {
    const r = this.st.trigger.get(id) as Row | undefined;
    return r ? parse<TriggerRecord | undefined>(r.data, undefined) : undefined;
  }

  async findTrigger(agentId: string, name: string): Promise<TriggerRecord | undefined> {
    const r = this.st.triggerByName.get(agentId, name) as Row | undefined;
    return r ? parse<TriggerRecord | undefined>(r.data, undefined) : undefined;
  }

  async putTrigger(t: TriggerRecord): Promise<void> {
    this.st.putTrigger.run(t.id, t.agent_id, t.name, json(t), t.created_at, t.updated_at);
  }

  async setTriggerTimes(id: string, times: Pick<TriggerRecord, "last_run_at" | "next_run_at">): Promise<void> {
    this.st.setTriggerTimes.run(json(times), id);
  }

  async deleteTrigger(id: string): Promise<boolean> {
    return Number((this.st.delTrigger.run(id) as { changes: number | bigint }).changes) > 0;
  }

  async putTriggerRun(run: TriggerRunRecord): Promise<void> {
    this.st.putRun.run(run.id, run.trigger_id, run.started_at, json(run));
  }

  async getTriggerRun(id: string): Promise<TriggerRunRecord | undefined> {
    const r = this.st.run.get(id) as Row | undefined;
    return r ? parse<TriggerRunRecord | undefined>(r.data, undefined) : undefined;
  }

  async listTriggerRuns(triggerId: string, options: { limit?: number } = {}): Promise<TriggerRunRecord[]> {
    return (this.st.runs.all(triggerId, clampLimit(options.limit, 100, 10_000)) as Row[])
      .map((r) => parse<TriggerRunRecord | null>(r.data, null))
      .filter((r): r is TriggerRunRecord => r !== null);
  }

  // ── shared state (docs/deployment.md "What is shared") ──────────────────────

  async listShared(kind: SharedKind): Promise<SharedRecord[]> {
    const rows = this.db.prepare("SELECT key, data, updated_at FROM shared_state WHERE kind = ? ORDER BY key").all(kind) as Row[];
    return rows.map((r) => ({ kind, key: String(r.key), data: parse<Record<string, unknown>>(r.data, {}), updated_at: String(r.updated_at) }));
  }

  async putShared(kind: SharedKind, key: string, data: Record<string, unknown> | null, options: { quiet?: boolean } = {}): Promise<void> {
    this.db.transaction(() => {
      if (data === null) this.db.prepare("DELETE FROM shared_state WHERE kind = ? AND key = ?").run(kind, key);
      else this.db.prepare("INSERT INTO shared_state (kind, key, data, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT (kind, key) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at").run(kind, key, json(data), now());
      if (!options.quiet) this.db.prepare("UPDATE change_count SET n = n + 1 WHERE id = 1").run();
    })();
  }

  async noteChange(): Promise<void> {
    this.db.prepare("UPDATE change_count SET n = n + 1 WHERE id = 1").run();
  }

  async changeCount(): Promise<number> {
    const r = this.db.prepare("SELECT n FROM change_count WHERE id = 1").get() as Row | undefined;
    return Number(r?.n ?? 0);
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
