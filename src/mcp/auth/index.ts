/**
 * OAuth sign-in to remote MCP servers, through the MCP SDK's client auth: what a host shares
 * (credential store, sign-in broker), signing in (`toolshell auth <server>`), the state of each
 * sign-in (`toolshell auth --list`) and signing out.
 *
 * Rule source: MCP spec 2025-11-25 "Authorization"; README "Sign-in".
 */
import { auth, extractWWWAuthenticateParams } from "@modelcontextprotocol/sdk/client/auth.js";
import type { HttpServerConfig, ServerConfig } from "../config.js";
import { expiresAt, oauthSettings, type CredentialStore } from "./credentials.js";
import { StoredOAuthProvider } from "./provider.js";
import type { SignInBroker } from "./sign-in.js";

export {
  DEFAULT_PRINCIPAL,
  MemoryCredentialStore,
  expiresAt,
  oauthSettings,
  principalOf,
  subjectOf,
  type CredentialStore,
  type OAuthCredentials,
  type OAuthSettings,
} from "./credentials.js";
export { REFRESH_MARGIN_MS, StoredOAuthProvider, type ProviderOptions } from "./provider.js";
export { SIGN_IN_TTL_MS, SignInBroker, type PendingSignIn, type SignInOutcome } from "./sign-in.js";

/** What the MCP sources of one host share for OAuth. */
export interface OAuthContext {
  store: CredentialStore;
  broker: SignInBroker;
  /** Told every token obtained, so the redactor removes it from outputs, events and reports. */
  onSecret?: (secret: string) => void;
}

/** One server's sign-in as `toolshell auth --list` and `toolshell auth <server>` show it. */
export interface SignInStatus {
  server: string;
  principal: string;
  state: "signed_in" | "expired" | "signed_out" | "pending";
  /** Who the authorization server says signed in, when its tokens say. */
  subject?: string;
  /** ISO time the access token expires, when the server said. */
  expires_at?: string;
  scopes?: string[];
  /** True when an expired access token can be refreshed without the person. */
  refreshable?: boolean;
  /** The authorization URL of a pending sign-in. */
  url?: string;
}

/**
 * The sign-in state of `server` for `principal` (credentials of another URL count as none).
 * Contains no token.
 */
export function signInStatus(config: HttpServerConfig, principal: string, oauth: Pick<OAuthContext, "store"> & { broker?: SignInBroker }): SignInStatus {
  const creds = oauth.store.get(config.name, principal);
  const pending = oauth.broker?.pendingFor(config.name, principal);
  const base = { server: config.name, principal };
  if (!creds?.tokens || creds.serverUrl !== config.url) {
    return pending ? { ...base, state: "pending", url: pending.url } : { ...base, state: "signed_out" };
  }
  const at = expiresAt(creds);
  const scope = creds.tokens.scope;
  return {
    ...base,
    state: at !== undefined && at <= Date.now() ? "expired" : "signed_in",
    ...(creds.subject ? { subject: creds.subject } : {}),
    ...(at !== undefined ? { expires_at: new Date(at).toISOString() } : {}),
    ...(scope ? { scopes: scope.split(" ").filter(Boolean) } : {}),
    refreshable: !!creds.tokens.refresh_token,
  };
}

/**
 * Every sign-in of the servers that use OAuth: each stored principal of each server, and
 * `principal` (default the CLI's) for servers with nothing stored.
 */
export function listSignIns(configs: readonly ServerConfig[], principal: string, oauth: Pick<OAuthContext, "store"> & { broker?: SignInBroker }): SignInStatus[] {
  const stored = oauth.store.list();
  const out: SignInStatus[] = [];
  for (const config of configs) {
    if (config.type === "stdio" || !oauthSettings(config)) continue;
    const principals = new Set(stored.filter((r) => r.server === config.name).map((r) => r.principal));
    principals.add(principal);
    for (const p of [...principals].sort()) out.push(signInStatus(config, p, oauth));
  }
  return out;
}

/** Options of {@link signIn}. */
export interface SignInOptions {
  /** Receives the authorization URL to open (print it, open a browser). */
  onUrl: (url: string) => void | Promise<void>;
  /** Stops waiting for the person. */
  signal?: AbortSignal;
}

/**
 * Signs `principal` in to an MCP server: asks the server for its challenge (scopes, protected
 * resource metadata), lets the SDK discover the authorization server, register a client (unless
 * `oauth.clientId` is configured) and build the authorization URL with PKCE, hands the URL to
 * `onUrl`, waits for the redirect on the loopback listener, and stores the tokens.
 * @returns the new state (`signed_in`).
 * @throws Error when the server does not use OAuth, discovery or registration fails, the person
 *   refuses, or the wait is stopped. Messages never contain a token.
 */
export async function signIn(config: ServerConfig, principal: string, oauth: OAuthContext, options: SignInOptions): Promise<SignInStatus> {
  if (config.type === "stdio") throw new Error(`MCP server "${config.name}" runs over stdio: it has no sign-in`);
  const settings = oauthSettings(config);
  if (!settings) throw new Error(`MCP server "${config.name}" has sign-in turned off ("oauth": false or its own Authorization header)`);
  await oauth.broker.listen(settings.callbackPort ?? 0);
  const provider = new StoredOAuthProvider(config, { principal, settings, store: oauth.store, broker: oauth.broker, onSecret: oauth.onSecret, fresh: true });
  const { resourceMetadataUrl, scope } = await challenge(config, provider.fetch);
  const result = await auth(provider, { serverUrl: config.url, resourceMetadataUrl, scope, fetchFn: provider.fetch });
  if (result === "REDIRECT") {
    const pending = oauth.broker.pendingFor(config.name, principal);
    if (!pending) throw new Error(`MCP server "${config.name}": no authorization URL was produced`);
    const waited = oauth.broker.wait(config.name, principal, options.signal);
    await options.onUrl(pending.url);
    const outcome = await waited;
    if (!outcome.ok) throw new Error(`sign-in to MCP server "${config.name}" did not finish: ${outcome.error}`);
  }
  return signInStatus(config, principal, oauth);
}

/** Forgets the sign-in of `principal` to `server`. @returns true when there was one. */
export function signOut(server: string, principal: string, oauth: Pick<OAuthContext, "store">): boolean {
  return oauth.store.delete(server, principal);
}

/**
 * What the server says when asked without a token: the `resource_metadata` URL and `scope` of
 * its `WWW-Authenticate` challenge (MCP spec 2025-11-25 "Authorization" → Protected Resource
 * Metadata Discovery, Scope Selection Strategy). Empty when it does not challenge.
 */
async function challenge(config: HttpServerConfig, fetchFn: typeof fetch | ((url: string | URL, init?: RequestInit) => Promise<Response>)): Promise<{ resourceMetadataUrl?: URL; scope?: string }> {
  const init: RequestInit =
    config.type === "sse"
      ? { method: "GET", headers: { ...config.headers, accept: "text/event-stream" } }
      : {
          method: "POST",
          headers: { ...config.headers, "content-type": "application/json", accept: "application/json, text/event-stream" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "toolshell", version: "0.1.0" } } }),
        };
  let res: Response;
  try {
    res = await fetchFn(config.url, { ...init, signal: AbortSignal.timeout(config.connectTimeoutMs) });
  } catch (err) {
    throw new Error(`MCP server "${config.name}" could not be reached at ${new URL(config.url).origin}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  await res.body?.cancel().catch(() => {});
  if (res.status !== 401 && res.status !== 403) return {};
  const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(res);
  return { ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}), ...(scope ? { scope } : {}) };
}
