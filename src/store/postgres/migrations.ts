/**
 * Schema migrations of the PostgreSQL store, versioned in code. The table `toolshell_schema`
 * holds the number of migrations applied; each runs in its own transaction, in order, once. All
 * of it runs under a PostgreSQL advisory lock, so replicas that start together migrate once and
 * the others wait, then find the schema current. Never edit a shipped migration: add the next.
 *
 * The tables are those of the SQLite store (../migrations.ts) with the same columns, so both
 * share one row mapping (../rows.ts); PostgreSQL adds `sessions.rev` (grows with every write of
 * a session's steps and files), `session_leases` (the fence of each session's lease) and `ord`
 * columns that keep insertion order where SQLite uses its rowid.
 *
 * See docs/sessions.md → The store.
 */
import type { Pool } from "pg";

/** The migrations, oldest first. Index + 1 is the schema version it brings the database to. */
export const PG_MIGRATIONS: readonly string[] = [
  // 1: everything docs/sessions.md keeps, the leases' fences, and OAuth sign-ins.
  `
  CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    agent_id TEXT NOT NULL,
    metadata TEXT NOT NULL,
    shell_calls INTEGER NOT NULL DEFAULT 0,
    rev BIGINT NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE INDEX sessions_agent ON sessions(agent_id, created_at);

  CREATE TABLE session_files (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('file', 'dir', 'symlink')),
    mode INTEGER NOT NULL,
    content BYTEA,
    target TEXT,
    hash TEXT NOT NULL,
    PRIMARY KEY (session_id, path)
  );

  CREATE TABLE session_leases (
    session_id TEXT PRIMARY KEY,
    fence BIGINT NOT NULL,
    taken_at TEXT NOT NULL
  );

  CREATE TABLE events (
    seq BIGSERIAL PRIMARY KEY,
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
    ord BIGSERIAL,
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
  );

  CREATE TABLE approval_requests (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    status TEXT NOT NULL,
    tool TEXT NOT NULL,
    created_at TEXT NOT NULL,
    answered_at TEXT,
    data TEXT NOT NULL,
    ord BIGSERIAL
  );
  CREATE INDEX approval_requests_session ON approval_requests(session_id, status);

  CREATE TABLE approval_state (
    session_id TEXT PRIMARY KEY,
    data TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );

  CREATE TABLE ratings (
    key TEXT PRIMARY KEY,
    probability DOUBLE PRECISION NOT NULL,
    rated_at TEXT NOT NULL,
    "by" TEXT NOT NULL
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
    data TEXT NOT NULL,
    ord BIGSERIAL
  );
  CREATE INDEX trigger_runs_trigger ON trigger_runs(trigger_id, started_at);

  CREATE TABLE oauth_credentials (
    server TEXT NOT NULL,
    principal TEXT NOT NULL,
    data TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (server, principal)
  );
  `,
  // 2: what every replica follows (docs/deployment.md "What is shared"): servers set through the
  // HTTP API, the live replicas, and a counter that grows with every change replicas follow.
  `
  CREATE TABLE shared_state (
    kind TEXT NOT NULL,
    key TEXT NOT NULL,
    data TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (kind, key)
  );
  CREATE TABLE change_count (id INTEGER PRIMARY KEY CHECK (id = 1), n BIGINT NOT NULL);
  INSERT INTO change_count (id, n) VALUES (1, 0);
  `,
  // 3: the upstream task a nested call was following (MCP Tasks extension), to re-attach to it
  // when its durable step runs again (docs/sessions.md "Durable steps").
  `
  ALTER TABLE step_calls ADD COLUMN task TEXT;
  `,
  // 4: who holds a running step (a replica's id, docs/deployment.md "Who holds a step") and when
  // its first attempt started (started_at is the latest attempt's).
  `
  ALTER TABLE steps ADD COLUMN holder TEXT;
  ALTER TABLE steps ADD COLUMN first_started_at TEXT;
  `,
  // 5: the mark of a nested call that started and has not completed (JSON: at, replica, ended), so
  // the card of the same call asked again says it may have run (docs/sessions.md "Durable steps").
  `
  ALTER TABLE step_calls ADD COLUMN started TEXT;
  `,
];

/** The advisory lock key (one bigint) migrations run under: "toolshel" in ASCII. */
export const MIGRATION_LOCK = "8390047142397896044";

/**
 * Brings the database to the latest schema under the migration lock, waiting for it at most
 * `waitMs` (another replica migrating).
 * @returns the schema version.
 * @throws Error when the database's version is newer than {@link PG_MIGRATIONS}, a migration fails
 *   (rolled back), or the lock is not had within `waitMs`.
 */
export async function migratePostgres(pool: Pool, waitMs: number): Promise<number> {
  const c = await pool.connect();
  let broken = false;
  try {
    await c.query(`SET statement_timeout = ${Math.max(1, Math.floor(waitMs))}`);
    try {
      await c.query("SELECT pg_advisory_lock($1::bigint)", [MIGRATION_LOCK]);
    } catch (err) {
      if ((err as { code?: string }).code === "57014") throw new Error(`waited ${waitMs} ms for another process's schema migration of the store to finish`, { cause: err });
      throw err;
    }
    await c.query("RESET statement_timeout");
    try {
      await c.query("CREATE TABLE IF NOT EXISTS toolshell_schema (version INTEGER NOT NULL)");
      const r = await c.query("SELECT version FROM toolshell_schema");
      if (r.rows.length === 0) await c.query("INSERT INTO toolshell_schema (version) VALUES (0)");
      const current = r.rows.length ? Number(r.rows[0].version) : 0;
      if (current > PG_MIGRATIONS.length) {
        throw new Error(`the store's schema is version ${current}, newer than this toolshell knows (${PG_MIGRATIONS.length}); upgrade toolshell`);
      }
      for (let v = current; v < PG_MIGRATIONS.length; v++) {
        await c.query("BEGIN");
        try {
          await c.query(PG_MIGRATIONS[v]);
          await c.query("UPDATE toolshell_schema SET version = $1", [v + 1]);
          await c.query("COMMIT");
        } catch (err) {
          await c.query("ROLLBACK").catch(() => {});
          throw new Error(`migration ${v + 1} of the PostgreSQL store failed (rolled back): ${(err as Error).message}`, { cause: err });
        }
      }
    } finally {
      await c.query("SELECT pg_advisory_unlock($1::bigint)", [MIGRATION_LOCK]).catch(() => (broken = true));
    }
    return PG_MIGRATIONS.length;
  } catch (err) {
    broken = true;
    throw err;
  } finally {
    c.release(broken);
  }
}
