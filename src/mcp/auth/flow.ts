/**
 * Signing in to an MCP server (`toolshell auth <server>`), through the MCP SDK's client auth.
 *
 * See MCP spec 2025-11-25 "Authorization"; README → Sign-in.
 */
import type { FetchLike } from "@modelcontextprotocol/client";
import type { HttpServerConfig, ServerConfig } from "../../config/index.js";
import type { ServerLog } from "../log.js";
import { bearerChallenge } from "./challenge.js";
import { oauthSettings } from "./credentials.js";
import { signInStatus, type OAuthContext, type SignInStatus } from "./index.js";
import { StoredOAuthProvider } from "./provider.js";

/** Options of {@link signIn}. */
export interface SignInOptions {
  /** Receives the authorization URL to open (print it, open a browser). */
  onUrl: (url: string) => void | Promise<void>;
  /** Stops waiting for the person. */
  signal?: AbortSignal;
  /** The server's log: the SDK's console lines go there, never to the terminal (sdk-console.ts). */
  log?: ServerLog;
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
  const provider = new StoredOAuthProvider(config, { principal, settings, store: oauth.store, broker: oauth.broker, onSecret: oauth.onSecret, fresh: true, ...(options.log ? { log: options.log } : {}) });
  const { resourceMetadataUrl, scope } = await challenge(config, provider.fetch);
  const result = await provider.authorize({ resourceMetadataUrl, scope }).catch((err: unknown) => {
    // The SDK refuses metadata that fails its schema with the schema's issues as JSON.
    if (err instanceof Error && err.name === "ZodError") {
      const issues = (err as Error & { issues?: Array<{ path: unknown[]; message: string }> }).issues ?? [];
      throw new Error(`MCP server "${config.name}": its OAuth metadata was refused: ${issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ") || err.message}`, { cause: err });
    }
    throw err;
  });
  if (result === "REDIRECT") {
    const pending = oauth.broker.pendingFor(config.name, principal);
    if (!pending) throw new Error(`MCP server "${config.name}": no authorization URL was produced`);
    const waited = oauth.broker.wait(config.name, principal, options.signal);
    await options.onUrl(pending.url);
    const outcome = await waited;
    if (!outcome.ok) throw new Error(`sign-in to MCP server "${config.name}" did not finish: ${outcome.error}`);
  }
  // Signed in means the server takes the token, not only that an authorization server issued one.
  const token = (await oauth.store.get(config.name, principal))?.tokens?.access_token;
  const refused = token ? await challenge(config, fetch, token) : { status: 0 };
  if (refused.status) {
    const creds = await oauth.store.get(config.name, principal);
    if (creds) await oauth.store.put(config.name, principal, { ...creds, tokens: undefined, savedAt: undefined, subject: undefined });
    throw new Error(
      `MCP server "${config.name}" refused the token its authorization server issued (HTTP ${refused.status}${refused.error ? ` ${refused.error}` : ""}), so the sign-in is not kept. Check the server's URL and its oauth settings, then run \`toolshell auth ${config.name}\` again`,
    );
  }
  return signInStatus(config, principal, oauth);
}

/**
 * What the server says when asked without a token: the `resource_metadata` URL and `scope` of
 * its `WWW-Authenticate` challenge (MCP spec 2025-11-25 "Authorization" → Protected Resource
 * Metadata Discovery, Scope Selection Strategy). Empty when it does not challenge.
 */
async function challenge(config: HttpServerConfig, fetchFn: FetchLike, token?: string): Promise<{ status?: number; resourceMetadataUrl?: URL; scope?: string; error?: string }> {
  const init: RequestInit =
    config.type === "sse"
      ? { method: "GET", headers: { ...config.headers, accept: "text/event-stream" } }
      : {
          method: "POST",
          headers: { ...config.headers, "content-type": "application/json", accept: "application/json, text/event-stream" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "toolshell", version: "0.1.0" } } }),
        };
  if (token) init.headers = { ...(init.headers as Record<string, string>), authorization: `Bearer ${token}` };
  let res: Response;
  try {
    res = await fetchFn(config.url, { ...init, signal: AbortSignal.timeout(config.connectTimeoutMs) });
  } catch (err) {
    throw new Error(`MCP server "${config.name}" could not be reached at ${new URL(config.url).origin}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  await res.body?.cancel().catch(() => {});
  if (res.status !== 401 && res.status !== 403) return {};
  const { resourceMetadataUrl, scope, error } = bearerChallenge(res.headers.get("www-authenticate"));
  return { status: res.status, ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}), ...(scope ? { scope } : {}), ...(error ? { error } : {}) };
}
