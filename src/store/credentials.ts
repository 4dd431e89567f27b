/**
 * OAuth sign-ins in the SQLite store: one row per MCP server and principal (tokens, registered
 * client, discovery state, the PKCE verifier of a sign-in in progress). The store file is
 * private to its owner (0600, see sqlite.ts); nothing here is logged.
 *
 * See README → Sign-in; MCP spec 2025-11-25 "Authorization" → Token Handling.
 */
import type { SqlDatabase, SqlStatement } from "./driver.js";
import type { CredentialStore, OAuthCredentials } from "../mcp/auth/index.js";
import { credentialRows, credentialsOf, type Row } from "./rows.js";

/** The {@link CredentialStore} of a SQLite store. Reads go to the file each time, so a sign-in made by another process (`toolshell auth`) is seen at once. */
export class SqliteCredentialStore implements CredentialStore {
  readonly #get: SqlStatement;
  readonly #put: SqlStatement;
  readonly #del: SqlStatement;
  readonly #all: SqlStatement;
  readonly #acquire: SqlStatement;
  readonly #held: SqlStatement;
  readonly #release: SqlStatement;

  constructor(db: SqlDatabase) {
    this.#get = db.prepare("SELECT data FROM oauth_credentials WHERE server = ? AND principal = ?");
    this.#put = db.prepare("INSERT OR REPLACE INTO oauth_credentials (server, principal, data, updated_at) VALUES (?, ?, ?, ?)");
    this.#del = db.prepare("DELETE FROM oauth_credentials WHERE server = ? AND principal = ?");
    this.#all = db.prepare("SELECT server, principal, data, updated_at FROM oauth_credentials ORDER BY server, principal");
    // The refresh right is a row of shared_state (kind oauth_refresh), taken when absent or run out.
    this.#acquire = db.prepare(
      `INSERT INTO shared_state (kind, key, data, updated_at) VALUES ('oauth_refresh', ?, ?, ?)
       ON CONFLICT (kind, key) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at
       WHERE json_extract(shared_state.data, '$.until') < ? OR json_extract(shared_state.data, '$.holder') = json_extract(excluded.data, '$.holder')`,
    );
    this.#held = db.prepare("SELECT data FROM shared_state WHERE kind = 'oauth_refresh' AND key = ?");
    this.#release = db.prepare("DELETE FROM shared_state WHERE kind = 'oauth_refresh' AND key = ? AND json_extract(data, '$.holder') = ?");
  }

  async get(server: string, principal: string): Promise<OAuthCredentials | undefined> {
    const row = this.#get.get(server, principal) as { data: string } | undefined;
    return row ? credentialsOf(row.data) : undefined;
  }

  async put(server: string, principal: string, credentials: OAuthCredentials): Promise<void> {
    this.#put.run(server, principal, JSON.stringify(credentials), new Date().toISOString());
  }

  async delete(server: string, principal: string): Promise<boolean> {
    return Number((this.#del.run(server, principal) as { changes?: number | bigint }).changes ?? 0) > 0;
  }

  async list(): Promise<Array<{ server: string; principal: string; credentials: OAuthCredentials; updatedAt: string }>> {
    return credentialRows(this.#all.all() as Row[]);
  }

  async acquireRefresh(server: string, principal: string, holder: string, ttlMs: number): Promise<boolean> {
    const at = Date.now();
    // Read first: waiting processes poll, and a write each time would queue them on the file's lock.
    const row = this.#held.get(refreshKey(server, principal)) as { data: string } | undefined;
    const held = row ? (JSON.parse(row.data) as { holder: string; until: number }) : undefined;
    if (held && held.holder !== holder && held.until >= at) return false;
    const r = this.#acquire.run(refreshKey(server, principal), JSON.stringify({ holder, until: at + ttlMs }), new Date(at).toISOString(), at) as { changes?: number | bigint };
    return Number(r.changes ?? 0) > 0;
  }

  async releaseRefresh(server: string, principal: string, holder: string): Promise<void> {
    this.#release.run(refreshKey(server, principal), holder);
  }
}

/** The shared_state key of one sign-in's refresh right. */
export function refreshKey(server: string, principal: string): string {
  return JSON.stringify([server, principal]);
}
