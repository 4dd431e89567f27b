/**
 * A trigger run writes only its run times back to the trigger: a change a person makes between
 * the run reading the trigger and writing its times (another replica's PATCH) stands. The change
 * is made from inside the store, at the moment the run records itself as running, on a real
 * SQLite file and a real PostgreSQL database.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test, type TestContext } from "node:test";
import { defineTool } from "../../src/index.js";
import { openHost } from "../../src/server/index.js";
import { openStore, type Store, type TriggerRunRecord } from "../../src/store/index.js";
import { freshDatabase } from "../fixtures/postgres.js";

const tools = {
  counter: defineTool({ description: "Returns n.", hints: { destructive: false, openWorld: false }, inputSchema: { type: "object", properties: { n: { type: "number" } } }, execute: ({ n }) => ({ n }) }),
};

/** The store, with a person's change to the trigger made just as a run records itself running. */
function racing(store: Store, change: () => Promise<void>): Store {
  let done = false;
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === "putTriggerRun") {
        return async (run: TriggerRunRecord) => {
          await target.putTriggerRun(run);
          if (run.status === "running" && !done) {
            done = true;
            await change();
          }
        };
      }
      const v = Reflect.get(target, prop, receiver);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}

async function check(t: TestContext, store: Store): Promise<void> {
  t.after(() => store.close());
  await store.saveScript("default", { name: "tick", description: "Counts.", input_schema: { type: "object", properties: { n: { type: "number" } } }, body: "tools counter n=$(jq .n)" });
  let triggerId = "";
  const host = await openHost({
    store: racing(store, async () => {
      const cur = (await store.getTrigger(triggerId))!;
      await store.putTrigger({ ...cur, input: { n: 9 }, enabled: false, updated_at: new Date().toISOString() });
    }),
    tools,
  });
  t.after(() => host.close());
  const { trigger } = await host.triggers.create("default", { name: "hourly", kind: "schedule", cron: "0 * * * *", timezone: "UTC", script: "tick", input: { n: 1 }, enabled: true, wake_agent_on_failure: false });
  triggerId = trigger.id;
  const run = await host.triggers.run(trigger.id, "manual");
  assert.equal(run.status, "ok", JSON.stringify(run));
  const after = (await store.getTrigger(trigger.id))!;
  assert.deepEqual(after.input, { n: 9 }, "the change made during the run stands");
  assert.equal(after.enabled, false);
  assert.equal(after.last_run_at, run.started_at);
}

test("SQLite: a run writes only its times; a change made meanwhile stands", async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), "toolshell-trf-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  await check(t, await openStore(path.join(dir, "state.db")));
});

test("PostgreSQL: a run writes only its times; a change made meanwhile stands", async (t) => {
  const url = await freshDatabase(t);
  await check(t, await openStore(url));
});
