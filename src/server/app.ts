/**
 * The HTTP API of `toolshell serve` (Hono): JSON in and out, bearer tokens, errors as
 * `{"error":{"code","message"}}` with proper statuses, a request size limit. The OpenAPI
 * document (openapi.ts) lists every route below.
 *
 * Auth: every `/v1/*` route needs `Authorization: Bearer <token>` with one of the configured
 * tokens (compared in constant time), except `POST /v1/webhooks/{trigger_id}`, which takes the
 * trigger's own secret (or an API token). `/openapi.json` and `/healthz` are open.
 *
 * Rule source: issue 5 → HTTP API; seed "Tools in Shell" → Saved scripts (the
 * `/v1/agents/{agent_id}/scripts` API).
 */
import { createHash, randomUUID, timingSafeEqual } from "node:crypto";
import { Hono, type Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import { withDisplay, type Decision } from "../policy/index.js";
import type { StepRecord } from "../runtime/index.js";
import { checkScriptInput, scriptName } from "../scripts/index.js";
import { DEFAULT_AGENT } from "../store/index.js";
import { ToolCallError } from "../tool/index.js";
import { parseTriggerSpec } from "../config/index.js";
import { createConsole } from "./console/index.js";
import type { Host } from "./host.js";
import { openApiDocument } from "./openapi.js";
import { serversRoutes } from "./servers-api.js";
import { findAgentTrigger, patchTriggerSpec, publicTrigger, sameSecret, secretHash, TriggerService } from "./triggers.js";

/** An API error: HTTP status, a stable code, a message. */
export class ApiError extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 405 | 409 | 413 | 415 | 422 | 500 | 503,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Options of {@link createApp}. */
export interface AppOptions {
  /** Accepted bearer tokens. With none, every authenticated route answers 401. */
  tokens: string[];
  /** Largest request body in bytes. */
  maxBodyBytes: number;
}

const DECISIONS = new Set(["allow", "allow_always", "reject", "reject_always"]);
/** What an id in a path or body may be (session, agent, step): 1-128 letters, digits, `.`, `_`, `:`, `-`. */
export const ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/** A durable step as the API shows it: snake_case like every other answer (docs/sessions.md). */
function stepJson(s: StepRecord): Record<string, unknown> {
  return {
    session_id: s.sessionId,
    step_id: s.stepId,
    kind: s.kind,
    tool_call_id: s.toolCallId,
    request_hash: s.requestHash,
    request: s.request,
    status: s.status,
    attempt: s.attempt,
    result: s.result,
    request_id: s.requestId,
    started_at: s.startedAt,
    ended_at: s.endedAt,
  };
}

function digest(s: string): Buffer {
  return createHash("sha256").update(s, "utf8").digest();
}

/** True when `presented` equals one of `tokens`; every token is compared, in constant time each. */
export function tokenMatches(presented: string, tokens: readonly string[]): boolean {
  return tokenIndex(presented, tokens) >= 0;
}

/** The index of `presented` in `tokens` (-1 when absent); every token is compared, in constant time each. */
function tokenIndex(presented: string, tokens: readonly string[]): number {
  const p = digest(presented);
  let found = -1;
  tokens.forEach((t, i) => {
    if (timingSafeEqual(p, digest(t))) found = i;
  });
  return found;
}

function bearer(c: Context): string | undefined {
  const h = c.req.header("authorization") ?? "";
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m?.[1];
}

async function body(c: Context): Promise<Record<string, unknown>> {
  const type = c.req.header("content-type") ?? "";
  const text = await c.req.text();
  if (!text.trim()) return {};
  if (type && !/^application\/(.+\+)?json\b/i.test(type)) throw new ApiError(415, "unsupported_media_type", "send JSON (content-type: application/json)");
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (err) {
    throw new ApiError(400, "invalid_json", `the body is not JSON: ${(err as Error).message}`);
  }
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw new ApiError(400, "invalid_request", "the body must be a JSON object");
  return v as Record<string, unknown>;
}

function str(o: Record<string, unknown>, key: string, required: true): string;
function str(o: Record<string, unknown>, key: string, required?: false): string | undefined;
function str(o: Record<string, unknown>, key: string, required = false): string | undefined {
  const v = o[key];
  if (v === undefined || v === null) {
    if (required) throw new ApiError(400, "invalid_request", `"${key}" is required`);
    return undefined;
  }
  if (typeof v !== "string") throw new ApiError(400, "invalid_request", `"${key}" must be a string`);
  return v;
}

function id(v: string | undefined, what: string): string {
  if (!v || !ID.test(v)) throw new ApiError(400, "invalid_request", `${what} must be 1-128 letters, digits, ".", "_", ":" or "-"`);
  return v;
}

function fromToolError(err: unknown): never {
  if (err instanceof ApiError) throw err;
  if (err instanceof ToolCallError) throw new ApiError(err.code === "unknown_command" ? 404 : 400, err.code, err.message);
  throw new ApiError(400, "invalid_request", err instanceof Error ? err.message : String(err));
}

/**
 * The Hono app over a host. Shell calls of one session run one after another (requests for the
 * same session queue); different sessions run at once.
 */
export function createApp(host: Host, options: AppOptions): Hono {
  const app = new Hono();
  const { store } = host;
  const queues = new Map<string, Promise<unknown>>();
  const serial = <T>(key: string, fn: () => Promise<T>): Promise<T> => {
    const prev = queues.get(key) ?? Promise.resolve();
    const next = prev.catch(() => {}).then(fn);
    queues.set(key, next);
    void next.finally(() => {
      if (queues.get(key) === next) queues.delete(key);
    }).catch(() => {});
    return next;
  };

  app.onError((err, c) => {
    if (err instanceof ApiError) return c.json({ error: { code: err.code, message: err.message } }, err.status);
    return c.json({ error: { code: "internal", message: host.shell.redactor.text(err instanceof Error ? err.message : String(err)) } }, 500);
  });
  app.notFound((c) => c.json({ error: { code: "not_found", message: `no route ${c.req.method} ${c.req.path}` } }, 404));

  app.use("*", bodyLimit({ maxSize: options.maxBodyBytes, onError: (c) => c.json({ error: { code: "payload_too_large", message: `the body is larger than ${options.maxBodyBytes} bytes` } }, 413) }));
  app.use("/v1/*", async (c, next) => {
    if (c.req.path.startsWith("/v1/webhooks/")) return next();
    const token = bearer(c);
    if (!token || !options.tokens.length || !tokenMatches(token, options.tokens)) {
      c.header("WWW-Authenticate", 'Bearer realm="toolshell"');
      throw new ApiError(401, "unauthorized", "send Authorization: Bearer <token> with a configured API token");
    }
    return next();
  });

  app.get("/healthz", (c) => c.json({ ok: true }));
  app.get("/openapi.json", (c) => c.json(openApiDocument()));
  // The console (pages at `/`, signed in with the same tokens through a cookie): console/routes.tsx.
  app.route("/", createConsole(host, { tokens: options.tokens, api: app }));
  app.route("/", serversRoutes(host, { body, fail: (status, code, message) => new ApiError(status, code, message) }));

  // ── sessions ────────────────────────────────────────────────────────────────
  const sessionOr404 = (sid: string) => {
    const rec = store.getSession(id(sid, "session id"));
    if (!rec) throw new ApiError(404, "not_found", `no session ${sid}`);
    return rec;
  };

  app.post("/v1/sessions", async (c) => {
    const b = await body(c);
    const sid = b.id === undefined ? `ses_${randomUUID().replace(/-/g, "").slice(0, 20)}` : id(str(b, "id"), "id");
    const agent = b.agent_id === undefined ? DEFAULT_AGENT : id(str(b, "agent_id"), "agent_id");
    const metadata = b.metadata ?? {};
    if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)) throw new ApiError(400, "invalid_request", '"metadata" must be an object');
    if (store.getSession(sid)) throw new ApiError(409, "conflict", `session ${sid} exists`);
    // The client is the token that created the session, named by its place in the config (never the token itself).
    const client = `api:token-${tokenIndex(bearer(c) ?? "", options.tokens) + 1}`;
    const session = host.session(sid, { client, ...(metadata as Record<string, unknown>), agent_id: agent });
    await session.ready;
    return c.json(store.getSession(sid), 201);
  });

  app.get("/v1/sessions", (c) => {
    const agent = c.req.query("agent_id");
    const limit = Number(c.req.query("limit") ?? 100);
    return c.json({ sessions: store.listSessions({ agentId: agent, limit: Number.isInteger(limit) && limit > 0 ? Math.min(limit, 1000) : 100 }) });
  });

  app.get("/v1/sessions/:id", (c) => {
    const rec = sessionOr404(c.req.param("id"));
    return c.json({ ...rec, pending_approvals: host.session(rec.id).pendingApprovals().length });
  });

  app.post("/v1/sessions/:id/bash", async (c) => {
    const rec = sessionOr404(c.req.param("id"));
    const b = await body(c);
    const script = str(b, "script", true);
    const stdin = str(b, "stdin");
    const stepId = b.step_id === undefined ? undefined : id(str(b, "step_id"), "step_id");
    let timeoutMs: number | undefined;
    if (b.timeout_ms !== undefined) {
      if (typeof b.timeout_ms !== "number" || !Number.isInteger(b.timeout_ms) || b.timeout_ms < 100) throw new ApiError(400, "invalid_request", '"timeout_ms" must be a whole number of milliseconds, at least 100');
      timeoutMs = Math.min(b.timeout_ms, host.shell.timeoutMs);
    }
    const session = host.session(rec.id);
    // Not tied to the request: a client that goes away does not abort the shell call, and asking
    // again with the same step_id returns its recorded result.
    const result = await serial(rec.id, () => session.bash(script, { stdin, stepId, timeoutMs }));
    return c.json(result);
  });

  app.get("/v1/sessions/:id/events", (c) => {
    const rec = sessionOr404(c.req.param("id"));
    const after = Number(c.req.query("after") ?? 0);
    const limit = Number(c.req.query("limit") ?? 1000);
    if (!Number.isInteger(after) || after < 0 || !Number.isInteger(limit) || limit < 1) throw new ApiError(400, "invalid_request", "after and limit must be whole numbers (after ≥ 0, limit ≥ 1)");
    const events = store.listEvents(rec.id, { after, limit: Math.min(limit, 10_000) });
    return c.json({ events, next_after: events.length ? events[events.length - 1].seq : after });
  });

  app.get("/v1/sessions/:id/steps", (c) => {
    const rec = sessionOr404(c.req.param("id"));
    return c.json({ steps: store.listSteps(rec.id).map(stepJson) });
  });

  // ── approvals ───────────────────────────────────────────────────────────────
  app.get("/v1/sessions/:id/tool-approvals", (c) => {
    const rec = sessionOr404(c.req.param("id"));
    return c.json({ pending: withDisplay(host.session(rec.id).pendingApprovals()) });
  });

  app.post("/v1/sessions/:id/tool-approvals", async (c) => {
    const rec = sessionOr404(c.req.param("id"));
    const b = await body(c);
    if (!Array.isArray(b.decisions) || b.decisions.length === 0) throw new ApiError(400, "invalid_request", '"decisions" must be a non-empty array of {tool_call_id, decision}');
    const session = host.session(rec.id);
    const pending = session.pendingApprovals();
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
      if (!req) throw new ApiError(404, "not_found", `no pending approval request with tool_call_id or id ${key} in session ${rec.id}`);
      return { key, req, decision: decision as Decision };
    });
    const ids = new Set<string>();
    for (const p of plan) {
      if (ids.has(p.req.id)) throw new ApiError(400, "invalid_request", `two decisions answer request ${p.req.id}`);
      ids.add(p.req.id);
    }
    const results = plan.map((p) => {
      const answered = session.answer(p.req.id, p.decision);
      return { tool_call_id: answered.tool_call_id, request_id: answered.id, tool: answered.tool, decision: answered.decision, status: answered.status };
    });
    return c.json({ results, pending: withDisplay(session.pendingApprovals()) });
  });

  app.get("/v1/approvals", (c) => c.json({ pending: withDisplay(store.pendingApprovals({ agentId: c.req.query("agent_id") })) }));

  // OAuth sign-ins to MCP servers (README "Sign-in"): what waits for a person, and each state. No token is ever listed.
  app.get("/v1/sign-ins", async (c) => {
    const principal = c.req.query("principal");
    const { listSignIns, DEFAULT_PRINCIPAL } = await import("../mcp/auth/index.js");
    const oauth = host.shell.oauth;
    const states = listSignIns(host.config.servers, principal ?? DEFAULT_PRINCIPAL, oauth).filter((s) => principal === undefined || s.principal === principal);
    return c.json({ pending: oauth.broker.pending(principal === undefined ? {} : { principal }), sign_ins: states });
  });

  // ── saved scripts ───────────────────────────────────────────────────────────
  const agentParam = (c: Context): string => id(c.req.param("agent_id"), "agent_id");
  const scriptOr404 = (agent: string, key: string, version?: number) => {
    const s = store.getScript(agent, key, { version }) ?? (safeName(key) ? store.getScript(agent, safeName(key)!, { version }) : undefined);
    if (!s) throw new ApiError(404, "not_found", `no script ${key}${version ? ` version ${version}` : ""} for agent ${agent}`);
    return s;
  };

  app.get("/v1/agents/:agent_id/scripts", (c) => {
    const include = /^(1|true|yes)$/i.test(c.req.query("include_archived") ?? "");
    return c.json({ scripts: store.listScripts(agentParam(c), { includeArchived: include }) });
  });

  app.post("/v1/agents/:agent_id/scripts", async (c) => {
    const agent = agentParam(c);
    const b = await body(c);
    let checked;
    try {
      checked = checkScriptInput({ name: b.name, description: b.description, input_schema: b.input_schema, body: b.body });
    } catch (err) {
      fromToolError(err);
    }
    if (store.getScript(agent, checked.name)) throw new ApiError(409, "conflict", `script ${checked.name} exists; PUT /v1/agents/${agent}/scripts/${checked.name} saves a new version`);
    const saved = store.saveScript(agent, { ...checked, created_by: "api" });
    return c.json(saved, 201);
  });

  app.get("/v1/agents/:agent_id/scripts/:script_id", (c) => {
    const v = c.req.query("version");
    const version = v === undefined ? undefined : Number(v);
    if (version !== undefined && (!Number.isInteger(version) || version < 1)) throw new ApiError(400, "invalid_request", "version must be a whole number ≥ 1");
    return c.json(scriptOr404(agentParam(c), c.req.param("script_id"), version));
  });

  app.get("/v1/agents/:agent_id/scripts/:script_id/versions", (c) => {
    const agent = agentParam(c);
    const s = scriptOr404(agent, c.req.param("script_id"));
    return c.json({ versions: store.scriptVersions(agent, s.id) });
  });

  const saveVersion = async (c: Context, partial: boolean) => {
    const agent = agentParam(c);
    const key = c.req.param("script_id") ?? "";
    const b = await body(c);
    const cur = store.getScript(agent, key) ?? (safeName(key) ? store.getScript(agent, safeName(key)!) : undefined);
    if (!cur && partial) throw new ApiError(404, "not_found", `no script ${key} for agent ${agent}`);
    let result = cur;
    const content = ["description", "input_schema", "body"].some((k) => b[k] !== undefined);
    if (content || !partial) {
      let checked;
      try {
        checked = checkScriptInput({
          name: cur?.name ?? key,
          description: b.description ?? (partial ? cur?.description : undefined),
          input_schema: b.input_schema ?? (partial ? cur?.input_schema : undefined),
          body: b.body ?? (partial ? cur?.body : undefined),
        });
      } catch (err) {
        fromToolError(err);
      }
      result = store.saveScript(agent, { ...checked, created_by: "api" });
    }
    if (b.archived !== undefined) {
      if (typeof b.archived !== "boolean") throw new ApiError(400, "invalid_request", '"archived" must be true or false');
      result = store.setScriptArchived(agent, result!.id, b.archived);
    }
    return c.json(result, cur ? 200 : 201);
  };
  app.put("/v1/agents/:agent_id/scripts/:script_id", (c) => saveVersion(c, false));
  app.patch("/v1/agents/:agent_id/scripts/:script_id", (c) => saveVersion(c, true));

  app.delete("/v1/agents/:agent_id/scripts/:script_id", (c) => {
    const agent = agentParam(c);
    const s = scriptOr404(agent, c.req.param("script_id"));
    return c.json(store.setScriptArchived(agent, s.id, true));
  });

  // ── triggers ────────────────────────────────────────────────────────────────
  const triggerOr404 = (agent: string, key: string) => {
    const t = findAgentTrigger(store, agent, key);
    if (!t) throw new ApiError(404, "not_found", `no trigger ${key} for agent ${agent}`);
    return t;
  };
  const spec = (b: Record<string, unknown>, where: string) => {
    try {
      return parseTriggerSpec(b, where);
    } catch (err) {
      throw new ApiError(400, "invalid_request", (err as Error).message);
    }
  };

  app.get("/v1/agents/:agent_id/triggers", (c) => c.json({ triggers: store.listTriggers({ agentId: agentParam(c) }).map(publicTrigger) }));

  app.post("/v1/agents/:agent_id/triggers", async (c) => {
    const agent = agentParam(c);
    const s = spec(await body(c), "trigger");
    if (store.findTrigger(agent, s.name)) throw new ApiError(409, "conflict", `a trigger named ${s.name} exists`);
    const { trigger, secret } = host.triggers.create(agent, s);
    return c.json({ ...publicTrigger(trigger), ...(secret ? { secret, webhook_url: `/v1/webhooks/${trigger.id}` } : {}) }, 201);
  });

  app.get("/v1/agents/:agent_id/triggers/:trigger_id", (c) => c.json(publicTrigger(triggerOr404(agentParam(c), c.req.param("trigger_id")))));

  app.patch("/v1/agents/:agent_id/triggers/:trigger_id", async (c) => {
    const agent = agentParam(c);
    const cur = triggerOr404(agent, c.req.param("trigger_id"));
    const b = await body(c);
    let next;
    try {
      next = patchTriggerSpec(cur, b);
    } catch (err) {
      throw new ApiError(400, "invalid_request", (err as Error).message);
    }
    const updated = host.triggers.update(cur.id, next);
    return c.json(publicTrigger(updated!));
  });

  app.delete("/v1/agents/:agent_id/triggers/:trigger_id", (c) => {
    const t = triggerOr404(agentParam(c), c.req.param("trigger_id"));
    host.triggers.delete(t.id);
    return c.json({ deleted: t.id });
  });

  app.post("/v1/agents/:agent_id/triggers/:trigger_id/run", async (c) => {
    const t = triggerOr404(agentParam(c), c.req.param("trigger_id"));
    const b = await body(c);
    const run = await host.triggers.run(t.id, "manual", b.payload ?? {});
    return c.json(run, 201);
  });

  app.get("/v1/agents/:agent_id/triggers/:trigger_id/runs", (c) => {
    const t = triggerOr404(agentParam(c), c.req.param("trigger_id"));
    const limit = Number(c.req.query("limit") ?? 100);
    return c.json({ runs: store.listTriggerRuns(t.id, { limit: Number.isInteger(limit) && limit > 0 ? limit : 100 }) });
  });

  app.get("/v1/agents/:agent_id/triggers/:trigger_id/runs/:run_id", (c) => {
    const t = triggerOr404(agentParam(c), c.req.param("trigger_id"));
    const run = store.getTriggerRun(c.req.param("run_id"));
    if (!run || run.trigger_id !== t.id) throw new ApiError(404, "not_found", `no run ${c.req.param("run_id")} of trigger ${t.id}`);
    return c.json(run);
  });

  // ── webhooks ────────────────────────────────────────────────────────────────
  app.post("/v1/webhooks/:trigger_id", async (c) => {
    const t = store.getTrigger(c.req.param("trigger_id"));
    const presented = bearer(c) ?? c.req.header("x-toolshell-secret") ?? "";
    const bySecret = !!t?.secret_hash && !!presented && sameSecret(secretHash(presented), t.secret_hash);
    const byToken = !!presented && options.tokens.length > 0 && tokenMatches(presented, options.tokens);
    if (!bySecret && !byToken) throw new ApiError(401, "unauthorized", "send the trigger's secret as Authorization: Bearer <secret> (or X-Toolshell-Secret)");
    if (!t || t.kind !== "webhook") throw new ApiError(404, "not_found", `no webhook trigger ${c.req.param("trigger_id")}`);
    if (!t.enabled) throw new ApiError(409, "conflict", `trigger ${t.name} is disabled`);
    const payload = await body(c);
    if (/^(1|true|yes)$/i.test(c.req.query("wait") ?? "")) {
      // The finished run holds the script's output and stop report: only for an API token, or a
      // trigger that says webhook_wait (docs/sessions.md → Triggers).
      if (!byToken && !t.webhook_wait) throw new ApiError(403, "forbidden", `trigger ${t.name} does not return its run to webhook callers (webhook_wait is off); drop ?wait=true for 202 and a run id, or set "webhook_wait": true on the trigger`);
      return c.json(await host.triggers.run(t.id, "webhook", payload), 200);
    }
    const runId = TriggerService.newRunId();
    void host.triggers.run(t.id, "webhook", payload, runId).catch(() => {});
    return c.json({ run_id: runId, trigger_id: t.id, status: "accepted" }, 202);
  });

  app.all("/v1/*", (c) => {
    throw new ApiError(404, "not_found", `no route ${c.req.method} ${c.req.path}`);
  });
  return app;
}

function safeName(key: string): string | undefined {
  try {
    return scriptName(key);
  } catch {
    return undefined;
  }
}
