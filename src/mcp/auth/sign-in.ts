/**
 * Sign-ins in progress and the loopback listener that receives their redirects.
 *
 * When an MCP server asks for authorization (HTTP 401 with no usable token), the SDK builds the
 * authorization URL and the provider hands it here: it becomes a pending sign-in (listed by the
 * HTTP API, asked through URL-mode elicitation by the gateway, named in the `connection_required`
 * message of a script). The person opens it; the authorization server redirects the browser to
 * `http://127.0.0.1:<port>/callback?code=…&state=…`, where this listener exchanges the code
 * (through the SDK) and the sign-in is done. The listener binds 127.0.0.1 only, answers only
 * `GET /callback` with a `state` it issued, and stops with the host.
 *
 * See MCP spec 2025-11-25 "Authorization" → Authorization Code Protection (PKCE, `state`) and
 * "Elicitation" → URL mode; RFC 8252 §7.3 (loopback redirect on any port).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { issuerRefusal, type IssuerExpectation } from "./checks.js";

/** A sign-in waiting for the person, as the HTTP API and `toolshell auth --list` show it. */
export interface PendingSignIn {
  server: string;
  principal: string;
  /** The authorization URL to open. */
  url: string;
  /** The session whose call needed it, when a call did. */
  session_id?: string;
  started_at: string;
}

/** What registers a pending sign-in: the entry and how to finish it with the code. */
export interface PendRequest {
  server: string;
  principal: string;
  url: string;
  state: string;
  sessionId?: string;
  /** The issuer the authorization response must name (RFC 9207), when the server's metadata says. */
  issuer?: IssuerExpectation;
  /** Exchanges the authorization code for tokens and stores them. */
  complete: (code: string, iss: string | undefined) => Promise<void>;
}

/** How a sign-in ended. */
export type SignInOutcome = { ok: true } | { ok: false; error: string };

interface Entry extends PendRequest {
  startedAt: string;
  waiters: Array<(outcome: SignInOutcome) => void>;
}

/** Pending sign-ins expire after this long (milliseconds). */
export const SIGN_IN_TTL_MS = 15 * 60_000;

/**
 * The host's sign-ins: at most one pending per server and principal (a newer one replaces an
 * older one, whose waiters learn it was replaced), and one loopback listener per port.
 */
export class SignInBroker {
  readonly #entries = new Map<string, Entry>();
  readonly #listeners = new Map<number, { server: Server; port: number }>();
  readonly #starting = new Map<number, Promise<number>>();
  readonly #onChange = new Set<(pending: PendingSignIn, outcome?: SignInOutcome) => void>();
  #closed = false;

