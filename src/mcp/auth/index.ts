/**
 * OAuth sign-in to remote MCP servers, through the MCP SDK's client auth: what a host shares
 * (credential store, sign-in broker), the state of each sign-in (`toolshell auth --list`) and
 * signing out. Signing in is in flow.ts (`toolshell auth <server>`).
 *
 * See MCP spec 2025-11-25 "Authorization"; README → Sign-in.
 */
import type { HttpServerConfig, ServerConfig } from "../../config/index.js";
import { expiresAt, oauthSettings, type CredentialStore } from "./credentials.js";
import type { SignInBroker } from "./sign-in.js";

export {
  DEFAULT_PRINCIPAL,
  MemoryCredentialStore,
  actingFor,
  currentPrincipal,
  expiresAt,
  oauthSettings,
  principalOf,
  subjectOf,
  type CredentialStore,
  type OAuthCredentials,
  type OAuthSettings,
} from "./credentials.js";
// provider.ts and flow.ts load the SDK: import them where needed (the CLI's start stays short).
export type { ProviderOptions, StoredOAuthProvider } from "./provider.js";
export type { SignInOptions } from "./flow.js";
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
export async function signInStatus(config: HttpServerConfig, principal: string, oauth: Pick<OAuthContext, "store"> & { broker?: SignInBroker }): Promise<SignInStatus> {
  const creds = await oauth.store.get(config.name, principal);
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
export async function listSignIns(configs: readonly ServerConfig[], principal: string, oauth: Pick<OAuthContext, "store"> & { broker?: SignInBroker }): Promise<SignInStatus[]> {
  const stored = await oauth.store.list();
  const out: SignInStatus[] = [];
  for (const config of configs) {
    if (config.type === "stdio" || !oauthSettings(config)) continue;
    const principals = new Set(stored.filter((r) => r.server === config.name).map((r) => r.principal));
    principals.add(principal);
    for (const p of [...principals].sort()) out.push(await signInStatus(config, p, oauth));
  }
  return out;
}

/** Forgets the sign-in of `principal` to `server`. @returns true when there was one. */
export function signOut(server: string, principal: string, oauth: Pick<OAuthContext, "store">): Promise<boolean> {
  return oauth.store.delete(server, principal);
}

