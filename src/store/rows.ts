/**
 * Rows of the SQLite store as records (docs/sessions.md "The store"): JSON columns parsed, with a
 * default when a column is empty or cannot be read.
 */
import type { StepRecord } from "../runtime/index.js";
import type { ScriptRecord, SessionRecord } from "./types.js";

/** A row as the driver returns it. */
export type Row = Record<string, any>;

/** A JSON column's value, or `dflt` when it is empty or not JSON. */
export function parse<T>(s: string | null | undefined, dflt: T): T {
  if (s === null || s === undefined) return dflt;
  try {
    return JSON.parse(s) as T;
  } catch {
    return dflt;
  }
}

export function sessionRow(r: Row): SessionRecord {
  return { id: r.id, agent_id: r.agent_id, metadata: parse(r.metadata, {}), shell_calls: r.shell_calls, created_at: r.created_at, updated_at: r.updated_at };
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
    attempt: r.attempt,
    ...(r.result !== null ? { result: parse(r.result, null) } : {}),
    ...(r.request_id ? { requestId: r.request_id } : {}),
    startedAt: r.started_at,
    ...(r.ended_at ? { endedAt: r.ended_at } : {}),
  };
}

export function scriptRecord(s: Row, v: Row): ScriptRecord {
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