  /**
   * Starts the loopback listener for `port` (0: any free port) unless it runs.
   * @returns the port it listens on.
   * @throws Error when the port cannot be bound (e.g. in use) or the broker is closed.
   */
  listen(port = 0): Promise<number> {
    if (this.#closed) return Promise.reject(new Error("sign-in is closed"));
    const running = this.#listeners.get(port);
    if (running) return Promise.resolve(running.port);
    let starting = this.#starting.get(port);
    if (!starting) {
      starting = new Promise<number>((resolve, reject) => {
        const server = createServer((req, res) => void this.#handle(req.method ?? "", req.url ?? "/", res));
        server.once("error", (err) => reject(new Error(`cannot listen for the sign-in redirect on 127.0.0.1:${port}: ${err.message}`)));
        server.listen(port, "127.0.0.1", () => {
          const bound = (server.address() as AddressInfo).port;
          server.unref();
          this.#listeners.set(port, { server, port: bound });
          resolve(bound);
        });
      }).finally(() => this.#starting.delete(port));
      this.#starting.set(port, starting);
    }
    return starting;
  }

  /**
   * The redirect URL of the listener for `port`, e.g. `http://127.0.0.1:53012/callback`.
   * @throws Error when {@link listen} has not finished for that port.
   */
  redirectUrl(port = 0): string {
    const running = this.#listeners.get(port);
    if (!running) throw new Error("the sign-in redirect listener is not running");
    return `http://127.0.0.1:${running.port}/callback`;
  }

  /** Registers a pending sign-in (replacing the server's and principal's earlier one). */
  pend(request: PendRequest): void {
    const key = keyOf(request.server, request.principal);
    const earlier = this.#entries.get(key);
    const entry: Entry = { ...request, startedAt: new Date().toISOString(), waiters: earlier?.waiters ?? [] };
    this.#entries.set(key, entry);
    this.#emit(entry);
  }

  /** The pending sign-in of a server and principal, if one is waiting. */
  pendingFor(server: string, principal: string): PendingSignIn | undefined {
    const e = this.#live(keyOf(server, principal));
    return e ? view(e) : undefined;
  }

  /** Every pending sign-in, oldest first (optionally of one principal or session). */
  pending(filter: { principal?: string; sessionId?: string } = {}): PendingSignIn[] {
    const out: PendingSignIn[] = [];
    for (const key of [...this.#entries.keys()]) {
      const e = this.#live(key);
      if (!e) continue;
      if (filter.principal !== undefined && e.principal !== filter.principal) continue;
      if (filter.sessionId !== undefined && e.sessionId !== filter.sessionId) continue;
      out.push(view(e));
    }
    return out.sort((a, b) => a.started_at.localeCompare(b.started_at));
  }

  /**
   * Resolves when the pending sign-in of `server` and `principal` ends (or at once with an error
   * when none is pending); `signal` stops the wait only.
   */
  wait(server: string, principal: string, signal?: AbortSignal): Promise<SignInOutcome> {
    const e = this.#live(keyOf(server, principal));
    if (!e) return Promise.resolve({ ok: false, error: "no sign-in is pending" });
    return new Promise((resolve) => {
      const done = (outcome: SignInOutcome) => {
        signal?.removeEventListener("abort", onAbort);
        resolve(outcome);
      };
      const onAbort = () => {
        e.waiters = e.waiters.filter((w) => w !== done);
        resolve({ ok: false, error: "stopped waiting" });
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
      e.waiters.push(done);
    });
  }

  /** Calls `listener` when a sign-in starts (no outcome) and when it ends. @returns an unsubscribe function. */
  onChange(listener: (pending: PendingSignIn, outcome?: SignInOutcome) => void): () => void {
    this.#onChange.add(listener);
    return () => this.#onChange.delete(listener);
  }

  /** Stops the listeners; pending sign-ins end with an error. Never throws. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const key of [...this.#entries.keys()]) this.#finish(key, { ok: false, error: "the host stopped" });
    await Promise.all(
      [...this.#listeners.values()].map(({ server }) => new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      })),
    );
    this.#listeners.clear();
  }

  async #handle(method: string, rawUrl: string, res: import("node:http").ServerResponse): Promise<void> {
    const url = new URL(rawUrl, "http://127.0.0.1");
    if (method !== "GET" || url.pathname !== "/callback") return void page(res, 404, "Not found.");
    const state = url.searchParams.get("state") ?? "";
    const key = [...this.#entries.entries()].find(([k, e]) => e.state === state && state !== "" && this.#live(k))?.[0];
    if (!key) return void page(res, 400, "This sign-in link is unknown or has expired. Start the sign-in again.");
    const entry = this.#entries.get(key)!;
    const error = url.searchParams.get("error");
    if (error) {
      const description = url.searchParams.get("error_description");
      this.#finish(key, { ok: false, error: `the authorization server answered ${error}${description ? `: ${description}` : ""}` });
      return void page(res, 400, `Sign-in to ${entry.server} failed: ${error}.`);
    }
    // RFC 9207: every server's sign-in shares this redirect, so the response must come from the
    // authorization server the person was sent to (checked before anything is redeemed).
    const refused = issuerRefusal(entry.issuer, url.searchParams.get("iss"));
    if (refused) {
      this.#finish(key, { ok: false, error: refused });
      return void page(res, 400, `Sign-in to ${entry.server} refused: the response did not come from its authorization server.`);
    }
    const code = url.searchParams.get("code");
    if (!code) return void page(res, 400, "The redirect carried no authorization code.");
    try {
      await entry.complete(code, url.searchParams.get("iss") ?? undefined);
    } catch (err) {
      this.#finish(key, { ok: false, error: err instanceof Error ? err.message : String(err) });
      return void page(res, 502, `Sign-in to ${entry.server} failed while exchanging the code. See the terminal or the host's log.`);
    }
    this.#finish(key, { ok: true });
    page(res, 200, `Signed in to ${entry.server}. You can close this window.`);
  }

  #live(key: string): Entry | undefined {
    const e = this.#entries.get(key);
    if (e && Date.now() - Date.parse(e.startedAt) > SIGN_IN_TTL_MS) {
      this.#finish(key, { ok: false, error: "the sign-in expired" });
      return undefined;
    }
    return e;
  }

  #finish(key: string, outcome: SignInOutcome): void {
    const e = this.#entries.get(key);
    if (!e) return;
    this.#entries.delete(key);
    for (const w of e.waiters) w(outcome);
    this.#emit(e, outcome);
  }

  #emit(e: Entry, outcome?: SignInOutcome): void {
    for (const l of this.#onChange) {
      try {
        l(view(e), outcome);
      } catch {}
    }
  }
}

function keyOf(server: string, principal: string): string {
  return `${server}\0${principal}`;
}

function view(e: Entry): PendingSignIn {
  return { server: e.server, principal: e.principal, url: e.url, ...(e.sessionId ? { session_id: e.sessionId } : {}), started_at: e.startedAt };
}

function page(res: import("node:http").ServerResponse, status: number, text: string): void {
  const html = `<!doctype html><meta charset="utf-8"><title>toolshell sign-in</title><p>${text.replace(/[<>&]/g, (c) => `&#${c.charCodeAt(0)};`)}</p>`;
  res.writeHead(status, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }).end(html);
}
