/**
 * What one MCP server's source (source.ts) asks about sign-in: who lists its tools, and where a
 * failed call's sign-in stands (README "Sign-in"). Types only from the SDK side, so loading a
 * source stays cheap.
 */
import { currentPrincipal, DEFAULT_PRINCIPAL, type OAuthCredentials } from "./credentials.js";
import type { OAuthContext } from "./index.js";
import type { StoredOAuthProvider } from "./provider.js";
import type { SignInBroker } from "./sign-in.js";

/**
 * Who lists a server's tools: the principal the load is done for (see actingFor) when signed in,
 * else the default principal when signed in, else the first principal with a sign-in to this
 * server (the tool list is the server's, whoever asks), else the one the load is for (who is then
 * asked to sign in).
 */
export async function listingPrincipal(oauth: OAuthContext | undefined, server: string, url: string | undefined): Promise<string> {
  const acting = currentPrincipal()?.principal ?? DEFAULT_PRINCIPAL;
  if (!oauth) return acting;
  const signedIn = (c: OAuthCredentials | undefined) => !!c?.tokens && c.serverUrl === url;
  if (signedIn(await oauth.store.get(server, acting))) return acting;
  if (signedIn(await oauth.store.get(server, DEFAULT_PRINCIPAL))) return DEFAULT_PRINCIPAL;
  return (await oauth.store.list()).find((r) => r.server === server && signedIn(r.credentials))?.principal ?? acting;
}

/** What toCallError needs to say about sign-in: the pending sign-in's URL, or why none started. */
export function signInPlace(
  broker: SignInBroker | undefined,
  server: string,
  provider: StoredOAuthProvider | undefined,
  error: unknown,
): { signIn?: { server: string; principal: string; url?: string; failure?: string } } {
  if (!provider) return {};
  const pending = broker?.pendingFor(server, provider.principal);
  const base = { server, principal: provider.principal };
  if (pending) return { signIn: { ...base, url: pending.url } };
  // The server challenged and the SDK's OAuth flow failed before an authorization URL existed
  // (no metadata, registration refused): say so instead of a bare transport error.
  const sdkAuthFailure = provider.challenged !== false && error instanceof Error && error.name !== "McpError" && error.name !== "UnauthorizedError" && !/^Streamable HTTP error|^SSE error/.test(error.message);
  if (!sdkAuthFailure) return { signIn: base };
  const detail = error.message ? `${error.name}: ${error.message}` : error.name;
  return { signIn: { ...base, failure: `it answered HTTP ${provider.challenged} and its OAuth metadata or registration failed (${detail})` } };
}
