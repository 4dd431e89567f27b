/**
 * Every JSON body of the HTTP API nests no deeper than a tool's input may (64 levels, README "HTTP
 * API"): a deeper field is refused with 400 before anything is accepted or stored (sessions and
 * their metadata, shell calls, tool input, webhook payloads, trigger input), on a real server on
 * 127.0.0.1; a normal body beside each still works. A field named `__proto__`, `constructor` or
 * `prototype` anywhere in a body is refused by the same rule as in a tool's input.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { defineTool } from "../../src/index.js";
import { openHost, startApi, type Host, type RunningApi } from "../../src/server/index.js";
import { apiCaller } from "../fixtures/api-call.js";

const TOKEN = "test-token-deepjson-0123456789";
let dir: string;
let host: Host;
let api: RunningApi;

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "toolshell-deep-"));
  host = await openHost({
    store: path.join(dir, "state.db"),
    config: { manageScripts: false, server: { tokens: [TOKEN] } },
    tools: {
      counter: defineTool({
        description: "Returns its input.",
        hints: { destructive: false, openWorld: false },
        inputSchema: { type: "object", additionalProperties: true },
        execute: (input) => input,
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

/** JSON text of arrays nested `n` deep, and of objects nested `n` deep. */
const deepArray = (n: number) => "[".repeat(n) + "]".repeat(n);
const deepObject = (n: number) => '{"a":'.repeat(n) + "1" + "}".repeat(n);
/** 60,000 levels: deep enough to run a recursive walk out of stack. */
const HUGE = 60_000;

function refused(res: { status: number; json: any }, field: string): void {
  assert.equal(res.status, 400, JSON.stringify(res.json).slice(0, 300));
  assert.equal(res.json.error.code, "invalid_request");
  assert.match(res.json.error.message, new RegExp(`"${field}" is nested more than 64 levels deep`));
}

test("a session whose metadata nests too deep is refused with 400 and not created; a normal one is", async () => {
  for (const [sid, meta] of [["ses-deep-obj", deepObject(HUGE)], ["ses-deep-arr", `{"x":${deepArray(HUGE)}}`], ["ses-deep-66", deepObject(66)]] as const) {
    refused(await call("POST", "/v1/sessions", `{"id":"${sid}","metadata":${meta}}`), "metadata");
    assert.equal((await call("GET", `/v1/sessions/${sid}`)).status, 404);
    // Posting it again is refused again: nothing was half-created the first time.
    refused(await call("POST", "/v1/sessions", `{"id":"${sid}","metadata":${meta}}`), "metadata");
  }
  const edge = await call("POST", "/v1/sessions", `{"id":"ses-edge","metadata":${deepObject(65)}}`);
  assert.equal(edge.status, 201, JSON.stringify(edge.json).slice(0, 300));
  const ok = await call("POST", "/v1/sessions", { id: "ses-normal", metadata: { team: { name: "ops" } } });
  assert.equal(ok.status, 201);
  assert.equal(ok.json.id, "ses-normal");
  assert.equal((await call("GET", "/v1/sessions/ses-normal")).status, 200);
});

test("a deep field anywhere in a body is refused: an unknown field, a shell call's script, a tool's input", async () => {
  refused(await call("POST", "/v1/sessions", `{"id":"ses-x","extra":${deepArray(HUGE)}}`), "extra");
  assert.equal((await call("GET", "/v1/sessions/ses-x")).status, 404);
  assert.equal((await call("POST", "/v1/sessions", { id: "ses-calls" })).status, 201);
  refused(await call("POST", "/v1/sessions/ses-calls/bash", `{"script":${deepArray(HUGE)}}`), "script");
  const ran = await call("POST", "/v1/sessions/ses-calls/bash", { script: "echo hi" });
  assert.equal(ran.status, 200, JSON.stringify(ran.json));
  assert.equal(ran.json.stdout, "hi\n");
});

