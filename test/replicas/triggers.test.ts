/**
 * Triggers on pg-boss with two real `toolshell serve` replicas on one real PostgreSQL
 * (docs/deployment.md → Triggers): a schedule's due time runs once across both replicas, and a
 * webhook delivery accepted by one runs once, on whichever replica takes the job. The saved
 * script calls the `count` tool, which logs each real execution.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { api, deployment, kill, until, type Replica } from "./helpers.js";

type Run = { id: string; status: string; reason: string; input?: { at?: string } };

async function saveTickScript(r: Replica): Promise<void> {
  const saved = await api(r, "POST", "/v1/agents/default/scripts", {
    name: "tick",
    description: "Counts one tick.",
    input_schema: { type: "object", properties: { at: { type: "string" } } },
    body: 'at=$(jq -r .at)\ntools count label="tick-$at" >/dev/null\necho "ticked $at"\n',
  });
  assert.equal(saved.status, 201, JSON.stringify(saved.json));
}

/** Saves the script `two-steps`: counts, hangs on a replica told to (TOOLSHELL_TEST_HANG), counts again. */
async function saveTwoSteps(r: Replica): Promise<void> {
  const saved = await api(r, "POST", "/v1/agents/default/scripts", {
    name: "two-steps",
    description: "Counts, hangs on A, counts again.",
    body: "tools count label=t1 >/dev/null\ntools hang >/dev/null\ntools count label=t2 >/dev/null\necho finished\n",
  });
  assert.equal(saved.status, 201, JSON.stringify(saved.json));
}

const runsOf = async (r: Replica, id: string): Promise<Run[]> => (await api(r, "GET", `/v1/agents/default/triggers/${id}/runs`)).json.runs as Run[];

test("a schedule due once runs once with two replicas", async (t) => {
  const d = await deployment(t);
  const [a, b] = await Promise.all([d.start("A"), d.start("B")]);
  await saveTickScript(a);
  const created = await api(a, "POST", "/v1/agents/default/triggers", { name: "every-minute", schedule: "* * * * *", script: "tick", input: { at: "{{scheduled_at}}" } });
  assert.equal(created.status, 201, JSON.stringify(created.json));
  const id = created.json.id as string;
  // The next minute comes round (pg-boss's cron pass runs every 10 s on each replica).
  await until(async () => ((await runsOf(b, id)).some((r) => r.status === "ok") ? true : undefined), "the first scheduled run", 1200);
  const off = await api(b, "PATCH", `/v1/agents/default/triggers/${id}`, { enabled: false });
  assert.equal(off.status, 200, JSON.stringify(off.json));
  const runs = await until(async () => {
    const all = await runsOf(a, id);
    return all.every((r) => r.status !== "running") ? all : undefined;
  }, "runs in flight to end");
  assert.ok(runs.length >= 1);
  for (const r of runs) {
    assert.equal(r.status, "ok", JSON.stringify(r));
    assert.equal(r.reason, "schedule");
    // The due time it ran for is on the run record (the input template got the same).
    assert.equal((r as { scheduled_at?: string }).scheduled_at, r.input?.at);
  }
  const dueTimes = runs.map((r) => r.input?.at);
  assert.equal(new Set(dueTimes).size, runs.length, `one run per due time: ${dueTimes.join(", ")}`);
  // Each run executed its script's call once, on one replica.
  const ticks = d.lines().map((l) => l.split(" ")[1]);
  assert.deepEqual(ticks.sort(), dueTimes.map((at) => `tick-${at}`).sort());
});

