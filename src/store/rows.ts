/**
 * Rows of a store as records, shared by the SQLite and the PostgreSQL store (docs/sessions.md "The
 * store"): both keep the same columns (JSON as text, times as ISO text, flags as 0/1), so one
 * mapping serves both. JSON columns are parsed with a default when empty or unreadable.
 */
import { randomUUID } from "node:crypto";
import { ApprovalBook, type ApprovalRequest, type ApprovalSnapshot } from "../policy/index.js";
import type { CredentialStore, OAuthCredentials } from "../mcp/auth/index.js";
import { DEFAULT_PRINCIPAL } from "../mcp/auth/credentials.js";
import type { RecordedCall, SessionEvent, StepRecord } from "../runtime/index.js";
import type { FileEntry } from "./files.js";
import { DEFAULT_AGENT, type ScriptRecord, type ScriptVersion, type SessionListOptions, type SessionRecord, type StoredEvent } from "./types.js";

/** A row as the driver returns it. */
export type Row = Record<string, any>;

/** The current time as the stores write it (ISO 8601, UTC). */
export const now = (): string => new Date().toISOString();

/** A value as a JSON column holds it (`null` for undefined). */
export const json = (v: unknown): string => JSON.stringify(v ?? null);

/** A JSON column's value, or `dflt` when it is empty or not JSON. */
export function parse<T>(s: string | null | undefined, dflt: T): T {
  if (s === null || s === undefined) return dflt;
  try {
    return JSON.parse(s) as T;
  } catch {
    return dflt;
  }
}

/** The agent a new session belongs to: `metadata.agent_id` when it is a non-empty string, else {@link DEFAULT_AGENT}. */
export function agentOf(metadata: Record<string, unknown>): string {
  return typeof metadata.agent_id === "string" && metadata.agent_id ? metadata.agent_id : DEFAULT_AGENT;
}

/** A new saved script's id: `scr_` and 20 hex digits. */
/** The input schema of a script saved without one: no fields. */
export const NO_FIELDS: Readonly<Record<string, unknown>> = Object.freeze({ type: "object", properties: {} });

export const newScriptId = (): string => `scr_${randomUUID().replace(/-/g, "").slice(0, 20)}`;

/** A limit as asked, or `dflt`, kept within 1..`max`. */
export const clampLimit = (asked: number | undefined, dflt: number, max: number): number => Math.max(1, Math.min(asked ?? dflt, max));

/** A `sessions` row as a {@link SessionRecord}. */
export function sessionRow(r: Row): SessionRecord {
  return { id: r.id, agent_id: r.agent_id, metadata: parse(r.metadata, {}), shell_calls: Number(r.shell_calls), created_at: r.created_at, updated_at: r.updated_at };
}

/** The metadata a stored session opens with: its agent first, then what was saved. */
export function sessionMetadata(r: Row): Record<string, unknown> {
  return { agent_id: r.agent_id, ...parse<Record<string, unknown>>(r.metadata, {}) };
}

/** How sessions are listed: last active first (`updated_at` moves with every appended event). */
export const SESSIONS_ORDER = "ORDER BY updated_at DESC, created_at DESC";

/**
 * The principal a session acts for, read from its metadata in SQL as `principalOf` reads it
 * (mcp/auth/credentials.ts): `principal` when a non-empty string; else, when `principal` is absent
 * or null, `agent_id` when a non-empty string; else `default`. So a list of one principal's
 * sessions is filtered and limited by the database, not by reading every session's metadata.
 */
function principalSql(dialect: "sqlite" | "postgres"): string {
  const type = (key: string) => (dialect === "sqlite" ? `json_type(metadata, '$.${key}')` : `json_typeof(metadata::json -> '${key}')`);
  const text = (key: string) => (dialect === "sqlite" ? `json_extract(metadata, '$.${key}')` : `(metadata::json ->> '${key}')`);
  const str = dialect === "sqlite" ? "'text'" : "'string'";
  const named = (key: string) => `${type(key)} = ${str} AND ${text(key)} <> ''`;
  return `(CASE WHEN ${named("principal")} THEN ${text("principal")} WHEN (${type("principal")} IS NULL OR ${type("principal")} = 'null') AND ${named("agent_id")} THEN ${text("agent_id")} ELSE '${DEFAULT_PRINCIPAL}' END)`;
}

/** A `steps` row as a StepRecord (src/runtime/durable.ts). */
/** A running step's row (`SELECT session_id, step_id, holder`) as `Store.runningSteps` answers it. */
export function runningStepRow(r: Row): { sessionId: string; stepId: string; holder?: string } {
  return { sessionId: String(r.session_id), stepId: String(r.step_id), ...(r.holder ? { holder: String(r.holder) } : {}) };
}

export function stepRow(r: Row): StepRecord {
  return {
    sessionId: r.session_id,
    stepId: r.step_id,
    kind: r.kind,
    toolCallId: r.tool_call_id,
    requestHash: r.request_hash,
    request: parse(r.request, null),
    status: r.status,
    attempt: Number(r.attempt),
    ...(r.result !== null ? { result: parse(r.result, null) } : {}),
    ...(r.request_id ? { requestId: r.request_id } : {}),
    startedAt: r.started_at,
    ...(r.first_started_at ? { firstStartedAt: r.first_started_at } : {}),
    ...(r.holder ? { holder: r.holder } : {}),
    ...(r.ended_at ? { endedAt: r.ended_at } : {}),
  };
}

