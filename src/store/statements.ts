/**
 * The SQL statements of the SQLite store, prepared once per open database (tables in
 * migrations.ts; docs/sessions.md "The store").
 */
import type { SqlDatabase, SqlStatement } from "./driver.js";

/** Every statement the store uses, by name. */
export function prepareStatements(db: SqlDatabase): Record<string, SqlStatement> {
  const p = (sql: string) => db.prepare(sql);
  return {
    getSession: p("SELECT * FROM sessions WHERE id = ?"),
    insertSession: p("INSERT OR IGNORE INTO sessions (id, agent_id, metadata, shell_calls, created_at, updated_at) VALUES (?, ?, ?, 0, ?, ?)"),
    touchSession: p("UPDATE sessions SET updated_at = ?, shell_calls = MAX(shell_calls, ?) WHERE id = ?"),
    nextShellCall: p("UPDATE sessions SET shell_calls = shell_calls + 1 WHERE id = ? RETURNING shell_calls"),
    files: p("SELECT path, kind, mode, content, target, hash FROM session_files WHERE session_id = ? ORDER BY path"),
    fileHashes: p("SELECT path, hash FROM session_files WHERE session_id = ?"),
    putFile: p("INSERT OR REPLACE INTO session_files (session_id, path, kind, mode, content, target, hash) VALUES (?, ?, ?, ?, ?, ?, ?)"),
    delFile: p("DELETE FROM session_files WHERE session_id = ? AND path = ?"),
    insertEvent: p("INSERT INTO events (session_id, type, tool_call_id, at, data) VALUES (?, ?, ?, ?, ?)"),
    activeAt: p("UPDATE sessions SET updated_at = ? WHERE id = ? AND updated_at < ?"),
    events: p("SELECT seq, data FROM events WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?"),
    getStep: p("SELECT * FROM steps WHERE session_id = ? AND step_id = ?"),
    upsertStep: p(`INSERT INTO steps (session_id, step_id, kind, tool_call_id, request_hash, request, status, attempt, started_at, first_started_at, holder)
      VALUES (@sessionId, @stepId, @kind, @toolCallId, @requestHash, @request, 'running', @attempt, @startedAt, @startedAt, @holder)
      ON CONFLICT (session_id, step_id) DO UPDATE SET status = 'running', attempt = excluded.attempt, started_at = excluded.started_at, holder = excluded.holder, ended_at = NULL`),
    endStep: p("UPDATE steps SET status = ?, result = ?, request_id = ?, ended_at = ? WHERE session_id = ? AND step_id = ?"),
    steps: p("SELECT * FROM steps WHERE session_id = ? ORDER BY COALESCE(first_started_at, started_at), rowid"),
    runningSteps: p("SELECT session_id, step_id, holder FROM steps WHERE status = 'running'"),
    putCall: p(`INSERT OR REPLACE INTO step_calls (session_id, tool_call_id, idx, call_id, command, input_key, output, read_only, done, at, task, started)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    calls: p("SELECT * FROM step_calls WHERE session_id = ? AND tool_call_id = ? ORDER BY idx"),
    approvalState: p("SELECT data FROM approval_state WHERE session_id = ?"),
    approvalRequests: p("SELECT data FROM approval_requests WHERE session_id = ? ORDER BY created_at, rowid"),
    putApprovalState: p("INSERT OR REPLACE INTO approval_state (session_id, data, updated_at) VALUES (?, ?, ?)"),
    putApprovalRequest: p("INSERT OR REPLACE INTO approval_requests (id, session_id, status, tool, created_at, answered_at, data) VALUES (?, ?, ?, ?, ?, ?, ?)"),
    getRating: p("SELECT * FROM ratings WHERE key = ?"),
    addRating: p("INSERT INTO ratings (key, probability, rated_at, by) VALUES (?, ?, ?, ?) ON CONFLICT (key) DO NOTHING"),
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
    // json_patch merges the given fields into the stored JSON (RFC 7396), in one statement.
    setTriggerTimes: p("UPDATE triggers SET data = json_patch(data, ?) WHERE id = ?"),
    delTrigger: p("DELETE FROM triggers WHERE id = ?"),
    putRun: p("INSERT OR REPLACE INTO trigger_runs (id, trigger_id, started_at, data) VALUES (?, ?, ?, ?)"),
    run: p("SELECT data FROM trigger_runs WHERE id = ?"),
    runs: p("SELECT data FROM trigger_runs WHERE trigger_id = ? ORDER BY started_at DESC, rowid DESC LIMIT ?"),
  };
}
