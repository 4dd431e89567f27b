/**
 * When a schedule fires on PostgreSQL with two real `toolshell serve` replicas (docs/deployment.md
 * → Triggers): the answer to the creation says the next due time, the first run is for that due
 * time (never the minute already begun when the trigger was made), and a disabled trigger has no
 * next run.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { api, deployment, until, type Replica } from "./helpers.js";

type Run = { id: string; status: string; reason: string; input?: { at?: string } };

/** Saves the script `tick`, which counts one tick labelled with its input's `at`. */
async function saveTick(r: Replica): Promise<void> {
  const saved = await api(r, "POST", "/v1/agents/default/scripts", {
    name: "tick",
    description: "Counts one tick.",
    input_schema: { type: "object", properties: { at: { type: "string" } } },
    body: 'at=$(jq -r .at)\ntools count label="tick-$at" >/dev/null\n',
  });
  assert.equal(saved.status, 201, JSON.stringify(saved.json));
}

test("a schedule made mid-minute first runs at the next due time its creation answer names; disabled, it has no next run", async (t) => {
  const d = await deployment(t);
  const [a, b] = await Promise.all([d.start("A"), d.start("B")]);
  await saveTick(a);
  // Not in a minute's first seconds, so the minute already begun is a distinct due time.
  while (new Date().getUTCSeconds() < 5 || new Date().getUTCSeconds() > 50) await new Promise((r) => setTimeout(r, 500));
  const madeAt = Date.now();
  const created = await api(a, "POST", "/v1/agents/default/triggers", { name: "every-minute", schedule: "* * * * *", script: "tick", input: { at: "{{scheduled_at}}" } });
  assert.equal(created.status, 201, JSON.stringify(created.json));
  const id = created.json.id as string;
  const next = created.json.next_run_at as string;
  assert.equal(typeof next, "string", JSON.stringify(created.json));
  assert.equal(Date.parse(next), Math.ceil(madeAt / 60_000) * 60_000);
  const runs = await until(async () => {
    const all = (await api(b, "GET", `/v1/agents/default/triggers/${id}/runs`)).json.runs as Run[];
    return all.some((r) => r.status !== "running") ? all : undefined;
  }, "the first scheduled run", 1200);
  const first = runs[runs.length - 1];
  assert.equal(first.input?.at, next, `the first run is for ${next}, not the minute begun before: ${JSON.stringify(runs)}`);
  const off = await api(b, "PATCH", `/v1/agents/default/triggers/${id}`, { enabled: false });
  assert.equal(off.status, 200);
  assert.equal(off.json.next_run_at, undefined, JSON.stringify(off.json));
  assert.equal((await api(a, "GET", `/v1/agents/default/triggers/${id}`)).json.next_run_at, undefined);
});

test("a schedule with seconds runs at each of its due times, once across both replicas (pg-boss times schedules by the minute)", async (t) => {
  const d = await deployment(t);
  const [a, b] = await Promise.all([d.start("A"), d.start("B")]);
  await saveTick(a);
  const created = await api(a, "POST", "/v1/agents/default/triggers", { name: "every-2s", schedule: "*/2 * * * * *", script: "tick", input: { at: "{{scheduled_at}}" } });
  assert.equal(created.status, 201, JSON.stringify(created.json));
  const id = created.json.id as string;
  const runs = await until(async () => {
    const all = (await api(b, "GET", `/v1/agents/default/triggers/${id}/runs`)).json.runs as Run[];
    return all.filter((r) => r.status === "ok").length >= 4 ? all : undefined;
  }, "four runs", 1200);
  const off = await api(b, "PATCH", `/v1/agents/default/triggers/${id}`, { enabled: false });
  assert.equal(off.status, 200);
  const ok = runs.filter((r) => r.status === "ok");
  const times = ok.map((r) => Date.parse(r.input!.at!)).sort((x, y) => x - y);
  for (let i = 1; i < times.length; i++) assert.equal(times[i] - times[i - 1], 2000, `due times 2 s apart: ${JSON.stringify(ok.map((r) => r.input?.at))}`);
  for (const r of ok) assert.equal(r.reason, "schedule");
  // Each due time ran its script once, on one replica or the other.
  const ticks = d.lines().filter((l) => l.includes("tick-")).map((l) => l.split(" ")[1]);
  for (const at of ok.map((r) => r.input!.at!)) assert.equal(ticks.filter((x) => x === `tick-${at}`).length, 1, `${at} ran once: ${d.lines().join(" | ")}`);
});
