/**
 * OAuth sign-ins in the PostgreSQL store: one row per MCP server and principal, the same rows as
 * the SQLite store (../credentials.ts), read from the database each time so a sign-in made by
 * another process is seen at once. Nothing here is logged.
 *
 * See README → Sign-in; MCP spec 2025-11-25 "Authorization" → Token Handling.
 */
import type { Pool } from "pg";
import type { CredentialStore, OAuthCredentials } from "../../mcp/auth/index.js";
import { refreshKey } from "../credentials.js";
import { credentialRows, credentialsOf, now } from "../rows.js";

/** The {@link CredentialStore} of a PostgreSQL store. */
export class PostgresCredentialStore implements CredentialStore {
  constructor(private readonly pool: Pool) {}

  async get(server: string, principal: string): Promise<OAuthCredentials | undefined> {
    const r = await this.pool.query("SELECT data FROM oauth_credentials WHERE server = $1 AND principal = $2", [server, principal]);
    return r.rows.length ? credentialsOf(r.rows[0].data) : undefined;
  }

  async put(server: string, principal: string, credentials: OAuthCredentials): Promise<void> {
    await this.pool.query(
      `INSERT INTO oauth_credentials (server, principal, data, updated_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (server, principal) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at`,
      [server, principal, JSON.stringify(credentials), now()],
    );
  }

  async delete(server: string, principal: string): Promise<boolean> {
    return ((await this.pool.query("DELETE FROM oauth_credentials WHERE server = $1 AND principal = $2", [server, principal])).rowCount ?? 0) > 0;
  }

  async list(): Promise<Array<{ server: string; principal: string; credentials: OAuthCredentials; updatedAt: string }>> {
    return credentialRows((await this.pool.query("SELECT server, principal, data, updated_at FROM oauth_credentials ORDER BY server, principal")).rows);
  }

  async acquireRefresh(server: string, principal: string, holder: string, ttlMs: number): Promise<boolean> {
    const at = Date.now();
    // The refresh right is a row of shared_state (kind oauth_refresh), taken when absent or run out.
    const r = await this.pool.query(
      `INSERT INTO shared_state (kind, key, data, updated_at) VALUES ('oauth_refresh', $1, $2, $3)
       ON CONFLICT (kind, key) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at
       WHERE (shared_state.data::jsonb->>'until')::bigint < $4 OR shared_state.data::jsonb->>'holder' = $5`,
      [refreshKey(server, principal), JSON.stringify({ holder, until: at + ttlMs }), new Date(at).toISOString(), at, holder],
    );
    return (r.rowCount ?? 0) > 0;
  }

  async releaseRefresh(server: string, principal: string, holder: string): Promise<void> {
    await this.pool.query("DELETE FROM shared_state WHERE kind = 'oauth_refresh' AND key = $1 AND data::jsonb->>'holder' = $2", [refreshKey(server, principal), holder]);
  }
}
