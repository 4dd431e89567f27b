/**
 * Sign-in for the console with the same API tokens as the HTTP API. The login form puts the
 * token in a cookie that is `Secure` (browsers keep it only over HTTPS or on localhost),
 * `HttpOnly` (page scripts never see it) and `SameSite=Strict` (other sites' pages never send
 * it); its `__Host-` prefix pins it to this origin and path `/`. Every console route but the
 * login page and the static assets checks it, in constant time, like the API checks a bearer
 * token. Forms that change something are also refused when the browser says they came from
 * another site (`Origin`, `Sec-Fetch-Site`).
 *
 * See README → Console; docs/security.md → The console and the person; RFC 6265bis (cookie
 * prefixes, SameSite); the Fetch standard (`Sec-Fetch-Site`).
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { tokenMatches } from "../http.js";
import { TokenGuard } from "../token-guard.js";

/** The name of the cookie that holds the token. */
export const COOKIE = "__Host-toolshell-token";

/** How long a sign-in lasts, in seconds (12 hours). */
export const SIGN_IN_SECONDS = 12 * 3600;

/** The token of the request's cookie, when it is one of `tokens`. */
export function signedInToken(c: Context, tokens: readonly string[]): string | undefined {
  const token = getCookie(c, COOKIE);
  if (!token || !tokens.length || !tokenMatches(token, tokens)) return undefined;
  return token;
}

/** True when the request has a sign-in cookie whose token this server no longer accepts (removed, rotated, or no longer an operator's). */
export function staleSignIn(c: Context, tokens: readonly string[]): boolean {
  return !!getCookie(c, COOKIE) && !signedInToken(c, tokens);
}

/** Keeps `token` in the cookie. */
export function signIn(c: Context, token: string): void {
  setCookie(c, COOKIE, token, { path: "/", secure: true, httpOnly: true, sameSite: "Strict", maxAge: SIGN_IN_SECONDS });
}

/** Forgets the cookie. */
export function signOut(c: Context): void {
  deleteCookie(c, COOKIE, { path: "/", secure: true });
}

/** True when the browser says the request came from a page of another origin. */
export function crossSite(c: Context): boolean {
  const site = c.req.header("sec-fetch-site");
  if (site) return site !== "same-origin" && site !== "none";
  const origin = c.req.header("origin");
  if (!origin) return false;
  try {
    return new URL(origin).host !== c.req.header("host");
  } catch {
    return true;
  }
}

const HERE = "http://console.invalid";

/**
 * A path of this site to go back to after signing in; anything else becomes `/`. The value is
 * read the way a browser reads a Location header (the URL standard: tabs and newlines dropped,
 * `\\` as `/`, percent-decoding of the host), so no spelling of another origin (`//x`, `/\\x`,
 * `/\t/x`, `https:x`, …) gets through; what comes back is the normalised path, query and fragment.
 */
export function localPath(next: string | undefined): string {
  if (!next || !next.startsWith("/")) return "/";
  let u: URL;
  try {
    u = new URL(next, HERE);
  } catch {
    return "/";
  }
  if (u.origin !== HERE) return "/";
  const p = u.pathname + u.search + u.hash;
  return p.startsWith("/") && !p.startsWith("//") && !p.startsWith("/\\") ? p : "/";
}

/** The key notes are signed with (one per process: a note is shown by the replica that wrote it). */
const NOTE_KEY = randomBytes(32);

/** The signature of a note the console itself wrote (`?note=…&sig=…`). */
export function noteSig(note: string, error = false): string {
  return createHmac("sha256", NOTE_KEY).update(`${error ? "error" : "note"}:${note}`, "utf8").digest("base64url").slice(0, 22);
}

/** The note to show, only when the console signed it (as an error, for `error`): a link cannot put words in its mouth. */
export function signedNote(note: string | undefined, sig: string | undefined, error = false): string | undefined {
  if (!note || !sig) return undefined;
  const want = Buffer.from(noteSig(note, error));
  const got = Buffer.from(sig);
  return want.length === got.length && timingSafeEqual(want, got) ? note : undefined;
}

/**
 * Lets signed-in requests through. A page request without a valid cookie is sent to the login
 * page; any other request (a region, the event stream, a form post, a file) answers 401 with no
 * data. A cross-site form post answers 403. A wrong cookie counts as a wrong token; while its
 * sender must wait, every request of it with a cookie answers 429 (token-guard.ts).
 */
export function requireSignIn(tokens: readonly string[], guard: TokenGuard, from: (c: Context) => string): MiddlewareHandler {
  return async (c, next) => {
    // A cookie is a token presented too: a wrong one counts, and while its sender must wait
    // nothing is looked at (token-guard.ts).
    if (getCookie(c, COOKIE)) {
      const { wait } = guard.weigh(from(c), () => !!signedInToken(c, tokens));
      if (wait > 0) {
        c.header("Retry-After", String(wait));
        return c.text(TokenGuard.message(wait), 429);
      }
    }
    if (!signedInToken(c, tokens)) {
      const page = c.req.method === "GET" && !c.req.query("region") && (c.req.header("accept") ?? "").includes("text/html");
      if (page) return c.redirect(`/login?next=${encodeURIComponent(c.req.path)}`, 303);
      return c.text("sign in first", 401);
    }
    if (c.req.method !== "GET" && c.req.method !== "HEAD" && crossSite(c)) return c.text("refused: the form came from another site", 403);
    c.header("Cache-Control", "no-store");
    await next();
  };
}