test("a webhook delivery accepted by one replica runs once, on whichever takes it", async (t) => {
  const d = await deployment(t);
  const [a, b] = await Promise.all([d.start("A"), d.start("B")]);
  await saveTickScript(b);
  const created = await api(a, "POST", "/v1/agents/default/triggers", { name: "on-push", webhook: true, script: "tick", input: { at: "{{payload.ref}}" } });
  assert.equal(created.status, 201, JSON.stringify(created.json));
  const { id, secret } = created.json as { id: string; secret: string };
  const accepted = await fetch(`${a.url}/v1/webhooks/${id}`, { method: "POST", headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" }, body: JSON.stringify({ ref: "main" }) });
  assert.equal(accepted.status, 202);
  const { run_id } = (await accepted.json()) as { run_id: string };
  const run = await until(async () => {
    const r = (await api(b, "GET", `/v1/agents/default/triggers/${id}/runs/${run_id}`)).json as Run;
    return r.status === "ok" ? r : undefined;
  }, "the delivered run to end");
  assert.equal(run.reason, "webhook");
  assert.equal(run.input?.at, "main");
  assert.equal(d.lines().filter((l) => l.endsWith(" tick-main")).length, 1);
  assert.equal((await runsOf(a, id)).length, 1);
});

test("a run whose replica is killed mid-script is recovered by the other replica, resuming its step", async (t) => {
  const d = await deployment(t);
  const a = await d.start("A", { env: { TOOLSHELL_TEST_HANG: "1" } });
  await saveTwoSteps(a);
  const created = await api(a, "POST", "/v1/agents/default/triggers", { name: "deliver", webhook: true, script: "two-steps" });
  const { id, secret } = created.json as { id: string; secret: string };
  // Only A runs yet: it takes the job and hangs inside the script.
  const accepted = await fetch(`${a.url}/v1/webhooks/${id}`, { method: "POST", headers: { authorization: `Bearer ${secret}` } });
  assert.equal(accepted.status, 202);
  const { run_id } = (await accepted.json()) as { run_id: string };
  await until(async () => (d.lines().includes("A hang") ? true : undefined), "A to hang inside the run");
  const b = await d.start("B");
  await kill(a);
  // pg-boss sees A's heartbeat stop and hands the job to B, which resumes the run's step.
  const run = await until(async () => {
    const r = (await api(b, "GET", `/v1/agents/default/triggers/${id}/runs/${run_id}`)).json as Run & { result?: { stdout: string } };
    return r.status === "ok" ? r : undefined;
  }, "the run to be recovered on B", 1200);
  assert.equal(run.result?.stdout, "finished\n");
  assert.deepEqual(d.lines(), ["A t1", "A hang", "B hang", "B t2"]);
  assert.equal((await runsOf(b, id)).length, 1);
  // The run says it was cut short and ran again (the API; the CLI's and console's note).
  assert.equal((run as { interrupted_at?: string[] }).interrupted_at?.length, 1, JSON.stringify(run));
});

test("a 'run now' whose replica is killed mid-script (a run no job brings back) is resumed by the other replica once the first has been gone a minute", async (t) => {
  const d = await deployment(t);
  const a = await d.start("A", { env: { TOOLSHELL_TEST_HANG: "1" } });
  await saveTwoSteps(a);
  const created = await api(a, "POST", "/v1/agents/default/triggers", { name: "by-hand", webhook: true, script: "two-steps" });
  const id = created.json.id as string;
  // Run now: it runs on the replica that got the request, not as a pg-boss job.
  void api(a, "POST", `/v1/agents/default/triggers/${id}/run`, {}).catch(() => undefined);
  await until(async () => (d.lines().includes("A hang") ? true : undefined), "A to hang inside the run");
  const b = await d.start("B");
  await kill(a);
  const run = await until(async () => {
    const runs = await runsOf(b, id);
    const r = runs[0] as Run & { result?: { stdout: string }; interrupted_at?: string[] };
    return r?.status === "ok" ? r : undefined;
  }, "the run to be resumed on B", 1500);
  assert.equal(run.result?.stdout, "finished\n");
  assert.equal(run.reason, "manual");
  assert.deepEqual(d.lines(), ["A t1", "A hang", "B hang", "B t2"]);
  assert.equal(run.interrupted_at?.length, 1, JSON.stringify(run));
  assert.equal((await runsOf(b, id)).length, 1);
  // It names the replicas that ran it: A, then B.
  const bId = (await api(b, "GET", "/v1/replicas")).json.this as string;
  const replicas = (run as { replicas?: string[] }).replicas ?? [];
  assert.equal(replicas.length, 2, JSON.stringify(run));
  assert.equal(replicas[1], bId);
  assert.notEqual(replicas[0], bId);
});
