/**
 * What toolshell checks of an authorization server before a person is sent to it, in one place
 * for every surface that shows a sign-in (`toolshell auth`, the gateway's URL-mode prompt, the
 * console and HTTP API's pending sign-ins, a `connection_required` message): the authorization
 * URL, PKCE, and the issuer an authorization response must name.
 *
 * See MCP spec "Authorization" → Authorization Code Protection (PKCE S256 required; refuse an
 * authorization server whose metadata does not list it); RFC 9207 (`iss`); RFC 8252 §8.3
 * (loopback); docs/security.md → Authorization-server data.
 */
import type { AuthorizationServerMetadata } from "@modelcontextprotocol/client";

/** True for a host name that is this machine (the only place plain http is allowed). */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127(\.\d{1,3}){3}$/.test(h);
}

/**
 * Refuses what a person must never be sent to: anything but an https URL, or an http URL on this
 * machine (no `vscode:`, `file:`, `javascript:`, `data:` …), with user info or without a host.
 * @throws Error naming the server and what is wrong.
 */
export function checkAuthorizationUrl(server: string, url: string | URL): URL {
  const checked = checkPersonUrl(url);
  if ("url" in checked) return checked.url;
  if (checked.notUrl) throw new Error(`MCP server "${server}": its authorization server gave an authorization URL that is not a URL; refused`);
  throw new Error(`MCP server "${server}": its authorization server's authorization URL ${checked.refused}`);
}

/**
 * The one rule for a URL a person is sent to (a sign-in's authorization URL, a server's URL-mode
 * question; MCP spec "Elicitation" → URL mode, Safe URL Handling): https, or http on this
 * machine; a host; no user info. `refused` says why otherwise ("uses …; only https … — refused").
 */
export function checkPersonUrl(url: string | URL): { url: URL } | { refused: string; notUrl?: true } {
  let u: URL;
  try {
    u = new URL(String(url));
  } catch {
    return { refused: "is not a URL; refused", notUrl: true };
  }
  const ok = u.hostname !== "" && !u.username && !u.password && (u.protocol === "https:" || (u.protocol === "http:" && isLoopbackHost(u.hostname)));
  if (!ok) return { refused: `uses ${JSON.stringify(u.protocol)}${u.protocol === "http:" ? " on another machine" : ""}; only https (or http on this machine) is opened — refused` };
  return { url: u };
}

/**
 * Refuses an authorization server that does not offer PKCE with S256 (its metadata must list it
 * in `code_challenge_methods_supported`), and one whose authorization endpoint fails
 * {@link checkAuthorizationUrl}.
 * @throws Error naming the server and what is missing.
 */
export function checkAuthorizationServer(server: string, metadata: AuthorizationServerMetadata | undefined): void {
  if (!metadata) return;
  const methods = metadata.code_challenge_methods_supported;
  if (!Array.isArray(methods) || !methods.includes("S256")) {
    throw new Error(
      `MCP server "${server}": its authorization server ${metadata.issuer} does not offer PKCE with S256 (code_challenge_methods_supported: ${methods ? JSON.stringify(methods) : "missing"}); toolshell signs in only with S256 PKCE — refused`,
    );
  }
  checkAuthorizationUrl(server, metadata.authorization_endpoint);
}

/** What the authorization response must say about its issuer (RFC 9207). */
export interface IssuerExpectation {
  /** The issuer of the authorization server the person was sent to. */
  issuer: string;
  /** The server advertised `authorization_response_iss_parameter_supported`: `iss` must be present. */
  required: boolean;
}

/** The expectation for an authorization server's responses, from its metadata. */
export function issuerExpectation(metadata: AuthorizationServerMetadata | undefined): IssuerExpectation | undefined {
  if (!metadata?.issuer) return undefined;
  return { issuer: metadata.issuer, required: (metadata as Record<string, unknown>).authorization_response_iss_parameter_supported === true };
}

/**
 * The reason an authorization response's `iss` is refused, or undefined when it is accepted: a
 * present `iss` must be the issuer exactly; a missing one is refused when the server said it sends it.
 */
export function issuerRefusal(expected: IssuerExpectation | undefined, iss: string | null): string | undefined {
  if (!expected) return undefined;
  if (iss === null) return expected.required ? `the authorization response has no "iss" although ${expected.issuer} says it sends one (RFC 9207); nothing was redeemed` : undefined;
  if (iss !== expected.issuer) return `the authorization response names the issuer ${JSON.stringify(iss)}, not ${JSON.stringify(expected.issuer)} where the sign-in started (RFC 9207 mix-up defence); nothing was redeemed`;
  return undefined;
}
