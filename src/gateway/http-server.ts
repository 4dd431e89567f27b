/**
 * The MCP gateway over Streamable HTTP (`toolshell mcp --http PORT`): one gateway server and
 * toolshell session per MCP session (`Mcp-Session-Id`), bound to 127.0.0.1 by default, with the
 * Host and Origin headers checked against DNS rebinding, and a bounded number of sessions that
 * expire when idle.
 *
 * See MCP spec 2025-06-18 "Transports" → Streamable HTTP: servers SHOULD bind to localhost and
 * MUST validate the Origin header; a server MAY end a session at any time, after which it answers
 * requests with that session id with 404 and the client starts a new session with an initialize
 * request.
 *
 * Several replicas (docs/deployment.md → The MCP gateway): with a store, an MCP session's id maps
 * to the toolshell session `mcp_<id>` in the store, whose metadata keeps the client's
 * `initialize` parameters. A replica that gets a request for an id it has not seen finds that
 * session and rebuilds its server and transport (the stored `initialize` is replayed to them, so
 * the client's capabilities are known); the client never notices which replica answered. A
 * session ended with DELETE is recorded as the step `mcp:closed` and is not rebuilt.
 * Over a store several replicas share (one with a session lease), the gateway does not ask
 * through elicitation: the client's answer to a server-to-client request may land on another
 * replica than the one waiting for it. A call that needs approval then answers with its stop
 * report and `toolshell_approve`, whose answer every replica reads from the store.
 *
 * That is the 2025 era. A POST without `Mcp-Session-Id` that the SDK classifies as 2026-07-28
 * traffic (`isLegacyRequest`) is served statelessly by http-modern.ts, after the same Host,
 * Origin and token checks.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { deepMessageError } from "./deep.js";
import { WebStandardStreamableHTTPServerTransport, isInitializeRequest, LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/server";
import type { Server } from "@modelcontextprotocol/server";
import { getRequestListener } from "@hono/node-server";
import type { ToolShell } from "../runtime/index.js";
import type { Store } from "../store/index.js";
import { createGatewayServer, type GatewayOptions, type RunningGateway } from "./mcp-server.js";
import { loadKeptServers } from "../surface/index.js";
import { answersInFlight } from "../server/in-flight.js";
import { TokenGuard, tokenIndex, tokenMatches } from "../server/token-guard.js";
import { isModernRequest, modernAuthInfo, modernHandler, modernSessionId } from "./http-modern.js";
import { tokenPrincipal } from "./request-state.js";
import { roleAt, tokenName } from "../server/http.js";
import type { TokenRole } from "../config/index.js";

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

/** MCP sessions an HTTP gateway keeps at once by default. */
export const DEFAULT_MAX_HTTP_SESSIONS = 100;
/** How long an MCP session with no request may stay, by default (30 minutes). */
export const DEFAULT_HTTP_SESSION_IDLE_MS = 30 * 60_000;
/** The largest body of a request that opens an MCP session (an `initialize` request). */
const MAX_INITIALIZE_BYTES = 1024 * 1024;
/** The largest body of a 2026-07-28 request (the SDK's default bound). */
const MAX_MODERN_BYTES = 4 * 1024 * 1024;

