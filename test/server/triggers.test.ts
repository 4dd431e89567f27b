/**
 * Triggers: templates, a schedule that fires, a schedule missed while down runs once on start,
 * a run stopped for approval (recorded, never waited on) wakes the agent over real HTTP, config
 * triggers.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { always, defineTool } from "../../src/index.js";
import { fillTemplates, openHost, type Host } from "../../src/server/index.js";
import type { TriggerRunRecord } from "../../src/store/index.js";
import { eventually } from "../fixtures/eventually.js";

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function tempDb(): string {
  const d = mkdtempSync(path.join(tmpdir(), "toolshell-trg-"));
  dirs.push(d);
  return path.join(d, "state.db");
}

const tools = {
  counter: defineTool({
    description: "Returns n.",
    hints: { destructive: false, openWorld: false },
    inputSchema: { type: "object", properties: { n: { type: "number" } } },
    execute: ({ n }) => ({ n }),
  }),
  danger: defineTool({ description: "Needs a person.", inputSchema: { type: "object", properties: {} }, approval: always(), execute: () => "done" }),
};

async function saveScript(host: Host, agent: string, name: string, body: string, schema: Record<string, unknown> = { type: "object" }): Promise<void> {
  await host.store.saveScript(agent, { name, description: `Script ${name}.`, input_schema: schema, body });
}

test("templates: one placeholder keeps the JSON type; inside text it becomes text; missing values", async () => {
  const scope = { payload: { n: 7, obj: { a: [1, { b: "x" }] }, s: "hi", nil: null }, now: "T" };
  assert.deepEqual(
    fillTemplates(
      { n: "{{payload.n}}", o: "{{ payload.obj }}", deep: "{{payload.obj.a[1].b}}", alt: "{{payload.obj.a.0}}", text: "n={{payload.n}} o={{payload.obj}} s={{payload.s}} m={{payload.missing}}", missing: "{{payload.missing}}", nil: "{{payload.nil}}", list: ["{{payload.s}}", "{{payload.missing}}"], proto: "{{payload.constructor}}", fixed: 3 },
      scope,
    ),
    { n: 7, o: { a: [1, { b: "x" }] }, deep: "x", alt: 1, text: 'n=7 o={"a":[1,{"b":"x"}]} s=hi m=', nil: null, list: ["hi", null], fixed: 3 },
  );
  // An input key named "__proto__" (an own key, as JSON.parse makes it) stays a field: it never
  // becomes the filled object's prototype.
  const filled = fillTemplates(JSON.parse('{"__proto__":{"polluted":"{{payload.s}}"},"k":1}'), scope) as Record<string, unknown>;
  assert.equal((filled as { polluted?: unknown }).polluted, undefined);
  assert.equal(Object.getPrototypeOf(filled), Object.prototype);
  assert.deepEqual(JSON.parse(JSON.stringify(filled)), JSON.parse('{"__proto__":{"polluted":"hi"},"k":1}'));
});

test("a schedule trigger fires on its cron and runs the saved script as one shell call", async () => {
  const host = await openHost({ store: tempDb(), tools });
  try {
    await saveScript(host, "default", "tick", "tools counter n=$(jq .n)", { type: "object", properties: { n: { type: "number" } } });
    await host.startTriggers();
    const { trigger } = await host.triggers.create("default", { name: "every-second", kind: "schedule", cron: "* * * * * *", timezone: "UTC", script: "tick", input: { n: "{{payload.missing}}" }, enabled: true, wake_agent_on_failure: false });
    assert.ok(trigger.next_run_at);
    const run = await eventually("a scheduled run", async () => (await host.store.listTriggerRuns(trigger.id)).find((r) => r.reason === "schedule" && r.status !== "running"));
    assert.equal(run.status, "failed"); // n is missing: `tools counter n=null` fails the counter's schema
    const r2 = await host.triggers.update(trigger.id, { name: "every-second", kind: "schedule", cron: "* * * * * *", timezone: "UTC", script: "tick", input: { n: 5 }, enabled: true, wake_agent_on_failure: false });
    assert.ok(r2);
    const ok = await eventually("a good scheduled run", async () => (await host.store.listTriggerRuns(trigger.id)).find((r) => r.status === "ok"));
    assert.deepEqual(JSON.parse((ok.result as { stdout: string }).stdout), { n: 5 });
    // The run is one shell call of the trigger's session, with its nested calls.
    const events = await host.store.listEvents(ok.session_id);
    const nested = events.filter((e) => e.type === "tool.nested_call" && (e as Record<string, unknown>).parent_tool_call_id === ok.tool_call_id);
    assert.deepEqual(nested.map((e) => (e as Record<string, unknown>).command), ["tools counter", "tools scripts tick"]);
    assert.ok(events.some((e) => e.type === "trigger.run" && (e as Record<string, unknown>).run_id === ok.id));
  } finally {
    await host.close();
  }
});

test("a schedule missed while the process was down runs once on start, however many times it was due", async () => {
  const db = tempDb();
  const first = await openHost({ store: db, tools });
  await saveScript(first, "default", "tick", "tools counter n=1");
  // Yearly, so the schedule itself does not fire during the test; it was last due 3 days ago.
  const { trigger } = await first.triggers.create("default", { name: "yearly", kind: "schedule", cron: "0 0 1 1 *", timezone: "Europe/Berlin", script: "tick", input: {}, enabled: true, wake_agent_on_failure: false });
  await first.store.putTrigger({ ...(await first.store.getTrigger(trigger.id))!, next_run_at: new Date(Date.now() - 3 * 86_400_000).toISOString() });
  // A run the dead process left in flight.
  await first.store.putTriggerRun({ id: "run_stale", trigger_id: trigger.id, agent_id: "default", reason: "schedule", status: "running", session_id: "trg_x", payload: {}, started_at: new Date(Date.now() - 4 * 86_400_000).toISOString() });
  await first.close();

  const second = await openHost({ store: db, tools });
  try {
    await second.startTriggers();
    const run = await eventually("the missed run", async () => (await second.store.listTriggerRuns(trigger.id)).find((r) => r.id !== "run_stale" && r.status !== "running"));
    assert.equal(run.reason, "missed");
    assert.equal(run.status, "ok", JSON.stringify(run.result));
    await second.triggers.stop();
    assert.deepEqual((await second.store.listTriggerRuns(trigger.id)).map((r) => [r.reason, r.status]), [["missed", "ok"], ["schedule", "failed"]]);
    assert.match((await second.store.getTriggerRun("run_stale"))!.error!, /process stopped/);
    const next = Date.parse((await second.store.getTrigger(trigger.id))!.next_run_at!);
    assert.ok(next > Date.now(), "next_run_at moved to the next due time");
  } finally {
    await second.close();
  }
  // Started again: nothing is due, nothing runs.
  const third = await openHost({ store: db, tools });
  try {
    await third.startTriggers();
    await third.triggers.stop();
    assert.equal((await third.store.listTriggerRuns(trigger.id)).length, 2);
  } finally {
    await third.close();
  }
});

test("a run that needs approval stops with the report, records the request, never waits, and wakes the agent", async () => {
  const received: Array<{ headers: IncomingHttpHeaders; body: any }> = [];
  const receiver = createServer((req, res) => {
    let data = "";
    req.on("data", (d) => (data += d));
    req.on("end", () => {
      received.push({ headers: req.headers, body: JSON.parse(data) });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", () => r()));
  const port = (receiver.address() as AddressInfo).port;
  const host = await openHost({
    store: tempDb(),
    tools,
    config: {
      server: { wakeAgent: { url: `http://127.0.0.1:${port}/wake`, headers: { authorization: "Bearer wake-secret-123456" } } },
      triggers: [{ name: "risky-hook", webhook: true, script: "risky", wake_agent_on_failure: true }],
    },
  });
  try {
    await saveScript(host, "default", "risky", "tools counter n=1 > /dev/null\ntools danger\necho after");
    await host.startTriggers();
    const trigger = await host.store.findTrigger("default", "risky-hook");
    assert.equal(trigger?.origin, "config");
    const run: TriggerRunRecord = await host.triggers.run(trigger!.id, "manual", {});
    assert.equal(run.status, "stopped");
    const report = (run.result as { tools: { stopped: { reason: string; request_id: string }; done: Array<{ tool: string }> } }).tools;
    assert.equal(report.stopped.reason, "needs_approval");
    assert.deepEqual(report.done.map((d) => d.tool), ["tools counter"]);
    assert.equal(run.request_id, report.stopped.request_id);
    assert.deepEqual((await host.session(run.session_id).pendingApprovals()).map((r) => r.id), [run.request_id]);
    assert.deepEqual((await host.store.pendingApprovals()).map((r) => r.id), [run.request_id]);
    assert.equal(received.length, 1);
    assert.equal(received[0].headers.authorization, "Bearer wake-secret-123456");
    assert.equal(received[0].body.run.id, run.id);
    assert.equal(received[0].body.report.stopped.reason, "needs_approval");
    assert.equal(received[0].body.trigger.secret_hash, undefined);
  } finally {
    await host.close();
    receiver.close();
  }
});
