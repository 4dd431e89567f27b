/**
 * A schedule does not pile up runs waiting for approval (docs/sessions.md → Triggers): with the
 * in-process scheduler on a SQLite store and a schedule every second, the first run stops at a
 * charge that needs a person; every fire while its request waits is recorded as a skipped run
 * naming that run and request — in the API's runs list and on the console's Triggers page — and
 * the inbox keeps one request. Once the request is answered and the run goes on, the next fire
 * runs again; a person's "run now" starts even while a run waits. Control: with nothing waiting,
 * consecutive fires each run.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test, type TestContext } from "node:test";
import { always, defineTool } from "../../src/index.js";
import { openHost, startApi, type Host } from "../../src/server/index.js";
import type { TriggerRunRecord } from "../../src/store/index.js";
import { apiCaller } from "../fixtures/api-call.js";
import { eventually } from "../fixtures/eventually.js";

const TOKEN = "trigger-skip-token-0123456789";

async function serve(t: TestContext): Promise<{ host: Host; url: string; call: ReturnType<typeof apiCaller>; charged: string[] }> {
  const dir = mkdtempSync(path.join(tmpdir(), "toolshell-trg-skip-"));
  const charged: string[] = [];
  const host = await openHost({
    store: path.join(dir, "state.db"),
    config: { server: { tokens: [TOKEN] } },
    tools: {
      charge: defineTool({
        description: "Charges a card (needs a person).",
        inputSchema: { type: "object", properties: { at: { type: "string" } }, required: ["at"] },
        approval: always(),
        execute: ({ at }) => {
          charged.push(String(at));
          return "charged";
        },
      }),
      tick: defineTool({ description: "Ticks.", hints: { readOnly: true }, inputSchema: { type: "object", properties: { at: { type: "string" } } }, execute: ({ at }) => ({ at }) }),
    },
  });
  const api = await startApi(host, { host: "127.0.0.1", port: 0 });
  t.after(async () => {
    await api.close();
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { host, url: api.url, call: apiCaller(api.url, TOKEN), charged };
}

const schema = { type: "object", properties: { at: { type: "string" } } };

/** Saves `charge-now` (a charge at its input's `at`) and makes a trigger of it with `spec`: the trigger's id. */
async function chargeTrigger(host: Host, call: ReturnType<typeof apiCaller>, spec: Record<string, unknown>): Promise<string> {
  await host.store.saveScript("default", { name: "charge-now", description: "Charges.", input_schema: schema, body: 'tools charge at="$(jq -r .at)"\n' });
  const created = await call("POST", "/v1/agents/default/triggers", { ...spec, script: "charge-now" });
  assert.equal(created.status, 201, JSON.stringify(created.json));
  return created.json.id as string;
}

test("while a scheduled run waits for approval, each fire is recorded as skipped; once answered, the next fire runs", async (t) => {
  const { host, url, call, charged } = await serve(t);
  const id = await chargeTrigger(host, call, { name: "every-second", schedule: "* * * * * *", input: { at: "{{scheduled_at}}" } });
  const session = `trg_${id}`;
  const runs = async () => (await call("GET", `/v1/agents/default/triggers/${id}/runs`)).json.runs as TriggerRunRecord[];

  const first = await eventually("the first run to stop for approval", async () => (await runs()).find((r) => r.status === "stopped"));
  assert.match(first.request_id ?? "", /^apr_/);
  // {{scheduled_at}} is the due time (a whole second of the schedule), not when the timer fired.
  assert.match(String(first.input?.at), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/, JSON.stringify(first.input));
  assert.equal(first.input?.at, first.scheduled_at);
  const reason = `the previous run ${first.id} waits for approval (request ${first.request_id})`;
  const skipped = await eventually("two fires skipped", async () => {
    const s = (await runs()).filter((r) => r.status === "skipped");
    return s.length >= 2 ? s : undefined;
  });
  for (const s of skipped) {
    assert.equal(s.reason, "schedule");
    assert.deepEqual(s.skipped, { reason, run_id: first.id, request_id: first.request_id });
    assert.equal(s.result, undefined, "nothing ran");
  }
  // No run but the first started: one request waits, and nothing was charged.
  assert.deepEqual((await runs()).filter((r) => r.status !== "skipped").map((r) => r.id), [first.id]);
  assert.deepEqual((await host.store.pendingApprovals()).filter((r) => r.session_id === session).map((r) => r.id), [first.request_id]);
  assert.deepEqual(charged, []);

  // The console's Triggers page lists the skipped runs and why.
  const page = await fetch(url + "/triggers", { headers: { cookie: `__Host-toolshell-token=${TOKEN}`, accept: "text/html" } });
  assert.equal(page.status, 200);
  const html = await page.text();
  assert.match(html, /class="state state-skipped">skipped</);
  assert.ok(html.includes(`Did not start: ${reason}.`), "the console says why a run did not start");

  // Answered: the waiting run goes on and ends; the next fire runs again (and asks anew).
  const answeredAt = new Date().toISOString();
  assert.equal((await call("POST", `/v1/sessions/${session}/tool-approvals`, { decisions: [{ tool_call_id: first.request_id, decision: "allow" }] })).status, 200);
  await eventually("the answered run to end", async () => (await runs()).find((r) => r.id === first.id && r.status === "ok"));
  const next = await eventually("a fire after the answer to run", async () => (await runs()).find((r) => r.reason === "schedule" && r.status === "stopped" && r.id !== first.id && r.started_at > answeredAt));
  assert.notEqual(next.request_id, first.request_id);
  assert.equal(charged.length, 1, "the answered charge ran once");

  // A person's "run now" is theirs to make: it starts while that next run waits.
  const manual = await call("POST", `/v1/agents/default/triggers/${id}/run`, {});
  assert.equal(manual.status, 201, JSON.stringify(manual.json));
  assert.equal(manual.json.reason, "manual");
  assert.equal(manual.json.status, "stopped", JSON.stringify(manual.json));
});

