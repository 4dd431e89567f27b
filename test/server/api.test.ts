/**
 * The HTTP API on a real server on 127.0.0.1: auth, errors, limits, sessions and shell calls,
 * events, approvals, scripts, triggers, webhooks, the OpenAPI document.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { always, defineTool } from "../../src/index.js";
import { openHost, startApi, type Host, type RunningApi } from "../../src/server/index.js";
import { apiCaller } from "../fixtures/api-call.js";
import { eventually } from "../fixtures/eventually.js";

const TOKEN = "test-token-0123456789abcdef";
let dir: string;
let host: Host;
let api: RunningApi;
let dangerRuns = 0;

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "toolshell-api-"));
  host = await openHost({
    store: path.join(dir, "state.db"),
    config: { manageScripts: false, server: { tokens: [TOKEN], maxBodyBytes: 8192 } },
    tools: {
      counter: defineTool({
        description: "Returns n.",
        hints: { destructive: false, openWorld: false },
        inputSchema: { type: "object", properties: { n: { type: "number" } } },
        execute: ({ n }) => ({ n }),
      }),
      danger: defineTool({
        description: "Needs a person.",
        inputSchema: { type: "object", properties: { x: { type: "number" } } },
        approval: always(),
        execute: ({ x }) => {
          dangerRuns++;
          return { x };
        },
      }),
    },
  });
  api = await startApi(host, { host: "127.0.0.1", port: 0 });
});
after(async () => {
  await api.close();
  await host.close();
  rmSync(dir, { recursive: true, force: true });
});

const call = apiCaller(() => api.url, TOKEN);

function isError(json: any, code: string): void {
  assert.equal(typeof json?.error?.message, "string", JSON.stringify(json));
  assert.equal(json.error.code, code, JSON.stringify(json));
}

test("without the right bearer token every /v1 route answers 401; the OpenAPI document is open", async () => {
  const none = await call("GET", "/v1/sessions", undefined, {});
  assert.equal(none.status, 401);
  isError(none.json, "unauthorized");
  assert.match(none.headers.get("www-authenticate") ?? "", /Bearer/);
  const wrong = await call("GET", "/v1/sessions", undefined, { authorization: `Bearer ${TOKEN}x` });
  assert.equal(wrong.status, 401);
  const basic = await call("POST", "/v1/sessions/x/bash", { script: "echo" }, { authorization: `Basic ${TOKEN}` });
  assert.equal(basic.status, 401);
  const doc = await call("GET", "/openapi.json", undefined, {});
  assert.equal(doc.status, 200);
  assert.equal(doc.json.openapi, "3.1.0");
  for (const p of ["/v1/sessions", "/v1/sessions/{id}/bash", "/v1/sessions/{id}/events", "/v1/sessions/{id}/tool-approvals", "/v1/agents/{agent_id}/scripts", "/v1/agents/{agent_id}/scripts/{script_id}", "/v1/agents/{agent_id}/triggers", "/v1/agents/{agent_id}/triggers/{trigger_id}/run", "/v1/agents/{agent_id}/triggers/{trigger_id}/runs", "/v1/webhooks/{trigger_id}"]) {
    assert.ok(doc.json.paths[p], `missing ${p}`);
  }
  // Every door that takes a token or a secret is slowed down for wrong ones (token-guard.ts): its answers list 429.
  for (const [p, ops] of Object.entries(doc.json.paths as Record<string, Record<string, { security?: unknown[]; responses: Record<string, unknown> }>>)) {
    for (const [method, op] of Object.entries(ops)) {
      if (Array.isArray(op.security) && op.security.length === 0) continue;
      assert.ok(op.responses["429"], `${method.toUpperCase()} ${p} does not list 429`);
    }
  }
});

test("errors are JSON with proper statuses: bad JSON, wrong shape, too large, unknown ids and routes", async () => {
  const bad = await call("POST", "/v1/sessions", "{nope");
  assert.equal(bad.status, 400);
  isError(bad.json, "invalid_json");
  const arr = await call("POST", "/v1/sessions", [1]);
  assert.equal(arr.status, 400);
  isError(arr.json, "invalid_request");
  const big = await call("POST", "/v1/sessions", { metadata: { x: "y".repeat(10_000) } });
  assert.equal(big.status, 413);
  isError(big.json, "payload_too_large");
  const missing = await call("POST", "/v1/sessions/nobody/bash", { script: "echo hi" });
  assert.equal(missing.status, 404);
  isError(missing.json, "not_found");
  const route = await call("GET", "/v1/nothing-here");
  assert.equal(route.status, 404);
  isError(route.json, "not_found");
  const noScript = await call("POST", "/v1/sessions", { id: "shape" });
  assert.equal(noScript.status, 201);
  const r = await call("POST", "/v1/sessions/shape/bash", { stdin: "x" });
  assert.equal(r.status, 400);
  isError(r.json, "invalid_request");
  // A field the route does not take is refused naming it (a near miss is named too), not ignored.
  const typo = await call("POST", "/v1/sessions/shape/bash", { script: "echo hi", bogus: 1 });
  assert.equal(typo.status, 400);
  assert.match(typo.json.error.message, /the body's "bogus": unknown key \(known: script, stdin, step_id, timeout_ms\)/);
  const near = await call("POST", "/v1/sessions/shape/bash", { script: "echo hi", step_di: "s1" });
  assert.match(near.json.error.message, /did you mean "step_id"\?/);
  assert.equal((await call("POST", "/v1/sessions", { id: "shape2", agentid: "x" })).status, 400);
  // Control: the known fields run.
  assert.equal((await call("POST", "/v1/sessions/shape/bash", { script: "echo hi", timeout_ms: 5000 })).json.stdout, "hi\n");
});

test("sessions: create, run a shell call, read its events and steps; a step id returns the recorded result", async () => {
  const created = await call("POST", "/v1/sessions", { id: "s1", agent_id: "agent-a", metadata: { team: "x" } });
  assert.equal(created.status, 201);
  assert.equal(created.json.agent_id, "agent-a");
  assert.equal((await call("POST", "/v1/sessions", { id: "s1" })).status, 409);
  const run = await call("POST", "/v1/sessions/s1/bash", { script: "tools counter n=7; echo kept > f.txt", step_id: "step-1" });
  assert.equal(run.status, 200);
  assert.equal(run.json.exit_code, 0);
  assert.deepEqual(JSON.parse(run.json.stdout), { n: 7 });
  const again = await call("POST", "/v1/sessions/s1/bash", { script: "tools counter n=7; echo kept > f.txt", step_id: "step-1" });
  assert.deepEqual(again.json, run.json);
  const events = await call("GET", "/v1/sessions/s1/events");
  assert.equal(events.status, 200);
  const types = events.json.events.map((e: any) => e.type);
  assert.deepEqual(types, ["shell_call.started", "tool.nested_call", "shell_call.ended", "step.replayed"]);
  const nested = events.json.events[1];
  assert.equal(nested.parent_tool_call_id, run.json.tool_call_id);
  assert.equal(nested.call_id, `${run.json.tool_call_id}:tools:0:counter`);
  assert.equal(nested.status, "completed");
  const later = await call("GET", `/v1/sessions/s1/events?after=${events.json.events[1].seq}`);
  assert.deepEqual(later.json.events.map((e: any) => e.type), ["shell_call.ended", "step.replayed"]);
  const steps = await call("GET", "/v1/sessions/s1/steps");
  assert.deepEqual(steps.json.steps.map((s: any) => [s.step_id, s.status]), [["step-1", "completed"]]);
  for (const step of steps.json.steps) for (const key of Object.keys(step)) assert.match(key, /^[a-z0-9_]+$/, "snake_case like every other answer");
  const files = await call("POST", "/v1/sessions/s1/bash", { script: "cat f.txt" });
  assert.equal(files.json.stdout, "kept\n");
  const list = await call("GET", "/v1/sessions?agent_id=agent-a");
  assert.deepEqual(list.json.sessions.map((s: any) => s.id), ["s1"]);
});

test("approvals: pending requests are listed; decisions are checked before any is applied; an allowed call runs", async () => {
  await call("POST", "/v1/sessions", { id: "s2" });
  const stopped = await call("POST", "/v1/sessions/s2/bash", { script: "tools danger x=1" });
  assert.equal(stopped.json.exit_code, 1);
  assert.equal(stopped.json.tools.stopped.reason, "needs_approval");
  const pending = await call("GET", "/v1/sessions/s2/tool-approvals");
  assert.equal(pending.json.pending.length, 1);
  const req = pending.json.pending[0];
  const bad = await call("POST", "/v1/sessions/s2/tool-approvals", { decisions: [{ tool_call_id: req.tool_call_id, decision: "allow" }, { tool_call_id: req.tool_call_id, decision: "maybe" }] });
  assert.equal(bad.status, 400);
  isError(bad.json, "invalid_request");
  assert.equal((await call("GET", "/v1/sessions/s2/tool-approvals")).json.pending.length, 1);
  const unknown = await call("POST", "/v1/sessions/s2/tool-approvals", { decisions: [{ tool_call_id: "call_bash_9:tools:0:x", decision: "allow" }] });
  assert.equal(unknown.status, 404);
  const ok = await call("POST", "/v1/sessions/s2/tool-approvals", { decisions: [{ tool_call_id: req.tool_call_id, decision: "allow" }] });
  assert.equal(ok.status, 200);
  assert.deepEqual(ok.json.results.map((r: any) => [r.request_id, r.decision, r.status]), [[req.id, "allow", "answered"]]);
  assert.deepEqual(ok.json.pending, []);
  const all = await call("GET", "/v1/approvals");
  assert.ok(!all.json.pending.some((r: any) => r.id === req.id));
  const ran = await call("POST", "/v1/sessions/s2/bash", { script: "tools danger x=1" });
  assert.equal(ran.json.exit_code, 0, ran.json.stderr);
  assert.equal(dangerRuns, 1);
});

test("approvals: a request another process answered meanwhile: the second answer is told it conflicts (never a server error)", async () => {
  await call("POST", "/v1/sessions", { id: "race" });
  const stopped = await call("POST", "/v1/sessions/race/bash", { script: "tools danger x=100" });
  const id = stopped.json.tools.stopped.request_id;
  // Another host on the same store file (a CLI, another replica) answers first; this API's view
  // may still list the request as pending.
  const other = await openHost({ store: path.join(dir, "state.db"), config: {} });
  try {
    await other.session("race", {}, { anyOwner: true }).answer(id, "reject", { by: "alice", surface: "cli" });
  } finally {
    await other.close();
  }
  const late = await call("POST", "/v1/sessions/race/tool-approvals", { decisions: [{ request_id: id, decision: "allow" }] });
  // The second person is told how it was answered, by whom and when.
  assert.equal(late.status, 409, JSON.stringify(late.json));
  isError(late.json, "conflict");
  assert.match(late.json.error.message, /approval request apr_\w+ was already answered: reject by alice \(cli\) at \d{4}-/);
});

test("approvals: a tool_call_id answers only its own call, never an older stop of the same line", async () => {
  await call("POST", "/v1/sessions", { id: "s-two-stops" });
  const before = dangerRuns;
  const first = await call("POST", "/v1/sessions/s-two-stops/bash", { script: "tools danger x=5000" });
  const second = await call("POST", "/v1/sessions/s-two-stops/bash", { script: "tools danger x=5" });
  assert.equal(first.json.tools.stopped.reason, "needs_approval");
  assert.equal(second.json.tools.stopped.reason, "needs_approval");
  const pending = (await call("GET", "/v1/sessions/s-two-stops/tool-approvals")).json.pending as any[];
  assert.equal(pending.length, 2);
  assert.equal(new Set(pending.map((r) => r.tool_call_id)).size, 2, "each stop has its own tool_call_id");
  const small = pending.find((r) => r.id === second.json.tools.stopped.request_id);
  assert.deepEqual(small.input, { x: 5 });
  const ok = await call("POST", "/v1/sessions/s-two-stops/tool-approvals", { decisions: [{ tool_call_id: small.tool_call_id, decision: "allow" }] });
  assert.equal(ok.status, 200);
  assert.deepEqual(ok.json.results.map((r: any) => r.request_id), [small.id]);
  const big = await call("POST", "/v1/sessions/s-two-stops/bash", { script: "tools danger x=5000" });
  assert.equal(big.json.tools.stopped.reason, "needs_approval", "the older, larger call is still not approved");
  const ran = await call("POST", "/v1/sessions/s-two-stops/bash", { script: "tools danger x=5" });
  assert.equal(ran.json.exit_code, 0, ran.json.stderr);
  assert.equal(dangerRuns, before + 1);
});

test("scripts: create, read, new versions, archive, include_archived; a session of the agent runs it", async () => {
  const base = "/v1/agents/agent-a/scripts";
  const body = { name: "Double_It", description: "Doubles n.", input_schema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] }, body: "echo $(( $(jq .n) * 2 ))" };
  const created = await call("POST", base, body);
  assert.equal(created.status, 201);
  assert.equal(created.json.name, "double-it");
  assert.equal(created.json.version, 1);
  assert.equal((await call("POST", base, body)).status, 409);
  const invalid = await call("POST", base, { ...body, name: "other", input_schema: { type: "array" } });
  assert.equal(invalid.status, 400);
  isError(invalid.json, "invalid_input");
  const v2 = await call("PUT", `${base}/double-it`, { description: "Doubles n, v2.", body: "echo $(( $(jq .n) * 2 ))", input_schema: body.input_schema });
  assert.equal(v2.status, 200);
  assert.equal(v2.json.version, 2);
  assert.equal((await call("GET", `${base}/${created.json.id}?version=1`)).json.description, "Doubles n.");
  // Each version says who saved it: the token's name and the surface (one token, unnamed: token-1).
  assert.deepEqual((await call("GET", `${base}/double-it/versions`)).json.versions.map((v: any) => [v.version, v.created_by]), [[1, "token-1 (api)"], [2, "token-1 (api)"]]);
  assert.equal((await call("GET", "/v1/agents/agent-b/scripts/double-it")).status, 404);

  await call("POST", "/v1/sessions", { id: "s3", agent_id: "agent-a" });
  const run = await call("POST", "/v1/sessions/s3/bash", { script: "tools scripts double-it n=21" });
  assert.equal(run.json.stdout, "42\n", run.json.stderr);

  const archived = await call("DELETE", `${base}/double-it`);
  assert.equal(archived.json.archived, true);
  assert.deepEqual((await call("GET", base)).json.scripts, []);
  assert.deepEqual((await call("GET", `${base}?include_archived=true`)).json.scripts.map((s: any) => [s.name, s.archived]), [["double-it", true]]);
  const back = await call("PATCH", `${base}/double-it`, { archived: false });
  assert.equal(back.json.archived, false);
  assert.equal(back.json.version, 2);
});

test("triggers and webhooks: a secret per webhook, templates keep JSON types, runs are recorded", async () => {
  await call("PUT", "/v1/agents/agent-w/scripts/greet", {
    description: "Greets.",
    input_schema: { type: "object", properties: { who: { type: "string" }, n: { type: "number" }, tags: { type: "array" } }, required: ["who", "n"] },
    body: 'jq -c \'{who, n, tags, type: (.n | type)}\'',
  });
  const created = await call("POST", "/v1/agents/agent-w/triggers", { name: "on-push", webhook: true, webhook_wait: true, script: "greet", input: { who: "{{payload.user.name}} via hook", n: "{{payload.count}}", tags: "{{payload.tags}}" } });
  assert.equal(created.status, 201, JSON.stringify(created.json));
  const { id, secret, webhook_url } = created.json;
  assert.match(secret, /^whs_/);
  assert.equal(webhook_url, `/v1/webhooks/${id}`);
  const shown = await call("GET", `/v1/agents/agent-w/triggers/${id}`);
  assert.equal(shown.json.secret, undefined);
  assert.equal(shown.json.secret_hash, undefined);

  const payload = { user: { name: "ann" }, count: 3, tags: ["a", "b"] };
  assert.equal((await call("POST", `/v1/webhooks/${id}`, payload, {})).status, 401);
  const wrong = await call("POST", `/v1/webhooks/${id}`, payload, { authorization: "Bearer whs_wrong" });
  assert.equal(wrong.status, 401);
  assert.match(wrong.json.error.message, /the secret sent is not this trigger's secret/);
  const hook = await call("POST", `/v1/webhooks/${id}?wait=true`, payload, { authorization: `Bearer ${secret}` });
  assert.equal(hook.status, 200, JSON.stringify(hook.json));
  assert.equal(hook.json.status, "ok", JSON.stringify(hook.json));
  assert.deepEqual(JSON.parse(hook.json.result.stdout), { who: "ann via hook", n: 3, tags: ["a", "b"], type: "number" });
  const accepted = await call("POST", `/v1/webhooks/${id}`, { user: { name: "bo" }, count: 1 }, { "x-toolshell-secret": secret });
  assert.equal(accepted.status, 202);
  assert.match(accepted.json.run_id, /^run_/);
  // Accepted, then run once: its first start is not "ran again after its process ended mid-run".
  const ran = await eventually("the accepted delivery ran", async () => {
    const r = (await call("GET", `/v1/agents/agent-w/triggers/${id}/runs/${accepted.json.run_id}`)).json;
    return r.status === "ok" ? r : undefined;
  });
  assert.equal(ran.interrupted_at, undefined, JSON.stringify(ran));
  assert.equal(ran.queued, undefined, JSON.stringify(ran));

  const now = await call("POST", `/v1/agents/agent-w/triggers/on-push/run`, { payload: { user: { name: "cy" }, count: 2 } });
  assert.equal(now.status, 201);
  assert.equal(now.json.reason, "manual");
  assert.equal(now.json.status, "ok");
  const runs = await call("GET", `/v1/agents/agent-w/triggers/${id}/runs`);
  assert.ok(runs.json.runs.length >= 2);
  assert.ok(runs.json.runs.some((r: any) => r.id === accepted.json.run_id));
  const one = await call("GET", `/v1/agents/agent-w/triggers/${id}/runs/${hook.json.id}`);
  assert.equal(one.json.reason, "webhook");

  const disabled = await call("PATCH", `/v1/agents/agent-w/triggers/${id}`, { enabled: false });
  assert.equal(disabled.json.enabled, false);
  assert.equal((await call("POST", `/v1/webhooks/${id}`, payload, { authorization: `Bearer ${secret}` })).status, 409);
  const badCron = await call("POST", "/v1/agents/agent-w/triggers", { name: "bad", schedule: "61 * * * *", script: "greet" });
  assert.equal(badCron.status, 400);
  assert.equal((await call("DELETE", `/v1/agents/agent-w/triggers/${id}`)).status, 200);
  assert.equal((await call("GET", `/v1/agents/agent-w/triggers/${id}`)).status, 404);
});
