/**
 * One way to open a store from its location: a `postgres://` or `postgresql://` URL opens the
 * PostgreSQL store (postgres/), anything else the SQLite file (or `:memory:`).
 *
 * See docs/sessions.md → The store; README → Configuration.
 */
import { isPostgresUrl, openPostgresStore, type PostgresStoreOptions } from "./postgres/index.js";
import { openSqliteStore } from "./sqlite.js";
import type { Store } from "./types.js";

/**
 * Opens the store at `location`.
 * @param postgres options of the PostgreSQL store, when `location` is a URL.
 * @throws Error when the SQLite file cannot be opened, the URL is bad, the database cannot be
 *   reached (within the connection timeout), or the schema is newer than this code.
 */
export async function openStore(location: string, postgres: PostgresStoreOptions = {}): Promise<Store> {
  return isPostgresUrl(location) ? openPostgresStore(location, postgres) : openSqliteStore(location);
}

/** True when `location` names a database server rather than a file: nothing to create or check on disk. */
export function isStoreUrl(location: string): boolean {
  return isPostgresUrl(location);
}
