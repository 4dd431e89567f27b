/**
 * The embedded default store: one SQLite file through node:sqlite or better-sqlite3 12.x (driver.ts; WAL mode, schema
 * migrations in code). `:memory:` keeps everything in memory (tests, benchmarks).
 *
 * Durability: WAL with `synchronous=NORMAL` — a committed transaction survives the process being
 * killed (SIGKILL included); the last transactions before a power loss may be lost. The writes of
 * one step are one transaction: a nested call's record with its event; a step's end with its
 * result and the session's files. A crash never leaves half of either.
 *
 * One process writes a store file at a time; other processes may read it (`toolshell events`).
 *
 * Rule source: issue 5 → Store; DESIGN.md engineering rules (SQLite via better-sqlite3 12.x, or
 * node:sqlite where Node has it).
 */
import { randomUUID } from "node:crypto";
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from "node:fs";
import path from "node:path";
import { ApprovalBook, type ApprovalRequest, type ApprovalSnapshot, type Rating, type RatingCache } from "../policy/index.js";
import type { RecordedCall, SessionEvent, SessionFiles, SessionSnapshot, StepRecord, StepStatus } from "../runtime/index.js";
import { SqliteCredentialStore } from "./credentials.js";
import { openDatabase, type SqlDatabase, type SqlStatement } from "./driver.js";
import { readTree, writeTree, type FileEntry } from "./files.js";
import { migrate } from "./migrations.js";
import {
  DEFAULT_AGENT,
  type ScriptInput,
  type ScriptRecord,
  type ScriptVersion,
  type SessionRecord,
  type Store,
  type StoredEvent,
  type TriggerRecord,
  type TriggerRunRecord,
} from "./types.js";

type Row = Record<string, any>;

const now = (): string => new Date().toISOString();
const json = (v: unknown): string => JSON.stringify(v ?? null);
const parse = <T>(s: string | null | undefined, dflt: T): T => {
  if (s === null || s === undefined) return dflt;
  try {
    return JSON.parse(s) as T;
  } catch {
    return dflt;
  }
};

/** Options of {@link SqliteStore}. */
export interface SqliteStoreOptions {
  /** The database file (its folder is created), or `:memory:`. */
  file: string;
}

/**
 * Opens (creating when missing) a SQLite store at `file`, or in memory for `:memory:`.
 * @throws Error when the file cannot be opened or its schema is newer than this code.
 */
export function openSqliteStore(file: string): SqliteStore {
  return new SqliteStore({ file });
}

