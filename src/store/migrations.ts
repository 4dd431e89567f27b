/**
 * Schema migrations of the SQLite store, versioned in code. `PRAGMA user_version` holds the
 * number of migrations applied; each runs in its own transaction, in order, once. Never edit a
 * shipped migration: add the next one.
 *
 * See docs/sessions.md → The store.
 */
import type { SqlDatabase } from "./driver.js";

/** The migrations, oldest first. Index + 1 is the schema version it brings the database to. */
export const MIGRATIONS: readonly string[] = [
  // 1: everything docs/sessions.md keeps.
  `
  CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    agent_id TEXT NOT NULL,
    metadata TEXT NOT NULL,
    shell_calls INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE INDEX sessions_agent ON sessions(agent_id, created_at);

  CREATE TABLE session_files (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('file', 'dir', 'symlink')),
    mode INTEGER NOT NULL,
    content BLOB,
    target TEXT,
    hash TEXT NOT NULL,
    PRIMARY KEY (session_id, path)
  ) WITHOUT ROWID;

  CREATE TABLE events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL,
    type TEXT NOT NULL,
    tool_call_id TEXT,
    at TEXT NOT NULL,
    data TEXT NOT NULL
  );
  CREATE INDEX events_session ON events(session_id, seq);

  CREATE TABLE steps (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    step_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    tool_call_id TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    request TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('running', 'completed', 'waiting_approval')),
    attempt INTEGER NOT NULL,
    result TEXT,
    request_id TEXT,
    started_at TEXT NOT NULL,
    ended_at TEXT,
    PRIMARY KEY (session_id, step_id)
  );

  CREATE TABLE step_calls (
    session_id TEXT NOT NULL,
    tool_call_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    call_id TEXT NOT NULL,
    command TEXT NOT NULL,
    input_key TEXT NOT NULL,
    output TEXT NOT NULL,
    read_only INTEGER NOT NULL,
    done TEXT,
    at TEXT NOT NULL,
    PRIMARY KEY (session_id, tool_call_id, idx)
  ) WITHOUT ROWID;

  CREATE TABLE approval_requests (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    status TEXT NOT NULL,
    tool TEXT NOT NULL,
    created_at TEXT NOT NULL,
    answered_at TEXT,
    data TEXT NOT NULL
  );
  CREATE INDEX approval_requests_session ON approval_requests(session_id, status);

  CREATE TABLE approval_state (
    session_id TEXT PRIMARY KEY,
    data TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );

  CREATE TABLE ratings (
    key TEXT PRIMARY KEY,
    probability REAL NOT NULL,
    rated_at TEXT NOT NULL,
    by TEXT NOT NULL
  );

  CREATE TABLE scripts (
    id TEXT PRIMARY KEY,
    agent_id TEXT NOT NULL,
    name TEXT NOT NULL,
    version INTEGER NOT NULL,
    archived INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (agent_id, name)
  );

  CREATE TABLE script_versions (
    script_id TEXT NOT NULL REFERENCES scripts(id) ON DELETE CASCADE,
    version INTEGER NOT NULL,
    description TEXT NOT NULL,
    input_schema TEXT NOT NULL,
    body TEXT NOT NULL,
    created_at TEXT NOT NULL,
    created_by TEXT NOT NULL,
    PRIMARY KEY (script_id, version)
  );

  CREATE TABLE triggers (
    id TEXT PRIMARY KEY,
    agent_id TEXT NOT NULL,
    name TEXT NOT NULL,
    data TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (agent_id, name)
  );

  CREATE TABLE trigger_runs (
    id TEXT PRIMARY KEY,
    trigger_id TEXT NOT NULL,
    started_at TEXT NOT NULL,
    data TEXT NOT NULL
  );
  CREATE INDEX trigger_runs_trigger ON trigger_runs(trigger_id, started_at);
  `,
  // 2: OAuth sign-ins to MCP servers, per server and principal (README "Sign-in").
  `
  CREATE TABLE oauth_credentials (
    server TEXT NOT NULL,
    principal TEXT NOT NULL,
    data TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (server, principal)
  ) WITHOUT ROWID;
  `,
  // 3: what every replica follows (docs/deployment.md "What is shared"): servers set through the
  // HTTP API, the live replicas, and a counter that grows with every change replicas follow.
  `
  CREATE TABLE shared_state (
    kind TEXT NOT NULL,
    key TEXT NOT NULL,
    data TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (kind, key)
  ) WITHOUT ROWID;
  CREATE TABLE change_count (id INTEGER PRIMARY KEY CHECK (id = 1), n INTEGER NOT NULL);
  INSERT INTO change_count (id, n) VALUES (1, 0);
  `,
  // 4: the upstream task a nested call was following (MCP Tasks extension), to re-attach to it
  // when its durable step runs again (docs/sessions.md "Durable steps").
  `
  ALTER TABLE step_calls ADD COLUMN task TEXT;
  `,
  // 5: who holds a running step (a replica's id, docs/deployment.md "Who holds a step") and when
  // its first attempt started (started_at is the latest attempt's).
  `
  ALTER TABLE steps ADD COLUMN holder TEXT;
  ALTER TABLE steps ADD COLUMN first_started_at TEXT;
  `,
  // 6: the mark of a nested call that started and has not completed (JSON: at, replica, ended), so
  // the card of the same call asked again says it may have run (docs/sessions.md "Durable steps").
  `
  ALTER TABLE step_calls ADD COLUMN started TEXT;
  `,
  // 7: the paths and hashes of a session's files read without its file bodies: a column after a
  // large body sits past the body's overflow pages, so checking whether another process changed
  // the files (before every shell call) walked every body (docs/sessions.md "The store").
  `
  CREATE INDEX session_files_hash ON session_files(session_id, path, hash);
  `,
];

/**
 * Brings `db` to the latest schema. A database newer than this code is refused.
 * @returns the schema version.
 * @throws Error when the database's version is newer than {@link MIGRATIONS}, or a migration fails (rolled back).
 */
export function migrate(db: SqlDatabase): number {
  const current = Number(db.pragma("user_version"));
  if (current > MIGRATIONS.length) {
    throw new Error(`the store's schema is version ${current}, newer than this toolshell knows (${MIGRATIONS.length}); upgrade toolshell`);
  }
  for (let v = current; v < MIGRATIONS.length; v++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[v]);
      db.pragma(`user_version = ${v + 1}`);
    })();
  }
  return MIGRATIONS.length;
}
