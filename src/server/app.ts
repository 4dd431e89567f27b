/**
 * The HTTP API of `toolshell serve` (Hono): JSON in and out, bearer tokens, errors as
 * `{"error":{"code","message"}}` with proper statuses, a request size limit. The OpenAPI
 * document (openapi.ts) lists every route below.
 *
 * Auth: every `/v1/*` route needs `Authorization: Bearer <token>` with one of the configured
 * tokens (compared in constant time), except `POST /v1/webhooks/{trigger_id}`, which takes the
 * trigger's own secret (or an API token). `/openapi.json`, `/healthz` and `/readyz` are open;
 * `/metrics` takes an operator's token.
 *
 * Sessions, shell calls, events, steps, approvals and sign-ins are here; saved scripts,
 * triggers and webhooks are in agents-api.ts; request helpers in http.ts. See docs/sessions.md →
 * HTTP API.
 */
import { randomUUID } from "node:crypto";
import { Hono, type Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import { AnsweredError, type Decision } from "../policy/index.js";
import { withDisplay } from "../display/show-input.js";
import { answerAsShown, ApprovalDetailsReader } from "./approval-card.js";
import { DECISIONS as ALL_DECISIONS } from "../policy/decisions.js";
import { DEFAULT_AGENT } from "../store/index.js";
import type { SessionEvent } from "../call/index.js";
import { mountAgentRoutes } from "./agents-api.js";
import { CHANGES_SESSION, changeEvent, describeChange } from "./changes.js";
import { createConsole, LiveHub } from "./console/index.js";
import { mountEventStream } from "./event-stream.js";
import type { Host } from "./host.js";
import { actorOf, ApiError, bearer, body, guardedCheck, id, mayReach, principalOfToken, requireOperator, requireReach, roleAt, roleOf, RESERVED_METADATA, reservedSession, stepIdOf, str, tokenIndex, tokenMatches, tokenName, type AppOptions } from "./http.js";
import { signedInToken } from "./console/auth.js";
import { principalOf } from "../mcp/index.js";
import { TokenGuard } from "./token-guard.js";
import { clientAddress } from "./reach.js";
import { openApiDocument } from "./openapi.js";
import { createMetrics, STORE_CHECK_MS, storeAnswers } from "./metrics.js";
import { mountQuestionRoutes, QuestionBox } from "./questions.js";
import { serversRoutes } from "./servers-api.js";
import { goneStepsBySession, sessionSteps } from "./steps.js";
import { KeyedQueue } from "../async/keyed-queue.js";

export { ApiError, ID, tokenMatches } from "./http.js";
export type { AppOptions } from "./http.js";

const DECISIONS = new Set<string>(ALL_DECISIONS);
/** A session's metadata, as JSON, at most this long (docs/sessions.md "HTTP API"). */
export const MAX_METADATA_BYTES = 16_384;

/**
 * The Hono app over a host. Shell calls of one session run one after another (requests for the
 * same session queue); different sessions run at once.
 */
export function createApp(host: Host, options: AppOptions): Hono {
  const app = new Hono();
  const { store } = host;
  const sessionTurns = new KeyedQueue<string>();
  // Questions upstream servers ask during this API's shell calls wait for a person here (questions.ts).
  const questions = new QuestionBox(store);

  app.onError((err, c) => {
    if (err instanceof ApiError) return c.json({ error: { code: err.code, message: err.message } }, err.status);
    return c.json({ error: { code: "internal", message: host.shell.redactor.text(err instanceof Error ? err.message : String(err)) } }, 500);
  });
  app.notFound((c) => c.json({ error: { code: "not_found", message: `no route ${c.req.method} ${c.req.path}` } }, 404));

  // The operator's log (log.ts): every request with its status, time, client and token name.
  const log = options.log;
  if (log && log.level !== "off") {
    app.use("*", async (c, next) => {
      const t0 = performance.now();
      await next();
      const status = c.res.status;
      const quiet = c.req.path.startsWith("/console/static/") || c.req.path === "/healthz" || c.req.path === "/readyz" || c.req.path === "/metrics" || !!c.req.query("region");
      // Who: the bearer token's name, or the token of the console's sign-in cookie (a page or form).
      const viaCookie = bearer(c) ? undefined : signedInToken(c, options.tokens);
      const i = tokenIndex(bearer(c) ?? viaCookie ?? "", options.tokens);
      const actor = viaCookie ? { by: tokenName(i, options), surface: "console" } : actorOf(c, options);
      log.log(status >= 500 ? "error" : quiet ? "debug" : "info", "request", {
        method: c.req.method,
        path: c.req.path,
        status,
        ms: Math.round((performance.now() - t0) * 10) / 10,
        client: clientAddress(c, { tls: !!options.tls, trustProxy: !!options.trustProxy }),
        ...(i >= 0 ? { by: actor.by, surface: actor.surface } : {}),
      });
    });
  }
  // Counted for `/metrics` (metrics.ts): every request, by method and status code.
  const metrics = createMetrics(host, () => !!options.stopping?.());
  app.use("*", async (c, next) => {
    await next();
    metrics.request(c.req.method, c.res.status);
  });
  // A stopping replica takes no new work while what runs ends and is recorded (docs/deployment.md
  // "Stopping a replica"); `/healthz` says so, so a load balancer sends requests elsewhere.
  app.use("*", async (c, next) => {
    if (!options.stopping?.()) return next();
    c.header("Connection", "close");
    c.header("Retry-After", "1");
    if (c.req.path === "/healthz" || c.req.path === "/readyz") return c.json({ ok: false, stopping: true }, 503);
    return c.json({ error: { code: "unavailable", message: "this replica is stopping: it lets the shell calls in flight end and takes no new requests; send the request to another replica, or again once it has restarted", retryable: true } }, 503);
  });
  app.use("*", bodyLimit({ maxSize: options.maxBodyBytes, onError: (c) => c.json({ error: { code: "payload_too_large", message: `the body is larger than ${options.maxBodyBytes} bytes` } }, 413) }));
  // Wrong tokens slow their sender down (token-guard.ts), on every door: the API, webhooks, the console.
  const guard = options.guard ?? new TokenGuard();
  const transport = { tls: !!options.tls, trustProxy: !!options.trustProxy };
  const from = (c: Context) => clientAddress(c, transport);
  const requireToken = (c: Context) => {
    const token = bearer(c);
    if (!token || !options.tokens.length || !guardedCheck(c, guard, from(c), () => tokenMatches(token, options.tokens))) {
      c.header("WWW-Authenticate", 'Bearer realm="toolshell"');
      throw new ApiError(401, "unauthorized", "send Authorization: Bearer <token> with a configured API token");
    }
  };
  app.use("/v1/*", async (c, next) => {
    if (!c.req.path.startsWith("/v1/webhooks/")) requireToken(c);
    return next();
  });
  // The change log (changes.ts): each change made through the API or the console, with who and how.
  app.use("/v1/*", async (c, next) => {
    await next();
    if (c.res.status >= 400 || c.req.method === "GET") return;
    let name: string | undefined;
    let patch: Record<string, unknown> | undefined;
    try {
      const b = JSON.parse(await c.req.text()) as { name?: unknown; id?: unknown };
      name = typeof b.name === "string" ? b.name : typeof b.id === "string" ? b.id : undefined;
      if (c.req.method === "PATCH" && b && typeof b === "object" && !Array.isArray(b)) patch = b as Record<string, unknown>;
    } catch {}
    // A trigger named by its id (the console's forms) is logged by its name.
    const triggerId = /^\/v1\/agents\/[^/]+\/triggers\/(trg_[^/]+)/.exec(c.req.path)?.[1];
    const trigger = triggerId ? await store.getTrigger(triggerId).catch(() => undefined) : undefined;
    const what = describeChange(c.req.method, c.req.path, name, patch, (id) => (trigger && id === trigger.id ? trigger.name : undefined));
    if (!what) return;
    try {
      const log = host.session(CHANGES_SESSION, { client: "toolshell" });
      await log.ready;
      const { session_id: _s, at: _a, ...event } = changeEvent(actorOf(c, options), { method: c.req.method, path: c.req.path, status: c.res.status, what, ...(store.holder ? { replica: store.holder } : {}) }) as Extract<SessionEvent, { type: "change.made" }>;
      log.emit(event);
    } catch {}
  });

  app.get("/healthz", async (c) => c.json({ ok: true }));
  // Ready for work: not stopping (above) and the store answers (docs/deployment.md "Health, readiness and metrics").
  app.get("/readyz", async (c) => {
    const answered = await storeAnswers(host);
    // Open, so it says what, not where or why (the log's store.lost line does).
    return answered.ok ? c.json({ ok: true }) : c.json({ ok: false, store: `the store did not answer within ${STORE_CHECK_MS} ms` }, 503);
  });
  // What this replica did and holds, for Prometheus (metrics.ts); an operator's token, as the replicas list.
  app.get("/metrics", async (c) => {
    requireToken(c);
    requireOperator(c, options, "GET /metrics (this replica's metrics)");
    const { body, contentType } = await metrics.text();
    return c.body(body, 200, { "content-type": contentType });
  });
  app.get("/openapi.json", async (c) => c.json(openApiDocument()));
  // The console (pages at `/`, signed in with the same tokens through a cookie): console/routes.tsx.
  // The console is the deployment's people's: only operator tokens sign in (docs/security.md "Who acts for whom").
  const operatorTokens = options.tokens.filter((_, i) => roleAt(i, options) === "operator");
  // One live hub for the console's pages and the API's event streams (console/live.ts).
  const hub = new LiveHub(host, async () => (await questions.pending()).map((q) => q.question_id));
  app.route("/", createConsole(host, { tokens: operatorTokens, api: app, transport, guard, questions, hub }));
  // What the host runs (its MCP servers) changes only with an operator token.
  app.on(["POST", "PUT", "DELETE", "PATCH"], ["/v1/servers", "/v1/servers/*"], async (c, next) => {
    requireOperator(c, options, `${c.req.method} ${c.req.path} (changing what the host runs)`);
    return next();
  });
  app.get("/v1/replicas", async (c, next) => {
    requireOperator(c, options, "GET /v1/replicas (the deployment's processes and machines)");
    return next();
  });
  app.route("/", serversRoutes(host));

  // ── sessions ────────────────────────────────────────────────────────────────
  const sessionOr404 = async (sid: string) => {
    const rec = await store.getSession(id(sid, "session id"));
    if (!rec) throw new ApiError(404, "not_found", `no session ${sid}`);
    return rec;
  };
  // One rule for every `/v1/sessions/{id}…` route: an agent's token reaches only its own principal's sessions (http.ts mayReach).
  const reach = async (c: Context, next: () => Promise<void>) => {
    const rec = await store.getSession(id(c.req.param("id"), "session id"));
    if (rec && !mayReach(c, options, principalOf(rec.metadata))) {
      throw new ApiError(403, "forbidden", `session ${rec.id} acts for principal ${JSON.stringify(principalOf(rec.metadata))}; this API token acts for ${JSON.stringify(principalOfToken(c, options))} and cannot reach it`);
    }
    return next();
  };
  app.use("/v1/sessions/:id", reach);
  app.use("/v1/sessions/:id/*", reach);
  /** Routes under `/v1/sessions/{id}` checked reach (`mayReach`) above: they open the session for its owner. */
  const REACHED = { anyOwner: true };
  /** Whether the request may reach a session, by its id (for lists). */
  const reachable = async (c: Context, sid: string) => {
    const rec = await store.getSession(sid);
    return !!rec && mayReach(c, options, principalOf(rec.metadata));
  };

  app.post("/v1/sessions", async (c) => {
    const b = await body(c, ["id", "agent_id", "metadata"]);
    const sid = b.id === undefined ? `ses_${randomUUID().replace(/-/g, "").slice(0, 20)}` : id(str(b, "id"), "id");
    // Who the session acts for comes from the token that creates it, never from what it sends.
    const principal = principalOfToken(c, options);
    // An agent token serves its own agent only (its saved scripts act for it; requireReach, as on
    // `/v1/agents/{id}/…`); an operator's may serve any agent (docs/security.md "Who acts for whom").
    const own = roleOf(c, options) === "operator" ? DEFAULT_AGENT : principal;
    const agent = b.agent_id === undefined ? own : id(str(b, "agent_id"), "agent_id");
    requireReach(c, options, principalOf({ agent_id: agent }), `agent ${agent}`);
    const metadata = b.metadata ?? {};
    if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)) throw new ApiError(400, "invalid_request", '"metadata" must be an object');
    // Kept with the session and sent with every list of sessions: small, as labels are.
    if (Buffer.byteLength(JSON.stringify(metadata)) > MAX_METADATA_BYTES) throw new ApiError(400, "invalid_request", `"metadata" is at most ${MAX_METADATA_BYTES} bytes as JSON`);
    const reserved = reservedSession(sid);
    if (reserved) throw new ApiError(409, "conflict", `session id ${sid} is reserved for ${reserved}`);
    const given = metadata as Record<string, unknown>;
    if (given.principal !== undefined && given.principal !== principal) {
      throw new ApiError(403, "forbidden", `a session acts for the principal of the API token that creates it (${principal}): "metadata.principal" cannot name another`);
    }
    const claimed = RESERVED_METADATA.find((k) => k in given);
    if (claimed) throw new ApiError(400, "invalid_request", `"metadata.${claimed}" is set by toolshell, not by a client`);
    if (await store.getSession(sid)) throw new ApiError(409, "conflict", `session ${sid} exists`);
    // The client is the token that created the session, by its name (never the token itself).
    const client = `api:${actorOf(c, options).by}`;
    // These go last: metadata a caller sends cannot claim another client (cli:…, trigger:…) or principal.
    const session = host.session(sid, { ...given, client, agent_id: agent, principal });
    await session.ready;
    // 201 only for a session the store holds: a failed write (logged as store.failed) is an error.
    const rec = await store.getSession(sid);
    if (!rec) throw new ApiError(500, "store_failed", `session ${sid} could not be stored (see the server log's store.failed); nothing was created`);
    return c.json(rec, 201);
  });

  app.get("/v1/sessions", async (c) => {
    const agent = c.req.query("agent_id");
    const limit = Number(c.req.query("limit") ?? 100);
    const n = Number.isInteger(limit) && limit > 0 ? Math.min(limit, 1000) : 100;
    // An agent's token lists its own principal's sessions only (mayReach).
    const operator = roleOf(c, options) === "operator";
    const listed = await store.listSessions({ agentId: agent, limit: n, ...(operator ? {} : { principal: principalOfToken(c, options) }) });
    // A session with a step its stopped replica left running says so (steps.ts).
    const gone = await goneStepsBySession(store);
    return c.json({ sessions: listed.map((r) => (gone.has(r.id) ? { ...r, steps_replica_gone: gone.get(r.id) } : r)) });
  });

  app.get("/v1/sessions/:id", async (c) => {
    const rec = await sessionOr404(c.req.param("id"));
    return c.json({ ...rec, pending_approvals: (await host.session(rec.id, {}, REACHED).pendingApprovals()).length });
  });

  app.post("/v1/sessions/:id/bash", async (c) => {
    const rec = await sessionOr404(c.req.param("id"));
    const b = await body(c, ["script", "stdin", "step_id", "timeout_ms"]);
    const script = str(b, "script", true);
    const stdin = str(b, "stdin");
    const stepId = b.step_id === undefined ? undefined : stepIdOf(str(b, "step_id") ?? "");
    let timeoutMs: number | undefined;
    if (b.timeout_ms !== undefined) {
      if (typeof b.timeout_ms !== "number" || !Number.isInteger(b.timeout_ms) || b.timeout_ms < 100) throw new ApiError(400, "invalid_request", '"timeout_ms" must be a whole number of milliseconds, at least 100');
      timeoutMs = Math.min(b.timeout_ms, host.shell.timeoutMs);
    }
    // A shell call uses the session's principal's sign-ins: only that principal's token runs one.
    const caller = principalOfToken(c, options);
    const owner = principalOf(rec.metadata);
    if (owner !== caller) throw new ApiError(403, "forbidden", `session ${rec.id} acts for principal ${JSON.stringify(owner)}; this API token acts for ${JSON.stringify(caller)} and cannot run shell calls in it`);
    const session = host.session(rec.id, {}, REACHED);
    // Not tied to the request: a client that goes away does not abort the shell call, and asking
    // again with the same step_id returns its recorded result.
    const result = await sessionTurns.run(rec.id, () => session.bash(script, { stdin, stepId, timeoutMs, person: questions.person() }));
    return c.json(result);
  });

  // `Accept: text/event-stream`: the events pushed as they are written (event-stream.ts).
  mountEventStream(app, host, hub, sessionOr404);
  app.get("/v1/sessions/:id/events", async (c) => {
    const rec = await sessionOr404(c.req.param("id"));
    const after = Number(c.req.query("after") ?? 0);
    const limit = Number(c.req.query("limit") ?? 1000);
    if (!Number.isInteger(after) || after < 0 || !Number.isInteger(limit) || limit < 1) throw new ApiError(400, "invalid_request", "after and limit must be whole numbers (after ≥ 0, limit ≥ 1)");
    const events = await store.listEvents(rec.id, { after, limit: Math.min(limit, 10_000) });
    return c.json({ events, next_after: events.length ? events[events.length - 1].seq : after });
  });

  app.get("/v1/sessions/:id/steps", async (c) => {
    const rec = await sessionOr404(c.req.param("id"));
    return c.json({ steps: await sessionSteps(store, rec.id) });
  });

  // ── approvals ───────────────────────────────────────────────────────────────
  app.get("/v1/sessions/:id/tool-approvals", async (c) => {
    const rec = await sessionOr404(c.req.param("id"));
    return c.json({ pending: withDisplay(await host.session(rec.id, {}, REACHED).pendingApprovals()) });
  });

  app.post("/v1/sessions/:id/tool-approvals", async (c) => {
    const rec = await sessionOr404(c.req.param("id"));
    const b = await body(c, ["decisions"]);
    if (!Array.isArray(b.decisions) || b.decisions.length === 0) throw new ApiError(400, "invalid_request", '"decisions" must be a non-empty array of {tool_call_id, decision}');
    const session = host.session(rec.id, {}, REACHED);
    const pending = await session.pendingApprovals();
    const book = await store.approvalBook(rec.id);
    // Check every decision before applying any: a bad one changes nothing.
    const plan = b.decisions.map((d: unknown, i: number) => {
      if (typeof d !== "object" || d === null) throw new ApiError(400, "invalid_request", `decisions[${i}] must be an object`);
      const x = d as Record<string, unknown>;
      const key = str(x, "tool_call_id") ?? str(x, "request_id");
      if (!key) throw new ApiError(400, "invalid_request", `decisions[${i}].tool_call_id is required`);
      const decision = str(x, "decision", true);
      if (!DECISIONS.has(decision)) throw new ApiError(400, "invalid_request", `decisions[${i}].decision must be allow, allow_always, reject or reject_always`);
      const byCallId = pending.filter((r) => r.tool_call_id === key);
      if (byCallId.length > 1) throw new ApiError(409, "conflict", `tool_call_id ${key} names ${byCallId.length} pending requests in session ${rec.id}; answer by request_id`);
      const req = pending.find((r) => r.id === key) ?? byCallId[0];
      if (!req) {
        // Answered meanwhile (another person, another replica): say how and by whom.
        const answered = book.get(key) ?? book.snapshot().requests.filter((r) => r.tool_call_id === key).pop();
        if (answered?.status === "answered") throw new ApiError(409, "conflict", new AnsweredError(answered).message);
        throw new ApiError(404, "not_found", `no pending approval request with tool_call_id or id ${key} in session ${rec.id}`);
      }
      return { key, req, decision: decision as Decision };
    });
    const ids = new Set<string>();
    for (const p of plan) {
      if (ids.has(p.req.id)) throw new ApiError(400, "invalid_request", `two decisions answer request ${p.req.id}`);
      ids.add(p.req.id);
    }
    const results = [];
    const actor = actorOf(c, options);
    for (const p of plan) {
      // Answered meanwhile (another person, another replica): a conflict, not a server fault.
      const { answered } = await answerAsShown(host, session, p.req, p.decision, actor).catch((err: unknown) => {
        throw err instanceof AnsweredError ? new ApiError(409, "conflict", err.message) : err;
      });
      results.push({ tool_call_id: answered.tool_call_id, request_id: answered.id, tool: answered.tool, decision: answered.decision, status: answered.status });
    }
    return c.json({ results, pending: withDisplay(await session.pendingApprovals()) });
  });

  // Each request with `card`: what a person needs to answer it (approval-card.ts).
  app.get("/v1/approvals", async (c) => {
    const all = await store.pendingApprovals({ agentId: c.req.query("agent_id") });
    const shown = await Promise.all(all.map((r) => reachable(c, r.session_id)));
    const pending = withDisplay(all.filter((_, i) => shown[i]));
    const reader = new ApprovalDetailsReader(host);
    return c.json({ pending: await Promise.all(pending.map(async (r) => ({ ...r, card: await reader.read(r) }))) });
  });

  // OAuth sign-ins to MCP servers (README "Sign-in"): what waits for a person, and each state. No token is ever listed.
  app.get("/v1/sign-ins", async (c) => {
    // An agent's token sees its own principal's sign-ins only.
    const principal = roleOf(c, options) === "operator" ? c.req.query("principal") : principalOfToken(c, options);
    const { listSignIns, DEFAULT_PRINCIPAL } = await import("../mcp/auth/index.js");
    const oauth = host.shell.oauth;
    const states = (await listSignIns(host.config.servers, principal ?? DEFAULT_PRINCIPAL, oauth)).filter((s) => principal === undefined || s.principal === principal);
    return c.json({ pending: oauth.broker.pending(principal === undefined ? {} : { principal }), sign_ins: states });
  });

  mountQuestionRoutes(app, questions, sessionOr404, reachable);
  mountAgentRoutes(app, host, { ...options, guard, from });

  app.all("/v1/*", (c) => {
    throw new ApiError(404, "not_found", `no route ${c.req.method} ${c.req.path}`);
  });
  return app;
}