/** The SQLite implementation of {@link Store}. Synchronous underneath; the async methods resolve at once. */
export class SqliteStore implements Store {
  readonly location: string;
  /** The database, through whichever driver opened it (driver.ts). */
  readonly db: SqlDatabase;
  readonly ratings: RatingCache;
  /** OAuth sign-ins to MCP servers (tokens: the file is created readable by its owner only). */
  readonly credentials: SqliteCredentialStore;
  /** Completed calls waiting for their `tool.nested_call` event, by session + call id. */
  private readonly pending = new Map<string, { sessionId: string; toolCallId: string; call: RecordedCall }>();
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
      try {
        chmodSync(file, 0o600);
      } catch {}
    }
    this.location = file;
    this.db = openDatabase(file);
    if (file !== ":memory:") this.db.pragma("journal_mode = WAL");
    this.db.pragma("synchronous = NORMAL");
    this.db.pragma("foreign_keys = ON");
    this.db.pragma("busy_timeout = 5000");
    migrate(this.db);
    const p = (sql: string) => this.db.prepare(sql);
    this.st = {
      getSession: p("SELECT * FROM sessions WHERE id = ?"),
      insertSession: p("INSERT OR IGNORE INTO sessions (id, agent_id, metadata, shell_calls, created_at, updated_at) VALUES (?, ?, ?, 0, ?, ?)"),
      touchSession: p("UPDATE sessions SET updated_at = ?, shell_calls = MAX(shell_calls, ?) WHERE id = ?"),
      files: p("SELECT path, kind, mode, content, target, hash FROM session_files WHERE session_id = ? ORDER BY path"),
      fileHashes: p("SELECT path, hash FROM session_files WHERE session_id = ?"),
      putFile: p("INSERT OR REPLACE INTO session_files (session_id, path, kind, mode, content, target, hash) VALUES (?, ?, ?, ?, ?, ?, ?)"),
      delFile: p("DELETE FROM session_files WHERE session_id = ? AND path = ?"),
      insertEvent: p("INSERT INTO events (session_id, type, tool_call_id, at, data) VALUES (?, ?, ?, ?, ?)"),
      events: p("SELECT seq, data FROM events WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?"),
      getStep: p("SELECT * FROM steps WHERE session_id = ? AND step_id = ?"),
      upsertStep: p(`INSERT INTO steps (session_id, step_id, kind, tool_call_id, request_hash, request, status, attempt, started_at)
        VALUES (@sessionId, @stepId, @kind, @toolCallId, @requestHash, @request, 'running', @attempt, @startedAt)
        ON CONFLICT (session_id, step_id) DO UPDATE SET status = 'running', attempt = excluded.attempt, started_at = excluded.started_at, ended_at = NULL`),
      endStep: p("UPDATE steps SET status = ?, result = ?, request_id = ?, ended_at = ? WHERE session_id = ? AND step_id = ?"),
      steps: p("SELECT * FROM steps WHERE session_id = ? ORDER BY started_at, rowid"),
      putCall: p(`INSERT OR REPLACE INTO step_calls (session_id, tool_call_id, idx, call_id, command, input_key, output, read_only, done, at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      calls: p("SELECT * FROM step_calls WHERE session_id = ? AND tool_call_id = ? ORDER BY idx"),
      approvalState: p("SELECT data FROM approval_state WHERE session_id = ?"),
      approvalRequests: p("SELECT data FROM approval_requests WHERE session_id = ? ORDER BY created_at, rowid"),
      putApprovalState: p("INSERT OR REPLACE INTO approval_state (session_id, data, updated_at) VALUES (?, ?, ?)"),
      putApprovalRequest: p("INSERT OR REPLACE INTO approval_requests (id, session_id, status, tool, created_at, answered_at, data) VALUES (?, ?, ?, ?, ?, ?, ?)"),
      getRating: p("SELECT * FROM ratings WHERE key = ?"),
      putRating: p("INSERT OR REPLACE INTO ratings (key, probability, rated_at, by) VALUES (?, ?, ?, ?)"),
      scriptByKey: p("SELECT * FROM scripts WHERE agent_id = ? AND (id = ? OR name = ?)"),
      scripts: p("SELECT * FROM scripts WHERE agent_id = ? ORDER BY name"),
      insertScript: p("INSERT INTO scripts (id, agent_id, name, version, archived, created_at, updated_at) VALUES (?, ?, ?, 1, 0, ?, ?)"),
      bumpScript: p("UPDATE scripts SET version = ?, archived = 0, updated_at = ? WHERE id = ?"),
      archiveScript: p("UPDATE scripts SET archived = ?, updated_at = ? WHERE id = ?"),
      insertVersion: p("INSERT INTO script_versions (script_id, version, description, input_schema, body, created_at, created_by) VALUES (?, ?, ?, ?, ?, ?, ?)"),
      version: p("SELECT * FROM script_versions WHERE script_id = ? AND version = ?"),
      versions: p("SELECT * FROM script_versions WHERE script_id = ? ORDER BY version"),
      triggers: p("SELECT data FROM triggers ORDER BY agent_id, name"),
      triggersOf: p("SELECT data FROM triggers WHERE agent_id = ? ORDER BY name"),
      trigger: p("SELECT data FROM triggers WHERE id = ?"),
      triggerByName: p("SELECT data FROM triggers WHERE agent_id = ? AND name = ?"),
      putTrigger: p(`INSERT INTO triggers (id, agent_id, name, data, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
        ON CONFLICT (id) DO UPDATE SET agent_id = excluded.agent_id, name = excluded.name, data = excluded.data, updated_at = excluded.updated_at`),
      delTrigger: p("DELETE FROM triggers WHERE id = ?"),
      putRun: p("INSERT OR REPLACE INTO trigger_runs (id, trigger_id, started_at, data) VALUES (?, ?, ?, ?)"),
      run: p("SELECT data FROM trigger_runs WHERE id = ?"),
      runs: p("SELECT data FROM trigger_runs WHERE trigger_id = ? ORDER BY started_at DESC, rowid DESC LIMIT ?"),
    };
    this.credentials = new SqliteCredentialStore(this.db);
    const { getRating, putRating } = this.st;
    this.ratings = {
      get(key: string): Rating | undefined {
        const r = getRating.get(key) as Row | undefined;
        return r ? { key: r.key, probability: r.probability, rated_at: r.rated_at, by: r.by } : undefined;
      },
      set(r: Rating): void {
        try {
          putRating.run(r.key, r.probability, r.rated_at, r.by);
        } catch {}
      },
    };
  }

  // ── sessions and their files ────────────────────────────────────────────────

  private sessionRow(r: Row): SessionRecord {
    return { id: r.id, agent_id: r.agent_id, metadata: parse(r.metadata, {}), shell_calls: r.shell_calls, created_at: r.created_at, updated_at: r.updated_at };
  }

  getSession(id: string): SessionRecord | undefined {
    const r = this.st.getSession.get(id) as Row | undefined;
    return r ? this.sessionRow(r) : undefined;
  }

  listSessions(options: { agentId?: string; limit?: number } = {}): SessionRecord[] {
    const limit = options.limit ?? 1000;
    const rows = (options.agentId
      ? this.db.prepare("SELECT * FROM sessions WHERE agent_id = ? ORDER BY created_at DESC LIMIT ?").all(options.agentId, limit)
      : this.db.prepare("SELECT * FROM sessions ORDER BY created_at DESC LIMIT ?").all(limit)) as Row[];
    return rows.map((r) => this.sessionRow(r));
  }

  async openSession(session: { id: string; metadata: Record<string, unknown>; files: SessionFiles }): Promise<SessionSnapshot> {
    const row = this.st.getSession.get(session.id) as Row | undefined;
    if (!row) {
      const agent = typeof session.metadata.agent_id === "string" && session.metadata.agent_id ? session.metadata.agent_id : DEFAULT_AGENT;
      const t = now();
      this.st.insertSession.run(session.id, agent, json(session.metadata), t, t);
      this.fileHashes.set(session.id, new Map());
      return { metadata: session.metadata, shellCalls: 0, created: true };
    }
    const entries: FileEntry[] = (this.st.files.all(session.id) as Row[]).map((r) => ({
      path: r.path,
      kind: r.kind,
      mode: r.mode,
      // better-sqlite3 reads a BLOB as a Buffer, node:sqlite as a Uint8Array.
      ...(r.content ? { content: Buffer.from(r.content.buffer, r.content.byteOffset, r.content.byteLength) } : {}),
      ...(r.target !== null ? { target: r.target } : {}),
      hash: r.hash,
    }));
    await writeTree(session.files.fs, entries, session.files.exclude);
    this.fileHashes.set(session.id, new Map(entries.map((e) => [e.path, e.hash])));
    return { metadata: { agent_id: row.agent_id, ...parse<Record<string, unknown>>(row.metadata, {}) }, shellCalls: row.shell_calls, created: false };
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
    const x = e as Record<string, unknown>;
    const parent = (x.tool_call_id ?? x.parent_tool_call_id) as string | undefined;
    this.st.insertEvent.run(e.session_id, e.type, parent ?? null, e.at, json(e));
  }

  private insertCall(p: { sessionId: string; toolCallId: string; call: RecordedCall }): void {
    const c = p.call;
    this.st.putCall.run(p.sessionId, p.toolCallId, c.index, c.callId, c.command, c.inputKey, json(c.output), c.readOnly ? 1 : 0, c.done ? json(c.done) : null, now());
  }

  appendEvent(event: SessionEvent): void {
    try {
      const callId = event.type === "tool.nested_call" ? ((event as { call_id?: string }).call_id ?? "") : "";
      const key = `${event.session_id}\u0000${callId}`;
      const pend = callId ? this.pending.get(key) : undefined;
      if (pend) {
        this.pending.delete(key);
        this.db.transaction(() => {
          this.insertCall(pend);
          this.insertEvent(event);
        })();
      } else {
        this.insertEvent(event);
      }
    } catch {}
  }

  listEvents(sessionId: string, options: { after?: number; limit?: number } = {}): StoredEvent[] {
    const rows = this.st.events.all(sessionId, options.after ?? 0, Math.max(1, Math.min(options.limit ?? 1000, 100_000))) as Row[];
    return rows.map((r) => ({ ...parse<SessionEvent>(r.data, { type: "store.failed", message: "this stored event could not be read", session_id: sessionId, at: "" }), seq: r.seq }) as StoredEvent);
  }

  // ── steps ───────────────────────────────────────────────────────────────────

  private stepRow(r: Row): StepRecord {
    return {
      sessionId: r.session_id,
      stepId: r.step_id,
      kind: r.kind,
      toolCallId: r.tool_call_id,
      requestHash: r.request_hash,
      request: parse(r.request, null),
      status: r.status,
      attempt: r.attempt,
      ...(r.result !== null ? { result: parse(r.result, null) } : {}),
      ...(r.request_id ? { requestId: r.request_id } : {}),
      startedAt: r.started_at,
      ...(r.ended_at ? { endedAt: r.ended_at } : {}),
    };
  }

  async getStep(sessionId: string, stepId: string): Promise<StepRecord | undefined> {
    const r = this.st.getStep.get(sessionId, stepId) as Row | undefined;
    return r ? this.stepRow(r) : undefined;
  }

  listSteps(sessionId: string, options: { status?: StepStatus } = {}): StepRecord[] {
    const rows = (this.st.steps.all(sessionId) as Row[]).map((r) => this.stepRow(r));
    return options.status ? rows.filter((s) => s.status === options.status) : rows;
  }

  async beginStep(step: StepRecord, shellCalls: number): Promise<void> {
    this.db.transaction(() => {
      const t = now();
      this.st.insertSession.run(step.sessionId, DEFAULT_AGENT, "{}", t, t);
      const { sessionId, stepId, kind, toolCallId, requestHash, attempt, startedAt } = step;
      this.st.upsertStep.run({ sessionId, stepId, kind, toolCallId, requestHash, request: json(step.request), attempt, startedAt });
      this.st.touchSession.run(t, shellCalls, step.sessionId);
    })();
  }

  recordCall(sessionId: string, toolCallId: string, call: RecordedCall): void {
    this.pending.set(`${sessionId}\u0000${call.callId}`, { sessionId, toolCallId, call });
  }

  async recordedCalls(sessionId: string, toolCallId: string): Promise<RecordedCall[]> {
    return (this.st.calls.all(sessionId, toolCallId) as Row[]).map((r) => ({
      index: r.idx,
      callId: r.call_id,
      command: r.command,
      inputKey: r.input_key,
      output: parse(r.output, { kind: "text", text: "" }),
      readOnly: r.read_only === 1,
      ...(r.done ? { done: parse(r.done, undefined) } : {}),
    }));
  }

  async endStep(end: { sessionId: string; stepId: string; status: StepStatus; result: unknown; requestId?: string; files: SessionFiles }): Promise<void> {
    const entries = await readTree(end.files.fs, end.files.exclude);
    const saved = this.savedHashes(end.sessionId);
    const changed = entries.filter((e) => saved.get(e.path) !== e.hash);
    const seen = new Set(entries.map((e) => e.path));
    const removed = [...saved.keys()].filter((p) => !seen.has(p));
    this.db.transaction(() => {
      for (const [key, p] of this.pending) {
        if (p.sessionId !== end.sessionId) continue;
        this.insertCall(p);
        this.pending.delete(key);
      }
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

  approvalBook(sessionId: string): ApprovalBook {
    const state = this.st.approvalState.get(sessionId) as Row | undefined;
    const requests = (this.st.approvalRequests.all(sessionId) as Row[]).map((r) => parse<ApprovalRequest | null>(r.data, null)).filter((r): r is ApprovalRequest => r !== null);
    const base: Omit<ApprovalSnapshot, "requests"> = parse(state?.data, { grants: [], refusals: [], alwaysTools: [], deniedTools: [], approvedOnce: [] });
    const book = new ApprovalBook(sessionId, state || requests.length ? { ...base, requests } : undefined);
    book.onChange = (snap) => this.saveApprovals(sessionId, snap);
    return book;
  }

  private saveApprovals(sessionId: string, snap: ApprovalSnapshot): void {
    const { requests, ...rest } = snap;
    this.db.transaction(() => {
      for (const r of requests) this.st.putApprovalRequest.run(r.id, sessionId, r.status, r.tool, r.created_at, r.answered_at ?? null, json(r));
      this.st.putApprovalState.run(sessionId, json(rest), now());
    })();
  }

  pendingApprovals(options: { agentId?: string } = {}): ApprovalRequest[] {
    const rows = (options.agentId
      ? this.db
          .prepare("SELECT r.data FROM approval_requests r JOIN sessions s ON s.id = r.session_id WHERE r.status = 'pending' AND s.agent_id = ? ORDER BY r.created_at")
          .all(options.agentId)
      : this.db.prepare("SELECT data FROM approval_requests WHERE status = 'pending' ORDER BY created_at").all()) as Row[];
    return rows.map((r) => parse<ApprovalRequest | null>(r.data, null)).filter((r): r is ApprovalRequest => r !== null);
  }

  // ── saved scripts ───────────────────────────────────────────────────────────

  private scriptRecord(s: Row, v: Row): ScriptRecord {
    return {
      id: s.id,
      agent_id: s.agent_id,
      name: s.name,
      version: v.version,
      description: v.description,
      input_schema: parse(v.input_schema, {}),
      body: v.body,
      archived: s.archived === 1,
      created_at: s.created_at,
      updated_at: s.updated_at,
    };
  }

  listScripts(agentId: string, options: { includeArchived?: boolean } = {}): ScriptRecord[] {
    const out: ScriptRecord[] = [];
    for (const s of this.st.scripts.all(agentId) as Row[]) {
      if (s.archived === 1 && !options.includeArchived) continue;
      const v = this.st.version.get(s.id, s.version) as Row | undefined;
      if (v) out.push(this.scriptRecord(s, v));
    }
    return out;
  }

  getScript(agentId: string, idOrName: string, options: { version?: number } = {}): ScriptRecord | undefined {
    const s = this.st.scriptByKey.get(agentId, idOrName, idOrName) as Row | undefined;
    if (!s) return undefined;
    const v = this.st.version.get(s.id, options.version ?? s.version) as Row | undefined;
    return v ? this.scriptRecord(s, v) : undefined;
  }

  saveScript(agentId: string, input: ScriptInput): ScriptRecord {
    return this.db.transaction(() => {
      const t = now();
      let s = this.st.scriptByKey.get(agentId, input.name, input.name) as Row | undefined;
      let version = 1;
      if (!s) {
        const id = `scr_${randomUUID().replace(/-/g, "").slice(0, 20)}`;
        this.st.insertScript.run(id, agentId, input.name, t, t);
      } else {
        version = s.version + 1;
        this.st.bumpScript.run(version, t, s.id);
      }
      s = this.st.scriptByKey.get(agentId, input.name, input.name) as Row;
      this.st.insertVersion.run(s.id, version, input.description, json(input.input_schema), input.body, t, input.created_by ?? "api");
      return this.getScript(agentId, s.id)!;
    })();
  }

  scriptVersions(agentId: string, idOrName: string): ScriptVersion[] {
    const s = this.st.scriptByKey.get(agentId, idOrName, idOrName) as Row | undefined;
    if (!s) return [];
    return (this.st.versions.all(s.id) as Row[]).map((v) => ({
      script_id: s.id,
      version: v.version,
      description: v.description,
      input_schema: parse(v.input_schema, {}),
      body: v.body,
      created_at: v.created_at,
      created_by: v.created_by,
    }));
  }

  setScriptArchived(agentId: string, idOrName: string, archived: boolean): ScriptRecord | undefined {
    const s = this.st.scriptByKey.get(agentId, idOrName, idOrName) as Row | undefined;
    if (!s) return undefined;
    this.st.archiveScript.run(archived ? 1 : 0, now(), s.id);
    return this.getScript(agentId, s.id);
  }

  // ── triggers ────────────────────────────────────────────────────────────────

  listTriggers(options: { agentId?: string } = {}): TriggerRecord[] {
    const rows = (options.agentId ? this.st.triggersOf.all(options.agentId) : this.st.triggers.all()) as Row[];
    return rows.map((r) => parse<TriggerRecord>(r.data, null as unknown as TriggerRecord)).filter(Boolean);
  }

  getTrigger(id: string): TriggerRecord | undefined {
    const r = this.st.trigger.get(id) as Row | undefined;
    return r ? parse<TriggerRecord | undefined>(r.data, undefined) : undefined;
  }

  findTrigger(agentId: string, name: string): TriggerRecord | undefined {
    const r = this.st.triggerByName.get(agentId, name) as Row | undefined;
    return r ? parse<TriggerRecord | undefined>(r.data, undefined) : undefined;
  }

  putTrigger(t: TriggerRecord): void {
    this.st.putTrigger.run(t.id, t.agent_id, t.name, json(t), t.created_at, t.updated_at);
  }

  deleteTrigger(id: string): boolean {
    return Number((this.st.delTrigger.run(id) as { changes: number | bigint }).changes) > 0;
  }

  putTriggerRun(run: TriggerRunRecord): void {
    this.st.putRun.run(run.id, run.trigger_id, run.started_at, json(run));
  }

  getTriggerRun(id: string): TriggerRunRecord | undefined {
    const r = this.st.run.get(id) as Row | undefined;
    return r ? parse<TriggerRunRecord | undefined>(r.data, undefined) : undefined;
  }

  listTriggerRuns(triggerId: string, options: { limit?: number } = {}): TriggerRunRecord[] {
    return (this.st.runs.all(triggerId, Math.max(1, Math.min(options.limit ?? 100, 10_000))) as Row[])
      .map((r) => parse<TriggerRunRecord | null>(r.data, null))
      .filter((r): r is TriggerRunRecord => r !== null);
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
