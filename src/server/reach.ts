/**
 * How a request reached `toolshell serve`: over HTTPS or not as the browser sees it, from which
 * client address, and whether a browser on that origin keeps the console's `Secure` sign-in
 * cookie. A TLS proxy's `X-Forwarded-Proto` and `X-Forwarded-For` count only when the config
 * says a proxy is in front (`server.trustProxy`); anyone can send those headers otherwise.
 *
 * See docs/deployment.md → TLS and the console; RFC 6265bis (Secure cookies, `__Host-`); the
 * Secure Contexts specification (loopback hosts are potentially trustworthy).
 */
import type { Context } from "hono";

/** What the server knows of its own transport. */
export interface Transport {
  /** The server itself terminates TLS. */
  tls: boolean;
  /** A TLS proxy in front is believed (X-Forwarded-Proto, X-Forwarded-For). */
  trustProxy: boolean;
}

/** True for `localhost`, `*.localhost`, 127.0.0.0/8 and `::1` (with or without brackets). */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, "").replace(/\.$/, "");
  return h === "localhost" || h.endsWith(".localhost") || h === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) || /^::ffff:127\./.test(h);
}

/** The host name of a `Host` header value (without the port). */
export function hostOf(header: string): string {
  const m = /^\[([^\]]*)\]/.exec(header);
  if (m) return m[1];
  return header.replace(/:\d*$/, "");
}

/** The socket of a request served by `@hono/node-server` (absent under `app.request()`). */
function socketOf(c: Context): { remoteAddress?: string; encrypted?: boolean } | undefined {
  return (c.env as { incoming?: { socket?: { remoteAddress?: string; encrypted?: boolean } } } | undefined)?.incoming?.socket;
}

/** The scheme the browser used: `https` over TLS here, or over a believed proxy that says so. */
export function requestScheme(c: Context, t: Transport): "http" | "https" {
  if (t.tls || socketOf(c)?.encrypted) return "https";
  if (t.trustProxy) {
    const proto = (c.req.header("x-forwarded-proto") ?? "").split(",")[0].trim().toLowerCase();
    if (proto === "https") return "https";
  }
  return "http";
}

/**
 * The client's address: the socket's peer, or behind a believed proxy the address the proxy
 * added last to `X-Forwarded-For` (earlier entries come from the client and prove nothing).
 */
export function clientAddress(c: Context, t: Transport): string {
  // A console form the console relays to the API (console/routes.tsx) carries its browser's address.
  const relayed = (c.env as { toolshellClient?: unknown } | undefined)?.toolshellClient;
  if (typeof relayed === "string") return relayed;
  const peer = socketOf(c)?.remoteAddress ?? "unknown";
  if (!t.trustProxy) return peer;
  const hops = (c.req.header("x-forwarded-for") ?? "").split(",").map((x) => x.trim()).filter(Boolean);
  return hops.length ? hops[hops.length - 1] : peer;
}

/**
 * Why a browser on this request's origin would drop the console's sign-in cookie, or undefined
 * when it keeps it (HTTPS, or a loopback host, which browsers treat as secure).
 */
export function signInBlocked(c: Context, t: Transport): string | undefined {
  if (requestScheme(c, t) === "https") return undefined;
  const host = c.req.header("host") ?? "";
  if (isLoopbackHost(hostOf(host))) return undefined;
  const proxied = !t.trustProxy && (c.req.header("x-forwarded-proto") ?? "").toLowerCase().startsWith("https");
  return (
    `This page came over plain HTTP at ${host || "this address"}. The sign-in cookie is Secure, so browsers keep it only over HTTPS or on localhost: signing in here cannot work. ` +
    (proxied
      ? "A proxy says the browser used HTTPS, but this server is not told to believe it: set server.trustProxy (or serve --trust-proxy)."
      : "Open the console over HTTPS (serve --tls-cert/--tls-key, or a TLS proxy in front with server.trustProxy), or through localhost (for example an SSH tunnel).")
  );
}