/** A `scripts` row and one of its `script_versions` rows as a {@link ScriptRecord}. */
export function scriptRecord(s: Row, v: Row): ScriptRecord {
  return {
    id: s.id,
    agent_id: s.agent_id,
    name: s.name,
    version: Number(v.version),
    description: v.description,
    input_schema: parse(v.input_schema, {}),
    body: v.body,
    archived: Number(s.archived) === 1,
    created_at: s.created_at,
    updated_at: s.updated_at,
  };
}

/** A `script_versions` row of script `scriptId` as a {@link ScriptVersion}. */
export function versionRow(scriptId: string, v: Row): ScriptVersion {
  return { script_id: scriptId, version: Number(v.version), description: v.description, input_schema: parse(v.input_schema, {}), body: v.body, created_at: v.created_at, created_by: v.created_by };
}

/** The columns of an event row: session, type, the shell call it belongs to, time, the event as JSON. */
export function eventColumns(e: SessionEvent): [string, string, string | null, string, string] {
  const x = e as Record<string, unknown>;
  const parent = (x.tool_call_id ?? x.parent_tool_call_id) as string | undefined;
  return [e.session_id, e.type, parent ?? null, e.at, json(e)];
}

/** A stored event from its row (`seq`, `data`); an unreadable one becomes a `store.failed` event. */
export function eventRecord(sessionId: string, r: Row): StoredEvent {
  return { ...parse<SessionEvent>(r.data, { type: "store.failed", message: "this stored event could not be read", session_id: sessionId, at: "" }), seq: Number(r.seq) } as StoredEvent;
}

/** The columns of a step_calls row after session and shell call id: idx, call_id, command, input_key, output, read_only, done, at, task, started. */
export function callColumns(c: RecordedCall): [number, string, string, string, string, number, string | null, string, string | null, string | null] {
  return [c.index, c.callId, c.command, c.inputKey, json(c.output), c.readOnly ? 1 : 0, c.done ? json(c.done) : null, now(), c.task ?? null, c.started ? json(c.started) : null];
}

/**
 * The record to write for `call`: the mark of a call that started names the replica running it
 * (the store's `holder`), as a step begun here does (docs/deployment.md → Who holds a step).
 */
export function withReplica(call: RecordedCall, holder: string | undefined): RecordedCall {
  return call.started && holder && !call.started.replica ? { ...call, started: { ...call.started, replica: holder } } : call;
}

/** A `step_calls` row as a RecordedCall (src/runtime/durable.ts). */
export function callRow(r: Row): RecordedCall {
  return {
    index: Number(r.idx),
    callId: r.call_id,
    command: r.command,
    inputKey: r.input_key,
    output: parse(r.output, { kind: "text", text: "" }),
    readOnly: Number(r.read_only) === 1,
    ...(r.done ? { done: parse(r.done, undefined) } : {}),
    ...(typeof r.task === "string" ? { task: r.task } : {}),
    ...(typeof r.started === "string" ? { started: parse(r.started, { at: "" }) } : {}),
  };
}

/** A saved file from its row (a BLOB comes back as a Buffer or a Uint8Array, by driver). */
export function fileRow(r: Row): FileEntry {
  return {
    path: r.path,
    kind: r.kind,
    mode: Number(r.mode),
    ...(r.content ? { content: Buffer.from(r.content.buffer, r.content.byteOffset, r.content.byteLength) } : {}),
    ...(r.target !== null ? { target: r.target } : {}),
    hash: r.hash,
  };
}

/** Approval requests from their `data` column, unreadable ones left out. */
export function requestRows(rows: Row[]): ApprovalRequest[] {
  return rows.map((r) => parse<ApprovalRequest | null>(r.data, null)).filter((r): r is ApprovalRequest => r !== null);
}

/**
 * A session's approval book from its stored state (`approval_state.data`) and requests, with
 * `save` called on every change (the store writes the snapshot through).
 */
export function bookOf(sessionId: string, state: string | undefined, requests: ApprovalRequest[], save: (snap: ApprovalSnapshot) => void): ApprovalBook {
  const base: Omit<ApprovalSnapshot, "requests"> = parse(state, { grants: [], refusals: [], alwaysTools: [], deniedTools: [], approvedOnce: [] });
  const book = new ApprovalBook(sessionId, state !== undefined || requests.length ? { ...base, requests } : undefined);
  book.onChange = save;
  return book;
}

/** Stored OAuth credentials from their JSON, or undefined when unreadable (README "Sign-in"). */
export function credentialsOf(data: string): OAuthCredentials | undefined {
  try {
    const v = JSON.parse(data) as OAuthCredentials;
    return typeof v?.serverUrl === "string" ? v : undefined;
  } catch {
    return undefined;
  }
}

/** The rows of `oauth_credentials` as {@link CredentialStore.list} answers them (unreadable ones left out). */
export function credentialRows(rows: Row[]): Awaited<ReturnType<CredentialStore["list"]>> {
  const out = [];
  for (const r of rows) {
    const credentials = credentialsOf(r.data);
    if (credentials) out.push({ server: r.server as string, principal: r.principal as string, credentials, updatedAt: r.updated_at as string });
  }
  return out;
}

/** The `WHERE` of a list of sessions (empty for all) and its values, in the dialect's placeholders. */
export function sessionsWhere(dialect: "sqlite" | "postgres", options: SessionListOptions): { where: string; values: string[] } {
  const values: string[] = [];
  const conds: string[] = [];
  const bind = (v: string) => (values.push(v), dialect === "sqlite" ? "?" : `$${values.length}`);
  if (options.agentId) conds.push(`agent_id = ${bind(options.agentId)}`);
  if (options.principal !== undefined) conds.push(`${principalSql(dialect)} = ${bind(options.principal)}`);
  return { where: conds.length ? `WHERE ${conds.join(" AND ")}` : "", values };
}
