/**
 * A scheduled run its replica did not finish, whose trigger was disabled before pg-boss tried the
 * job again, is ended as failed saying why, not left `running` for ever (docs/sessions.md →
 * Triggers): the retry finds the run an earlier try left (`runLeftByDisabled`), and the run is
 * recorded as not resumed. On a real SQLite file, through the host's trigger service.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test, type TestContext } from "node:test";
import { defineTool } from "../../src/index.js";
import { openHost } from "../../src/server/index.js";
import { runLeftByDisabled, scheduleDue } from "../../src/server/trigger-boss.js";
import { openStore } from "../../src/store/index.js";

/** A host over a SQLite store of its own, both closed and removed when `t` ends. */
async function storeAndHost(t: TestContext) {
  const dir = mkdtempSync(path.join(tmpdir(), "toolshell-tdi-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const store = await openStore(path.join(dir, "state.db"));
  t.after(() => store.close());
  const host = await openHost({ store });
  t.after(() => host.close());
  return { store, host };
}

test("a run left running by a stopped replica, its trigger disabled since, is ended as failed and not resumed; control: a due time with no earlier run has nothing to end", async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), "toolshell-tdi-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const store = await openStore(path.join(dir, "state.db"));
  t.after(() => store.close());
  let ran = 0;
  const host = await openHost({ store, tools: { tick: defineTool({ description: "Counts.", hints: { readOnly: true }, inputSchema: { type: "object" }, execute: () => ({ ran: ++ran }) }) } });
  t.after(() => host.close());
  await store.saveScript("default", { name: "tick", description: "Counts.", input_schema: { type: "object" }, body: "tools tick" });
  const { trigger } = await host.triggers.create("default", { name: "every-minute", kind: "schedule", cron: "* * * * *", timezone: "UTC", script: "tick", input: {}, enabled: true, wake_agent_on_failure: false });

  // The job pg-boss filed at 10:05:01; its first try recorded the run as running, then its replica died.
  const created = new Date(Math.floor((Date.parse(trigger.updated_at) + 5 * 60_000) / 60_000) * 60_000 + 1000);
  const due = scheduleDue({ ...trigger, next_run_at: undefined }, created)!;
  await store.putTriggerRun({ id: due.runId, trigger_id: trigger.id, agent_id: "default", reason: "schedule", status: "running", session_id: `trg_${trigger.id}`, payload: {}, started_at: created.toISOString(), scheduled_at: due.scheduled_at });
  assert.equal(await runLeftByDisabled(store, trigger, new Date(created.getTime() + 60_000)), undefined, "control: the next minute's job left nothing");

  await host.triggers.update(trigger.id, { name: "every-minute", kind: "schedule", cron: "* * * * *", timezone: "UTC", script: "tick", input: {}, enabled: false, wake_agent_on_failure: false }, { vouch: false });
  const left = await runLeftByDisabled(store, (await store.getTrigger(trigger.id))!, new Date(created.getTime() + 29_000));
  assert.equal(left?.id, due.runId, "the retry of the same job finds the run its first try left");
  const ended = await host.triggers.run(trigger.id, "webhook", {}, left!.id);
  assert.equal(ended.status, "failed");
  assert.match(ended.error ?? "", /^trigger every-minute was disabled while this run was interrupted \(the process running it stopped\): it is not resumed; what it ran before is in session /);
  assert.ok(ended.ended_at, "the run has ended");
  assert.equal((await store.getTriggerRun(due.runId))?.status, "failed", "the store says so too");
  assert.equal(ran, 0, "nothing ran");
});

test("a trigger made or pointed at a saved script that is not there is kept, with a warning saying every run fails until it is saved; control: none once it is", async (t) => {
  const { store, host } = await storeAndHost(t);
  const spec = (script: string) => ({ name: "nightly", kind: "schedule" as const, cron: "0 3 * * *", timezone: "UTC", script, input: {}, enabled: true, wake_agent_on_failure: false });
  const { trigger } = await host.triggers.create("default", spec("later"));
  assert.equal(await host.triggers.scriptWarning(trigger), "agent default has no saved script later: every run of trigger nightly fails until it is saved (toolshell scripts save, POST /v1/agents/default/scripts)");
  await store.saveScript("default", { name: "later", description: "Saved after.", input_schema: { type: "object" }, body: "echo hi" });
  assert.equal(await host.triggers.scriptWarning(trigger), undefined);
  const moved = (await host.triggers.update(trigger.id, spec("gone")))!;
  assert.match((await host.triggers.scriptWarning(moved)) ?? "", /^agent default has no saved script gone: /);
});

test("a trigger whose input does not fit its saved script's input schema is kept, with a warning naming the fields; control: none when it fits, or the schema is open", async (t) => {
  const { store, host } = await storeAndHost(t);
  await store.saveScript("default", { name: "plain", description: "No input.", input_schema: { type: "object", properties: {} }, body: "echo hi" });
  await store.saveScript("default", { name: "typed", description: "Takes who.", input_schema: { type: "object", properties: { who: { type: "string" } }, required: ["who"] }, body: "jq -r .who" });
  await store.saveScript("default", { name: "open", description: "Takes anything.", input_schema: { type: "object", additionalProperties: true }, body: "cat" });
  const spec = (script: string, input: Record<string, unknown>, name = `t-${script}`) => ({ name, kind: "schedule" as const, cron: "0 3 * * *", timezone: "UTC", script, input, enabled: true, wake_agent_on_failure: false });
  const plain = (await host.triggers.create("default", spec("plain", { tag: "{{payload.tag}}" }))).trigger;
  assert.equal(await host.triggers.scriptWarning(plain), `trigger t-plain's input does not fit saved script plain v1: it sends "tag", which the script's input schema does not name (it names no fields). Every run fails until the trigger's input or the script's --input-schema changes`);
  const typed = (await host.triggers.create("default", spec("typed", { whom: "x" }))).trigger;
  assert.match((await host.triggers.scriptWarning(typed)) ?? "", /it sends "whom", which the script's input schema does not name \(it names who\); it does not send the required "who"/);
  assert.equal(await host.triggers.scriptWarning((await host.triggers.create("default", spec("typed", { who: "{{payload.who}}" }, "fits"))).trigger), undefined);
  assert.equal(await host.triggers.scriptWarning((await host.triggers.create("default", spec("open", { any: 1 }))).trigger), undefined);
  // The run itself fails as warned: the warning is not a guess.
  const run = await host.triggers.run(plain.id, "manual", { tag: "x" });
  assert.equal(run.status, "failed", JSON.stringify(run));
  assert.match(JSON.stringify(run), /unknown field/);
});