/** Options of the Streamable HTTP gateway. */
export interface HttpGatewayOptions extends GatewayOptions {
  port?: number;
  host?: string;
  path?: string;
  /**
   * MCP sessions kept at once (default {@link DEFAULT_MAX_HTTP_SESSIONS}). Past it, after idle
   * ones are removed, a new session is refused with 503 and `Retry-After`.
   */
  maxSessions?: number;
  /**
   * A session with no request in flight for this long is closed (default
   * {@link DEFAULT_HTTP_SESSION_IDLE_MS}); its client then gets 404 and initializes again, as the
   * MCP transport spec says. With a `store`, the limit frees this process's memory only: the
   * session's next request rebuilds it from the store.
   */
  sessionIdleMs?: number;
  /** The clock, in epoch milliseconds (tests move it). */
  now?: () => number;
  /**
   * Bearer tokens a client must send (`Authorization: Bearer <token>`) on every request. Without
   * them any process that can reach the port opens a session, runs scripts with the config's
   * servers and answers its own approval requests (elicitation or `toolshell_approve`): it is the
   * person. Required when `host` is not a loopback address.
   */
  tokens?: readonly string[];
  /**
   * Who each token is, as `server.tokens[]` says (`{ name, token, role }`, docs/security.md "Who
   * acts for whom"): an `agent` token's sessions act for its name (its own OAuth sign-ins, its
   * own agent's saved scripts) and it reaches no other token's session; an `operator` token acts
   * as the config's person and reaches every session. A token without a role: operator when it is
   * the only one, else agent.
   */
  tokenNames?: readonly string[];
  tokenRoles?: ReadonlyArray<TokenRole | undefined>;
  /** Wrong tokens per source address (server/token-guard.ts); default: one for this gateway. */
  tokenGuard?: TokenGuard;
  /**
   * Where MCP sessions are found by replicas that did not open them (the host's store): with
   * it, a request for an unknown `Mcp-Session-Id` whose session is in the store rebuilds it here
   * instead of answering 404.
   */
  store?: Pick<Store, "getSession" | "getStep" | "lease"> & Partial<Pick<Store, "listShared" | "putShared">>;
}

/** The step that records an MCP session ended with DELETE (never rebuilt after). */
const CLOSED_STEP = "mcp:closed";

/** True when the request carries one of `tokens` as a bearer token (each compared in constant time). */
function bearerOk(req: IncomingMessage, tokens: readonly string[]): boolean {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(String(req.headers.authorization ?? ""));
  if (!m) return false;
  return tokenMatches(m[1], tokens);
}

