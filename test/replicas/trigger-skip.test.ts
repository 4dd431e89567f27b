/**
 * A schedule does not pile up runs waiting for approval with two real `toolshell serve` replicas on
 * one real PostgreSQL (docs/deployment.md → Triggers): pg-boss fires an every-minute schedule on
 * whichever replica takes the job; the first run stops at a payment that needs a person, and the
 * next fire — on either replica — reads the store, finds that run waiting and is recorded as
 * skipped (the API's runs list, `toolshell triggers runs`). Once the request is answered and the
 * run goes on, the next fire runs again.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { test } from "node:test";
import { promisify } from "node:util";
import type { TriggerRunRecord } from "../../src/store/index.js";
import { api, CLI, deployment, until } from "./helpers.js";

test("PostgreSQL, two replicas: a fire while a run waits for approval is skipped; after the answer the next fire runs", async (t) => {
  const d = await deployment(t);
  const [a, b] = await Promise.all([d.start("A"), d.start("B")]);
  const saved = await api(a, "POST", "/v1/agents/default/scripts", {
    name: "pay-due",
    description: "Pays what is due.",
    input_schema: { type: "object", properties: { at: { type: "string" } } },
    body: 'tools pay to="due-$(jq -r .at)"\n',
  });
  assert.equal(saved.status, 201, JSON.stringify(saved.json));
  const created = await api(a, "POST", "/v1/agents/default/triggers", { name: "every-minute", schedule: "* * * * *", script: "pay-due", input: { at: "{{scheduled_at}}" } });
  assert.equal(created.status, 201, JSON.stringify(created.json));
  const id = created.json.id as string;
  const runs = async () => (await api(b, "GET", `/v1/agents/default/triggers/${id}/runs`)).json.runs as TriggerRunRecord[];

  const first = await until(async () => (await runs()).find((r) => r.status === "stopped"), "the first scheduled run to stop for approval", 1500);
  const reason = `the previous run ${first.id} waits for approval (request ${first.request_id})`;
  const skipped = await until(async () => (await runs()).find((r) => r.status === "skipped"), "the next fire to be skipped", 1500);
  assert.equal(skipped.reason, "schedule");
  assert.deepEqual(skipped.skipped, { reason, run_id: first.id, request_id: first.request_id });
  assert.deepEqual((await api(a, "GET", `/v1/sessions/trg_${id}/tool-approvals`)).json.pending.map((p: { id: string }) => p.id), [first.request_id]);

  // From the command line, in a process of its own on the same store.
  const listed = await promisify(execFile)(process.execPath, [CLI, "triggers", "runs", "every-minute", "--no-daemon", "--config", d.config], { cwd: d.dir, env: { ...process.env, TOOLSHELL_TEST_LOG: d.log } });
  assert.match(listed.stdout, new RegExp(`${skipped.id} +\\S+ \\S+ +schedule +skipped`));
  assert.ok(listed.stdout.includes(`${skipped.id}: did not start: ${reason}`), listed.stdout);

  // Answered on A: the waiting run goes on and ends; a fire after that runs again.
  const answeredAt = new Date().toISOString();
  assert.equal((await api(a, "POST", `/v1/sessions/trg_${id}/tool-approvals`, { decisions: [{ tool_call_id: first.request_id, decision: "allow" }] })).status, 200);
  await until(async () => (await runs()).find((r) => r.id === first.id && r.status === "ok"), "the answered run to end", 600);
  const next = await until(async () => (await runs()).find((r) => r.reason === "schedule" && r.status === "stopped" && r.started_at > answeredAt), "a fire after the answer to run", 1500);
  assert.notEqual(next.request_id, first.request_id);
  // Only the answered payment was made.
  assert.equal(d.lines().filter((l) => / pay /.test(l)).length, 1, d.lines().join("\n"));
});
