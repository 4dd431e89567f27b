/**
 * What OAuth sign-in keeps per MCP server and per principal, where it is kept, and which servers
 * use it.
 *
 * A principal is who a call acts for: a session's `metadata.principal`, else its
 * `metadata.agent_id`, else {@link DEFAULT_PRINCIPAL} (the CLI user; `toolshell auth` signs in
 * this one unless told otherwise). Two principals never share tokens: a gateway or HTTP API that
 * serves several people holds one sign-in per person.
 *
 * See MCP spec 2025-11-25 "Authorization"; README → Sign-in.
 */
import { contextSlot } from "../../async/context.js";
import type { OAuthDiscoveryState, OAuthClientInformationMixed, OAuthTokens } from "@modelcontextprotocol/client";
import type { OAuthConfig, ServerConfig } from "../../config/index.js";

/** The principal of sessions that name none (and of `toolshell auth` without `--principal`). */
export const DEFAULT_PRINCIPAL = "default";

/** Everything one sign-in keeps. Only the store holds it; no config, log, event or message does. */
export interface OAuthCredentials {
  /** The MCP server URL these were obtained for; any other URL gets none of them (audience binding). */
  serverUrl: string;
  tokens?: OAuthTokens;
  /** When `tokens` were saved, epoch ms (with `expires_in`, gives the expiry). */
  savedAt?: number;
  /** The client as registered (dynamic registration) with the authorization server. */
  clientInformation?: OAuthClientInformationMixed;
  /**
   * The redirect URIs `clientInformation` was registered with. An authorization that redirects
   * elsewhere (another loopback port) registers again: an authorization server only redirects to
   * a client's registered URIs.
   */
  clientRedirectUris?: string[];
  /** Protected resource and authorization server metadata, as discovered. */
  discoveryState?: OAuthDiscoveryState;
  /** The PKCE code verifier of the sign-in in progress. */
  codeVerifier?: string;
  /** Who the authorization server says signed in (from the token's claims), when it says. */
  subject?: string;
}

/** Where credentials live: the host's store (SQLite or PostgreSQL) or memory. Never partial. */
export interface CredentialStore {
  get(server: string, principal: string): Promise<OAuthCredentials | undefined>;
  put(server: string, principal: string, credentials: OAuthCredentials): Promise<void>;
  /** @returns true when something was forgotten. */
  delete(server: string, principal: string): Promise<boolean>;
  /** Every stored sign-in, by server then principal. */
  list(): Promise<Array<{ server: string; principal: string; credentials: OAuthCredentials; updatedAt: string }>>;
  /**
   * Takes the right to refresh one sign-in's tokens for `ttlMs`, for every process sharing the
   * store (an authorization server that rotates refresh tokens accepts each one once: two
   * processes refreshing at the same moment would leave one signed out).
   * @returns true when `holder` now holds it; false while another holder's time runs.
   */
  acquireRefresh(server: string, principal: string, holder: string, ttlMs: number): Promise<boolean>;
  /** Gives the right back (only `holder`'s). */
  releaseRefresh(server: string, principal: string, holder: string): Promise<void>;
}

/** Credentials in memory only (a ToolShell without a store): they end with the process. */
export class MemoryCredentialStore implements CredentialStore {
  readonly #rows = new Map<string, { server: string; principal: string; credentials: OAuthCredentials; updatedAt: string }>();
  async get(server: string, principal: string): Promise<OAuthCredentials | undefined> {
    return this.#rows.get(`${server}\0${principal}`)?.credentials;
  }
  async put(server: string, principal: string, credentials: OAuthCredentials): Promise<void> {
    this.#rows.set(`${server}\0${principal}`, { server, principal, credentials: structuredClone(credentials), updatedAt: new Date().toISOString() });
  }
  async delete(server: string, principal: string): Promise<boolean> {
    return this.#rows.delete(`${server}\0${principal}`);
  }
  async list() {
    return [...this.#rows.values()].sort((a, b) => a.server.localeCompare(b.server) || a.principal.localeCompare(b.principal));
  }
  readonly #refreshing = new Map<string, { holder: string; until: number }>();
  async acquireRefresh(server: string, principal: string, holder: string, ttlMs: number): Promise<boolean> {
    const key = `${server}\0${principal}`;
    const held = this.#refreshing.get(key);
    if (held && held.holder !== holder && held.until > Date.now()) return false;
    this.#refreshing.set(key, { holder, until: Date.now() + ttlMs });
    return true;
  }
  async releaseRefresh(server: string, principal: string, holder: string): Promise<void> {
    const key = `${server}\0${principal}`;
    if (this.#refreshing.get(key)?.holder === holder) this.#refreshing.delete(key);
  }
}

/** A server's `oauth` settings: the config's `oauth` object (README "Configuration"; checked by the config schema). */
export type OAuthSettings = OAuthConfig;

/**
 * The OAuth settings of a server, or undefined when it does not sign in: stdio servers, an entry
 * with `"oauth": false`, and an entry that sets its own `Authorization` header.
 */
export function oauthSettings(config: ServerConfig): OAuthSettings | undefined {
  if (config.type === "stdio" || config.oauth === false) return undefined;
  if (Object.keys(config.headers).some((h) => h.toLowerCase() === "authorization")) return undefined;
  return config.oauth ?? {};
}

/** The principal of a session: `metadata.principal`, else `metadata.agent_id`, else {@link DEFAULT_PRINCIPAL}. */
export function principalOf(metadata: Record<string, unknown> | undefined): string {
  const p = metadata?.principal ?? metadata?.agent_id;
  return typeof p === "string" && p !== "" ? p : DEFAULT_PRINCIPAL;
}

const acting = contextSlot<{ principal: string; sessionId: string }>("toolshell.acting");

/**
 * Runs `fn` on behalf of a session's principal: an MCP server that must start or list its tools
 * meanwhile (an on-demand server named by a command) does so as that principal, so a sign-in it
 * needs is that person's. Calls carry their session anyway; this covers loading.
 */
export function actingFor<T>(session: { id: string; metadata: Record<string, unknown> }, fn: () => T): T {
  return acting.run({ principal: principalOf(session.metadata), sessionId: session.id }, fn);
}

/** The principal and session set by {@link actingFor} around the current work, if any. */
export function currentPrincipal(): { principal: string; sessionId: string } | undefined {
  return acting.get();
}

/** When the access token expires (epoch ms), when the server said. */
export function expiresAt(credentials: OAuthCredentials | undefined): number | undefined {
  const t = credentials?.tokens;
  if (!t || typeof t.expires_in !== "number" || credentials?.savedAt === undefined) return undefined;
  return credentials.savedAt + t.expires_in * 1000;
}

/**
 * Who signed in, read from a token's JWT claims (`email`, `preferred_username`, `name`, `sub`)
 * when the authorization server issues JWTs; undefined otherwise. Display only: nothing is
 * decided on it, so the signature is not checked.
 */
export function subjectOf(tokens: OAuthTokens): string | undefined {
  for (const token of [tokens.id_token, tokens.access_token]) {
    if (typeof token !== "string") continue;
    const parts = token.split(".");
    if (parts.length !== 3) continue;
    try {
      const claims = JSON.parse(Buffer.from(parts[1], "base64url").toString("utf8")) as Record<string, unknown>;
      for (const k of ["email", "preferred_username", "name", "sub"]) if (typeof claims[k] === "string" && claims[k]) return claims[k] as string;
    } catch {}
  }
  return undefined;
}