/** Reads a request body up to `limit` bytes. @returns undefined past the limit. */
function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > limit) over = true;
      else if (!over) chunks.push(c);
    });
    req.on("end", () => resolve(over ? undefined : Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

/**
 * Serves the gateway over Streamable HTTP at `http://HOST:PORT/mcp` (host default 127.0.0.1;
 * port 0 picks a free one). Each MCP session (`Mcp-Session-Id`) gets its own server and toolshell
 * session (`mcp_<id>`). On a loopback host, requests whose Host or Origin header names another
 * host are refused (403) against DNS rebinding. Sessions are bounded: one idle past
 * `sessionIdleMs` is closed (its client gets 404 and initializes again), and past `maxSessions`
 * a new one is refused with 503. Only an `initialize` request opens a session.
 */
export async function serveHttp(shell: ToolShell, options: HttpGatewayOptions = {}): Promise<RunningGateway & { url: string; port: number; sessions(): number; refuseNew(): void }> {
  const host = options.host ?? "127.0.0.1";
  const route = options.path ?? "/mcp";
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_HTTP_SESSIONS;
  const idleMs = options.sessionIdleMs ?? DEFAULT_HTTP_SESSION_IDLE_MS;
  if (!Number.isInteger(maxSessions) || maxSessions < 1) throw new Error(`serveHttp: maxSessions must be a whole number ≥ 1, got ${maxSessions}`);
  if (!Number.isInteger(idleMs) || idleMs < 1) throw new Error(`serveHttp: sessionIdleMs must be a whole number of milliseconds ≥ 1, got ${idleMs}`);
  const tokens = (options.tokens ?? []).filter((t) => typeof t === "string" && t.length > 0);
  const guard = options.tokenGuard ?? new TokenGuard();
  if (!tokens.length && !LOOPBACK.has(host)) {
    throw new Error(`serveHttp: bound to ${host}, the gateway needs API tokens (anyone who reaches it could run scripts and answer its approvals); set tokens (TOOLSHELL_API_TOKEN or the config's server.tokens)`);
  }
  const now = options.now ?? Date.now;
  const gatewayOptions: GatewayOptions = { ...options, elicitation: options.elicitation !== false && !options.store?.lease };
  await loadKeptServers(shell);
  // 2026-07-28 clients: stateless, one server per request (http-modern.ts). Their questions are
  // answered on any replica, so they are asked even over a store with a session lease.
  const modern = modernHandler(shell, options, options.store);
  type Live = { transport: WebStandardStreamableHTTPServerTransport; server: Server; lastSeen: number; inFlight: number; acting?: string };
  const live = new Map<string, Live>();
  let opening = 0;
  /** Closes sessions idle past the limit (none with a request or stream open). */
  const sweep = () => {
    const t = now();
    for (const [id, e] of live) {
      if (e.inFlight > 0 || t - e.lastSeen < idleMs) continue;
      live.delete(id);
      void e.server.close().catch(() => {});
    }
  };
  const sweeper = setInterval(sweep, Math.max(1000, Math.min(60_000, Math.floor(idleMs / 2))));
  sweeper.unref();
  let port = 0;
  const hostOk = (req: IncomingMessage): boolean => {
    if (!LOOPBACK.has(host)) return true;
    const names = [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`];
    if (!names.includes(String(req.headers.host ?? ""))) return false;
    const origin = req.headers.origin;
    return origin === undefined || names.some((n) => origin === `http://${n}`);
  };
  const fail = (res: ServerResponse, status: number, message: string) => {
    if (res.headersSent) return;
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
  };
  /**
   * Whom a request's token acts for: undefined for an operator (the config's person, every
   * session), else its name as principal and agent (the HTTP API's rule, server/http.ts).
   */
  const actingFor = (req: IncomingMessage): string | undefined => {
    if (!tokens.length) return undefined;
    const presented = /^Bearer\s+(\S+)\s*$/i.exec(String(req.headers.authorization ?? ""))?.[1] ?? "";
    const i = tokenIndex(presented, tokens);
    const names = { tokens, tokenRoles: options.tokenRoles, tokenNames: options.tokenNames ? [...options.tokenNames] : undefined };
    return roleAt(i, names) === "operator" ? undefined : tokenName(i, names);
  };
  /**
   * The server and transport of MCP session `id` (a new one, or one rebuilt from the store);
   * listed in `live` once its initialize is answered. `acting`: the agent token's name it acts for.
   */
  const openSession = async (id: string, init: Record<string, unknown>, acting?: string): Promise<Live> => {
    const session = shell.session(`mcp_${id}`, { mcp_initialize: init, ...(acting ? { principal: acting, agent_id: acting } : {}) });
    await session.ready;
    const server = createGatewayServer(shell, session, gatewayOptions);
    const fresh = { server, lastSeen: now(), inFlight: 0, acting } as Live;
    fresh.transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      onsessioninitialized: (sessionId) => {
        live.set(sessionId, fresh);
      },
      onsessionclosed: async (sessionId) => {
        live.delete(sessionId);
        if (options.store) await session.step(CLOSED_STEP, {}, async () => true, "mcp.closed").catch(() => {});
      },
    });
    fresh.transport.onclose = () => {
      live.delete(id);
    };
    await server.connect(fresh.transport);
    return fresh;
  };
  /**
   * Rebuilds MCP session `id` opened on another replica: its stored `initialize` (and the
   * `initialized` notification) are replayed to a new server and transport, whose answers are
   * dropped. Undefined when the store has no such open session.
   */
  const rebuild = async (id: string): Promise<Live | undefined> => {
    const store = options.store;
    if (!store) return undefined;
    const rec = await store.getSession(`mcp_${id}`);
    const params = rec?.metadata.mcp_initialize;
    if (!params || typeof params !== "object" || (await store.getStep(`mcp_${id}`, CLOSED_STEP))) return undefined;
    const acting = typeof rec?.metadata.principal === "string" ? rec.metadata.principal : undefined;
    const e = await openSession(id, params as Record<string, unknown>, acting);
    const post = async (message: Record<string, unknown>, headers: Record<string, string> = {}) => {
      const req = new Request(`http://127.0.0.1${route}`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
        body: JSON.stringify(message),
      });
      await (await e.transport.handleRequest(req, { parsedBody: message })).text();
    };
    await post({ jsonrpc: "2.0", id: `rebuild-${id}`, method: "initialize", params });
    const version = typeof (params as { protocolVersion?: unknown }).protocolVersion === "string" ? (params as { protocolVersion: string }).protocolVersion : LATEST_PROTOCOL_VERSION;
    await post({ jsonrpc: "2.0", method: "notifications/initialized" }, { "mcp-session-id": id, "mcp-protocol-version": version });
    return live.get(id) === e ? e : undefined;
  };
  let stopping = false;
  let closing: Promise<void> | undefined;
  /** The 2026-07-28 sessions each principal has named here (bounded by maxSessions). */
  const namedSessions = new Map<string, Set<string>>();
  const http = createServer((req, res) => {
    void (async () => {
      // A session being opened counts against the bound until its initialize is answered.
      let counted = false;
      try {
        // Liveness, open as serve's (docs/deployment.md "Health, readiness and metrics").
        if (req.method === "GET" && (req.url ?? "").split("?")[0] === "/healthz") {
          return void res.writeHead(stopping ? 503 : 200, { "content-type": "application/json" }).end(JSON.stringify(stopping ? { ok: false, stopping: true } : { ok: true }));
        }
        if (stopping) {
          res.setHeader("connection", "close");
          res.setHeader("retry-after", "1");
          return fail(res, 503, "the gateway is stopping: it lets the tool calls in flight end and takes no new requests; send the request to another replica, or again once it has restarted");
        }
        const url = new URL(req.url ?? "/", "http://localhost");
        if (url.pathname !== route) return fail(res, 404, `not found; the MCP endpoint is ${route}`);
        if (!hostOk(req)) return fail(res, 403, "forbidden host or origin");
        if (tokens.length) {
          // Wrong tokens slow their sender down, as on the HTTP API (server/token-guard.ts).
          const from = req.socket.remoteAddress ?? "unknown";
          const presented = /^Bearer\s+\S+\s*$/i.test(String(req.headers.authorization ?? ""));
          const { ok, wait } = presented ? guard.weigh(from, () => bearerOk(req, tokens)) : { ok: false, wait: 0 };
          if (wait > 0) {
            res.setHeader("retry-after", String(wait));
            return fail(res, 429, TokenGuard.message(wait));
          }
          if (!ok) {
            res.setHeader("www-authenticate", 'Bearer realm="toolshell"');
            return fail(res, 401, "unauthorized: send Authorization: Bearer <token> with one of the gateway's tokens");
          }
        }
        const sid = req.headers["mcp-session-id"];
        const id = Array.isArray(sid) ? sid[0] : sid;
        let entry = id ? live.get(id) : undefined;
        let parsedBody: unknown;
        let text: string | undefined;
        if (req.method === "POST") {
          text = await readBody(req, MAX_MODERN_BYTES);
          if (text === undefined) return fail(res, 413, `a request is at most ${MAX_MODERN_BYTES} bytes`);
          try {
            parsedBody = JSON.parse(text);
          } catch {
            return fail(res, 400, "the body is not JSON");
          }
          // Nested no deeper than a tool's input may be, before the SDK or a call walks it (deep.ts).
          const deep = deepMessageError(parsedBody);
          if (deep) return void res.writeHead(deep.id === null ? 400 : 200, { "content-type": "application/json" }).end(JSON.stringify(deep));
        }
        if (!id && req.method === "POST") {
          const headers = Object.fromEntries(Object.entries(req.headers).flatMap(([k, v]) => (v === undefined ? [] : [[k, Array.isArray(v) ? v.join(", ") : v]])));
          if (await isModernRequest(req.method, headers, parsedBody)) {
            const token = /^Bearer\s+(\S+)\s*$/i.exec(String(req.headers.authorization ?? ""))?.[1];
            const principal = token ? tokenPrincipal(token) : "local";
            let session: string;
            try {
              session = modernSessionId(principal, parsedBody);
            } catch (err) {
              return fail(res, 400, (err as Error).message);
            }
            // Each named session is a session of the store: a client names at most maxSessions of them per process.
            const names = namedSessions.get(principal) ?? new Set<string>();
            if (session !== modernSessionId(principal, undefined) && !names.has(session)) {
              if (names.size >= maxSessions) return fail(res, 429, `too many named sessions for this client (${maxSessions}, _meta["toolshell/session"]): reuse one of its names`);
              namedSessions.set(principal, names.add(session));
            }
            const body = parsedBody;
            return await getRequestListener((webRequest) => modern.fetch(webRequest, { parsedBody: body, authInfo: modernAuthInfo(principal, session, actingFor(req)) }), { overrideGlobalObjects: false })(req, res);
          }
        }
        if (entry && id && options.store && (await options.store.getStep(`mcp_${id}`, CLOSED_STEP))) {
          // Ended with DELETE on another replica.
          live.delete(id);
          void entry.server.close().catch(() => {});
          entry = undefined;
          return fail(res, 404, "no such MCP session (it was ended); initialize again");
        }
        if (!entry && id) {
          if (live.size + opening >= maxSessions) sweep();
          if (live.size + opening < maxSessions) {
            opening++;
            counted = true;
            entry = await rebuild(id);
          }
        }
        if (!entry) {
          if (id) return fail(res, 404, "no such MCP session (it ended, was idle too long, or the gateway restarted); initialize again");
          if (req.method !== "POST" || text === undefined) return fail(res, 400, "no MCP session: POST an initialize request first");
          if (Buffer.byteLength(text) > MAX_INITIALIZE_BYTES) return fail(res, 413, `an initialize request is at most ${MAX_INITIALIZE_BYTES} bytes`);
          if (!isInitializeRequest(parsedBody)) return fail(res, 400, "no MCP session: POST an initialize request first");
          if (live.size + opening >= maxSessions) sweep();
          if (live.size + opening >= maxSessions) {
            if (!res.headersSent) res.setHeader("retry-after", String(Math.ceil(Math.min(idleMs, 3600_000) / 1000)));
            return fail(res, 503, `too many MCP sessions (${maxSessions} open): end one (DELETE with its Mcp-Session-Id) or retry after an idle one expires (idle limit ${Math.round(idleMs / 1000)} s)`);
          }
          opening++;
          counted = true;
          const init = (parsedBody as { params?: unknown }).params;
          entry = await openSession(randomUUID(), init && typeof init === "object" ? (init as Record<string, unknown>) : {}, actingFor(req));
        }
        // An agent token reaches only its own sessions; an operator's reaches every one.
        const acting = actingFor(req);
        if (acting !== undefined && entry.acting !== acting) return fail(res, 403, `this MCP session acts for ${entry.acting === undefined ? "the operator" : JSON.stringify(entry.acting)}; this token acts for ${JSON.stringify(acting)} and cannot reach it`);
        // A session with a request or a stream open is never idle.
        const e = entry;
        e.inFlight++;
        e.lastSeen = now();
        res.once("close", () => {
          e.inFlight--;
          e.lastSeen = now();
        });
        await getRequestListener((webRequest) => e.transport.handleRequest(webRequest, { parsedBody }), { overrideGlobalObjects: false })(req, res);
      } catch (err) {
        fail(res, 500, `toolshell gateway: ${err instanceof Error ? err.message : String(err)}`);
      } finally {
        if (counted) opening--;
      }
    })();
  });
  const answers = answersInFlight(http);
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(options.port ?? 0, host, () => resolve());
  });
  port = (http.address() as AddressInfo).port;
  const shown = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}${route}`,
    port,
    sessions: () => live.size,
    // Begins stopping (docs/deployment.md "Stopping a replica"): no new connections, new requests answer 503, idle connections close.
    refuseNew() {
      if (stopping) return;
      stopping = true;
      closing = new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeIdleConnections?.();
    },
    async close() {
      stopping = true;
      closing ??= new Promise<void>((resolve) => http.close(() => resolve()));
      // The answers of the calls that ended while stopping go out before the sessions close (server/in-flight.ts).
      await answers.written(5_000);
      clearInterval(sweeper);
      await modern.stop().catch(() => {});
      await Promise.allSettled([...live.values()].map((e) => e.server.close()));
      live.clear();
      http.closeAllConnections?.();
      await closing;
    },
  };
}
