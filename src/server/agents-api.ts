/**
 * The HTTP API's routes for an agent's saved scripts and triggers, and the webhooks that run
 * triggers (docs/sessions.md "HTTP API"). Mounted by `createApp` (app.ts).
 */
import type { Context, Hono } from "hono";
import { parseTriggerSpec } from "../config/index.js";
import { checkScriptInput, scriptName } from "../scripts/index.js";
import type { Host } from "./host.js";
import { principalOf } from "../mcp/index.js";
import { actorOf, ApiError, bearer, body, fromToolError, guardedCheck, id, mayReach, principalOfToken, requireReach, tokenMatches, type AppOptions } from "./http.js";
import type { TokenGuard } from "./token-guard.js";
import { findAgentTrigger, patchTriggerSpec, publicTrigger, sameSecret, secretHash, TriggerService } from "./triggers.js";

/** Adds the saved-script, trigger and webhook routes to `app`. */
/** Who saved a script version through the API: the token's name and the surface (`bob (console)`). */
function savedBy(c: Context, options: AppOptions): string {
  const a = actorOf(c, options);
  return `${a.by} (${a.surface})`;
}

export function mountAgentRoutes(app: Hono, host: Host, options: AppOptions & { guard: TokenGuard; from: (c: Context) => string }): void {
  const { store } = host;
  // ── saved scripts ───────────────────────────────────────────────────────────
  // An agent's scripts and triggers act for the principal its id names (principalOf): an agent
  // token reaches only its own, an operator's every agent's (http.ts mayReach, as for sessions).
  const agentParam = (c: Context): string => {
    const agent = id(c.req.param("agent_id"), "agent_id");
    requireReach(c, options, principalOf({ agent_id: agent }), `agent ${agent}`);
    return agent;
  };
  const scriptOr404 = async (agent: string, key: string, version?: number) => {
    const s = await store.getScript(agent, key, { version }) ?? (safeName(key) ? await store.getScript(agent, safeName(key)!, { version }) : undefined);
    if (!s) throw new ApiError(404, "not_found", `no script ${key}${version ? ` version ${version}` : ""} for agent ${agent}`);
    return s;
  };

  app.get("/v1/agents/:agent_id/scripts", async (c) => {
    const include = /^(1|true|yes)$/i.test(c.req.query("include_archived") ?? "");
    return c.json({ scripts: await store.listScripts(agentParam(c), { includeArchived: include }) });
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
    if (await store.getScript(agent, checked.name)) throw new ApiError(409, "conflict", `script ${checked.name} exists; PUT /v1/agents/${agent}/scripts/${checked.name} saves a new version`);
    const saved = await store.saveScript(agent, { ...checked, created_by: savedBy(c, options) });
    const warning = await host.triggers.unvouchedTriggers(saved);
    return c.json({ ...saved, ...(warning ? { warning } : {}) }, 201);
  });

  app.get("/v1/agents/:agent_id/scripts/:script_id", async (c) => {
    const v = c.req.query("version");
    const version = v === undefined ? undefined : Number(v);
    if (version !== undefined && (!Number.isInteger(version) || version < 1)) throw new ApiError(400, "invalid_request", "version must be a whole number ≥ 1");
    return c.json(await scriptOr404(agentParam(c), c.req.param("script_id"), version));
  });

  app.get("/v1/agents/:agent_id/scripts/:script_id/versions", async (c) => {
    const agent = agentParam(c);
    const s = await scriptOr404(agent, c.req.param("script_id"));
    return c.json({ versions: await store.scriptVersions(agent, s.id) });
  });

  const saveVersion = async (c: Context, partial: boolean) => {
    const agent = agentParam(c);
    const key = c.req.param("script_id") ?? "";
    const b = await body(c);
    const cur = await store.getScript(agent, key) ?? (safeName(key) ? await store.getScript(agent, safeName(key)!) : undefined);
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
      result = await store.saveScript(agent, { ...checked, created_by: savedBy(c, options) });
    }
    if (b.archived !== undefined) {
      if (typeof b.archived !== "boolean") throw new ApiError(400, "invalid_request", '"archived" must be true or false');
      result = await store.setScriptArchived(agent, result!.id, b.archived);
    }
    // A new version that triggers acting for another principal will refuse says so.
    const warning = (content || !partial) && result && !result.archived ? await host.triggers.unvouchedTriggers(result) : undefined;
    return c.json({ ...result, ...(warning ? { warning } : {}) }, cur ? 200 : 201);
  };
  app.put("/v1/agents/:agent_id/scripts/:script_id", async (c) => saveVersion(c, false));
  app.patch("/v1/agents/:agent_id/scripts/:script_id", async (c) => saveVersion(c, true));

  app.delete("/v1/agents/:agent_id/scripts/:script_id", async (c) => {
    const agent = agentParam(c);
    const s = await scriptOr404(agent, c.req.param("script_id"));
    return c.json(await store.setScriptArchived(agent, s.id, true));
  });

  // ── triggers ────────────────────────────────────────────────────────────────
  const triggerOr404 = async (c: Context, agent: string, key: string) => {
    const t = await findAgentTrigger(store, agent, key);
    if (!t) throw new ApiError(404, "not_found", `no trigger ${key} for agent ${agent}`);
    requireReach(c, options, principalOf({ principal: t.principal, agent_id: t.agent_id }), `trigger ${t.name}`);
    return t;
  };
  const spec = (b: Record<string, unknown>, where: string) => {
    try {
      return parseTriggerSpec(b, where);
    } catch (err) {
      throw new ApiError(400, "invalid_request", (err as Error).message);
    }
  };

  app.get("/v1/agents/:agent_id/triggers", async (c) => c.json({ triggers: (await store.listTriggers({ agentId: agentParam(c) })).filter((t) => mayReach(c, options, principalOf({ principal: t.principal, agent_id: t.agent_id }))).map(publicTrigger) }));

  app.post("/v1/agents/:agent_id/triggers", async (c) => {
    const agent = agentParam(c);
    const s = spec(await body(c), "trigger");
    if (await store.findTrigger(agent, s.name)) throw new ApiError(409, "conflict", `a trigger named ${s.name} exists`);
    // The trigger acts for the principal of the token that creates it (http.ts principalOfToken).
    const { trigger, secret } = await host.triggers.create(agent, s, { principal: principalOfToken(c, options) });
    const warning = await host.triggers.scriptWarning(trigger);
    return c.json({ ...publicTrigger(trigger), ...(secret ? { secret, webhook_url: `/v1/webhooks/${trigger.id}` } : {}), ...(warning ? { warning } : {}) }, 201);
  });

  app.get("/v1/agents/:agent_id/triggers/:trigger_id", async (c) => c.json(publicTrigger(await triggerOr404(c, agentParam(c), c.req.param("trigger_id")))));

  app.patch("/v1/agents/:agent_id/triggers/:trigger_id", async (c) => {
    const agent = agentParam(c);
    const cur = await triggerOr404(c, agent, c.req.param("trigger_id"));
    const b = await body(c);
    let next;
    try {
      next = patchTriggerSpec(cur, b);
    } catch (err) {
      throw new ApiError(400, "invalid_request", (err as Error).message);
    }
    // Turning a trigger on or off changes nothing it does: it keeps who it acts for (triggers.ts).
    const vouch = Object.keys(b).some((k) => k !== "enabled");
    const updated = (await host.triggers.update(cur.id, next, { principal: principalOfToken(c, options), vouch }))!;
    const warning = await host.triggers.scriptWarning(updated);
    return c.json({ ...publicTrigger(updated), ...(warning ? { warning } : {}) });
  });

  app.delete("/v1/agents/:agent_id/triggers/:trigger_id", async (c) => {
    const t = await triggerOr404(c, agentParam(c), c.req.param("trigger_id"));
    await host.triggers.delete(t.id);
    return c.json({ deleted: t.id });
  });

  app.post("/v1/agents/:agent_id/triggers/:trigger_id/run", async (c) => {
    const t = await triggerOr404(c, agentParam(c), c.req.param("trigger_id"));
    const b = await body(c);
    const run = await host.triggers.run(t.id, "manual", b.payload ?? {});
    return c.json(run, 201);
  });

  app.get("/v1/agents/:agent_id/triggers/:trigger_id/runs", async (c) => {
    const t = await triggerOr404(c, agentParam(c), c.req.param("trigger_id"));
    const limit = Number(c.req.query("limit") ?? 100);
    return c.json({ runs: await store.listTriggerRuns(t.id, { limit: Number.isInteger(limit) && limit > 0 ? limit : 100 }) });
  });

  app.get("/v1/agents/:agent_id/triggers/:trigger_id/runs/:run_id", async (c) => {
    const t = await triggerOr404(c, agentParam(c), c.req.param("trigger_id"));
    const run = await store.getTriggerRun(c.req.param("run_id"));
    if (!run || run.trigger_id !== t.id) throw new ApiError(404, "not_found", `no run ${c.req.param("run_id")} of trigger ${t.id}`);
    return c.json(run);
  });

  // ── webhooks ────────────────────────────────────────────────────────────────
  app.post("/v1/webhooks/:trigger_id", async (c) => {
    const t = await store.getTrigger(c.req.param("trigger_id"));
    const presented = bearer(c) ?? c.req.header("x-toolshell-secret") ?? "";
    let bySecret = false;
    let byToken = false;
    // A wrong secret slows its sender down like a wrong API token (token-guard.ts).
    if (presented)
      guardedCheck(c, options.guard, options.from(c), () => {
        bySecret = !!t?.secret_hash && sameSecret(secretHash(presented), t.secret_hash);
        byToken = options.tokens.length > 0 && tokenMatches(presented, options.tokens);
        return bySecret || byToken;
      });
    if (!bySecret && !byToken) throw new ApiError(401, "unauthorized", presented ? "the secret sent is not this trigger's secret (nor an API token)" : "send the trigger's secret as Authorization: Bearer <secret> (or X-Toolshell-Secret)");
    if (!t || t.kind !== "webhook") throw new ApiError(404, "not_found", `no webhook trigger ${c.req.param("trigger_id")}`);
    // An API token (not the trigger's secret) reaches the trigger as on every other trigger route.
    if (byToken && !bySecret) requireReach(c, options, principalOf({ principal: t.principal, agent_id: t.agent_id }), `trigger ${t.name}`);
    if (!t.enabled) throw new ApiError(409, "conflict", `trigger ${t.name} is disabled`);
    const payload = await body(c);
    if (/^(1|true|yes)$/i.test(c.req.query("wait") ?? "")) {
      // The finished run holds the script's output and stop report: only for an API token, or a
      // trigger that says webhook_wait (docs/sessions.md → Triggers).
      if (!byToken && !t.webhook_wait) throw new ApiError(403, "forbidden", `trigger ${t.name} does not return its run to webhook callers (webhook_wait is off); drop ?wait=true for 202 and a run id, or set "webhook_wait": true on the trigger`);
      return c.json(await host.triggers.run(t.id, "webhook", payload), 200);
    }
    const runId = TriggerService.newRunId();
    await host.triggers.deliver(t.id, payload, runId);
    return c.json({ run_id: runId, trigger_id: t.id, status: "accepted" }, 202);
  });
}

function safeName(key: string): string | undefined {
  try {
    return scriptName(key);
  } catch {
    return undefined;
  }
}