test("a webhook payload or a trigger's input nested too deep is refused with 400; no run is recorded", async () => {
  assert.equal((await call("PUT", "/v1/agents/agent-d/scripts/echo-it", { description: "Echoes.", input_schema: { type: "object", additionalProperties: true }, body: "jq -c ." })).status, 201);
  refused(await call("POST", "/v1/agents/agent-d/triggers", `{"name":"deep","webhook":true,"script":"echo-it","input":${deepObject(HUGE)}}`), "input");
  const created = await call("POST", "/v1/agents/agent-d/triggers", { name: "hook", webhook: true, webhook_wait: true, script: "echo-it", input: { v: "{{payload.v}}" } });
  assert.equal(created.status, 201, JSON.stringify(created.json));
  const { id, secret } = created.json;
  const by = { authorization: `Bearer ${secret}` };
  refused(await call("POST", `/v1/webhooks/${id}`, `{"v":${deepObject(HUGE)}}`, by), "v");
  refused(await call("POST", `/v1/webhooks/${id}`, `{"v":${deepArray(HUGE)}}`, by), "v");
  refused(await call("POST", `/v1/agents/agent-d/triggers/${id}/run`, `{"payload":${deepObject(HUGE)}}`), "payload");
  assert.deepEqual((await call("GET", `/v1/agents/agent-d/triggers/${id}/runs`)).json.runs, []);
  const hook = await call("POST", `/v1/webhooks/${id}?wait=true`, { v: { w: [1] } }, by);
  assert.equal(hook.status, 200, JSON.stringify(hook.json));
  assert.equal(hook.json.status, "ok", JSON.stringify(hook.json));
  assert.deepEqual(JSON.parse(hook.json.result.stdout), { v: { w: [1] } }, JSON.stringify(hook.json));
  // A 202 names a run that is already recorded.
  const accepted = await call("POST", `/v1/webhooks/${id}`, { v: 3 }, by);
  assert.equal(accepted.status, 202, JSON.stringify(accepted.json));
  assert.equal((await call("GET", `/v1/agents/agent-d/triggers/${id}/runs/${accepted.json.run_id}`)).status, 200);
  const now = await call("POST", `/v1/agents/agent-d/triggers/${id}/run`, { payload: { v: 2 } });
  assert.equal(now.status, 201, JSON.stringify(now.json));
  assert.deepEqual(JSON.parse(now.json.result.stdout), { v: 2 });
});

test("an approval's answer or a question's body nested too deep is refused; a normal shell call still runs", async () => {
  assert.equal((await call("POST", "/v1/sessions", { id: "ses-answers" })).status, 201);
  refused(await call("POST", "/v1/sessions/ses-answers/tool-approvals", `{"request_id":"x","decision":${deepArray(HUGE)}}`), "decision");
  refused(await call("POST", "/v1/sessions/ses-answers/questions", `{"question":"q","options":${deepObject(HUGE)}}`), "options");
  const ok = await call("POST", "/v1/sessions/ses-answers/bash", { script: "tools counter a=1" });
  assert.equal(ok.status, 200, JSON.stringify(ok.json));
  assert.deepEqual(JSON.parse(ok.json.stdout), { a: 1 });
});

test("a field named __proto__, constructor or prototype anywhere in a body is refused with 400 and nothing is stored; the same body without it works", async () => {
  const unsafe = (res: { status: number; json: any }, key: string) => {
    assert.equal(res.status, 400, JSON.stringify(res.json).slice(0, 300));
    assert.equal(res.json.error.code, "invalid_request");
    assert.match(res.json.error.message, new RegExp(`the field name "${key}" is not allowed`));
  };
  // Session metadata, at the top and nested; JSON.parse keeps "__proto__" as an own key.
  unsafe(await call("POST", "/v1/sessions", '{"id":"ses-proto","metadata":{"__proto__":{"admin":true}}}'), "__proto__");
  unsafe(await call("POST", "/v1/sessions", '{"id":"ses-proto","__proto__":{"agent_id":"other"}}'), "__proto__");
  unsafe(await call("POST", "/v1/sessions", '{"id":"ses-proto","metadata":{"a":[{"constructor":{"prototype":{"x":1}}}]}}'), "constructor");
  assert.equal((await call("GET", "/v1/sessions/ses-proto")).status, 404);
  const ok = await call("POST", "/v1/sessions", '{"id":"ses-proto","metadata":{"proto":{"admin":true}}}');
  assert.equal(ok.status, 201, JSON.stringify(ok.json));
  assert.deepEqual((await call("GET", "/v1/sessions/ses-proto")).json.metadata.proto, { admin: true });
  // A trigger's input and a webhook's payload.
  assert.equal((await call("PUT", "/v1/agents/agent-p/scripts/echo-it", { description: "Echoes.", input_schema: { type: "object", additionalProperties: true }, body: "jq -c ." })).status, 201);
  unsafe(await call("POST", "/v1/agents/agent-p/triggers", '{"name":"proto","webhook":true,"script":"echo-it","input":{"__proto__":"{{payload.v}}"}}'), "__proto__");
  const created = await call("POST", "/v1/agents/agent-p/triggers", { name: "hook", webhook: true, webhook_wait: true, script: "echo-it", input: { v: "{{payload.v}}" } });
  assert.equal(created.status, 201, JSON.stringify(created.json));
  const by = { authorization: `Bearer ${created.json.secret}` };
  unsafe(await call("POST", `/v1/webhooks/${created.json.id}?wait=true`, '{"v":{"__proto__":{"polluted":1}}}', by), "__proto__");
  unsafe(await call("POST", `/v1/webhooks/${created.json.id}?wait=true`, '{"prototype":1,"v":2}', by), "prototype");
  assert.deepEqual((await call("GET", `/v1/agents/agent-p/triggers/${created.json.id}/runs`)).json.runs, []);
  const hook = await call("POST", `/v1/webhooks/${created.json.id}?wait=true`, '{"v":{"proto":1}}', by);
  assert.equal(hook.status, 200, JSON.stringify(hook.json));
  assert.deepEqual(JSON.parse(hook.json.result.stdout), { v: { proto: 1 } });
});