test("control: with nothing waiting for approval, consecutive fires each run", async (t) => {
  const { host, call } = await serve(t);
  await host.store.saveScript("default", { name: "tick-now", description: "Ticks.", input_schema: schema, body: 'tools tick at="$(jq -r .at)"\n' });
  const created = await call("POST", "/v1/agents/default/triggers", { name: "ticks", schedule: "* * * * * *", script: "tick-now", input: { at: "{{scheduled_at}}" } });
  assert.equal(created.status, 201, JSON.stringify(created.json));
  const done = await eventually("three runs", async () => {
    const runs = ((await call("GET", `/v1/agents/default/triggers/${created.json.id}/runs`)).json.runs as TriggerRunRecord[]).filter((r) => r.status !== "running");
    return runs.length >= 3 ? runs : undefined;
  });
  assert.deepEqual([...new Set(done.map((r) => r.status))], ["ok"], JSON.stringify(done.map((r) => [r.status, r.skipped])));
  assert.equal(new Set(done.map((r) => (r.input as { at: string }).at)).size, done.length, "one run per due time");
});

test("a disabled trigger runs nothing: answering its stopped run's request keeps the answer, and the run stays stopped; the card says so", async (t) => {
  const { host, call, charged } = await serve(t);
  const id = await chargeTrigger(host, call, { name: "by-hand", webhook: true, input: { at: "manual" } });
  const stopped = await call("POST", `/v1/agents/default/triggers/${id}/run`, {});
  assert.equal(stopped.json.status, "stopped", JSON.stringify(stopped.json));
  const requestId = stopped.json.request_id as string;
  assert.equal((await call("PATCH", `/v1/agents/default/triggers/${id}`, { enabled: false })).status, 200);
  const pending = (await call("GET", "/v1/approvals")).json;
  const card = JSON.stringify(pending);
  assert.match(card, /is disabled: the answer is kept, but the run does not go on/, card.slice(0, 2000));

  assert.equal((await call("POST", `/v1/sessions/trg_${id}/tool-approvals`, { decisions: [{ tool_call_id: requestId, decision: "allow" }] })).status, 200);
  // Give a hand-over every chance to happen, then look: nothing ran, the run is still stopped.
  await host.triggers.answered(`trg_${id}`, requestId);
  const run = ((await call("GET", `/v1/agents/default/triggers/${id}/runs`)).json.runs as TriggerRunRecord[]).find((r) => r.id === stopped.json.id);
  assert.equal(run?.status, "stopped", JSON.stringify(run));
  assert.deepEqual(charged, []);
  // Control: enabled again, a run uses the kept answer (allow once) and charges once.
  assert.equal((await call("PATCH", `/v1/agents/default/triggers/${id}`, { enabled: true })).status, 200);
  const again = await call("POST", `/v1/agents/default/triggers/${id}/run`, {});
  assert.equal(again.json.status, "ok", JSON.stringify(again.json));
  assert.deepEqual(charged, ["manual"]);
});

test("two runs stopped on the same request both go on once it is answered: each takes the answer or asks again; control: allow_always lets both charge", async (t) => {
  const { host, call, charged } = await serve(t);
  const id = await chargeTrigger(host, call, { name: "twice", webhook: true, input: { at: "same" } });
  const runsOf = async () => (await call("GET", `/v1/agents/default/triggers/${id}/runs`)).json.runs as TriggerRunRecord[];
  // Run now twice: the second run's call finds the first's request pending and stops on it too.
  const one = await call("POST", `/v1/agents/default/triggers/${id}/run`, {});
  const two = await call("POST", `/v1/agents/default/triggers/${id}/run`, {});
  assert.equal(one.json.status, "stopped", JSON.stringify(one.json));
  assert.equal(two.json.status, "stopped", JSON.stringify(two.json));
  assert.equal(two.json.request_id, one.json.request_id, "both stopped on one request");
  assert.equal((await call("POST", `/v1/sessions/trg_${id}/tool-approvals`, { decisions: [{ tool_call_id: one.json.request_id, decision: "allow_always" }] })).status, 200);
  // The answer's own hand-over (one per answer) resumes the runs.
  const done = await eventually("both runs to end", async () => {
    const runs = (await runsOf()).filter((r) => r.id === one.json.id || r.id === two.json.id);
    return runs.every((r) => r.status === "ok") ? runs : undefined;
  });
  assert.equal(done.length, 2);
  assert.deepEqual(charged, ["same", "same"], "each run charged once");
});
