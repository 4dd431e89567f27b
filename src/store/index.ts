/** The store folder's public face: the Store interface, the SQLite default, the PostgreSQL store, timelines, spans. */
export { openStore, isStoreUrl } from "./open.js";
export { SqliteStore, openSqliteStore } from "./sqlite.js";
export type { SqliteStoreOptions } from "./sqlite.js";
export { openDatabase, sqliteDriver } from "./driver.js";
export type { SqlDatabase, SqlStatement, SqliteDriverName } from "./driver.js";
export { DEFAULT_AGENT } from "./types.js";
export type { Store, SessionListOptions, SessionRecord, StoredEvent, ScriptRecord, ScriptVersion, ScriptInput, TriggerRecord, TriggerRunRecord, RunApproval, SharedKind, SharedRecord } from "./types.js";
export { MIGRATIONS, migrate } from "./migrations.js";
export { openPostgresStore, PostgresStore, isPostgresUrl, postgresLocation, PG_MIGRATIONS, FenceError } from "./postgres/index.js";
export type { PostgresStoreOptions, ChangeNote } from "./postgres/index.js";
export { readTree, writeTree, syncTree } from "./files.js";
export type { FileEntry } from "./files.js";
export { renderTimeline, runKey, shellCallRuns, type ShellCallRun } from "./timeline.js";
export { otelEventSink, TRACER_NAME } from "./otel.js";
