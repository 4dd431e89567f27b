/**
 * A durable shell step whose run throws (not the store) answers the run's own `internal` error:
 * the store did not fail, so no `store.failed` event says it did, and the step stays `running`
 * (asked again, it runs again). docs/sessions.md "Durable steps". A real SQLite store.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { InMemoryFs } from "just-bash";
import { runShellStep, type DurableSessionView } from "../../src/runtime/index.js";
import type { SessionEventInput } from "../../src/call/index.js";
import { openStore } from "../../src/store/index.js";
import { tempDir } from "../fixtures/temp.js";

test("a durable step whose run throws answers internal, not a store failure, and runs again when asked again", async (t) => {
  const dir = tempDir(t);
  const store = await openStore(path.join(dir, "state.db"));
  t.after(() => store.close());
  const events: SessionEventInput[] = [];
  const fs = new InMemoryFs();
  let calls = 0;
  const view: DurableSessionView = {
    id: "s1",
    store,
    files: () => ({ fs, exclude: [] }),
    nextToolCallId: async () => `call_bash_${++calls}`,
    shellCallCount: () => calls,
    emit: (e) => events.push(e),
    pendingApprovalIds: async () => [],
  };
  await store.openSession({ id: "s1", metadata: {}, files: view.files() });
  let runs = 0;
  const failing = await runShellStep(view, { script: "echo hi", stepId: "step-a" }, async () => {
    runs++;
    throw new Error("the engine broke");
  });
  assert.equal(failing.exit_code, 1);
  assert.match(failing.stderr, /"code":"internal"/, failing.stderr);
  assert.match(failing.stderr, /the shell call failed: the engine broke/);
  assert.doesNotMatch(failing.stderr, /session store failed/);
  assert.equal(events.filter((e) => e.type === "store.failed").length, 0, JSON.stringify(events));
  assert.equal((await store.getStep("s1", "step-a"))?.status, "running");
  const again = await runShellStep(view, { script: "echo hi", stepId: "step-a" }, async (d) => {
    runs++;
    return { stdout: "hi\n", stderr: "", exit_code: 0, success: true, tool_call_id: d.toolCallId };
  });
  assert.equal(again.stdout, "hi\n");
  assert.equal(runs, 2, "asked again, the step ran again");
  assert.equal((await store.getStep("s1", "step-a"))?.status, "completed");
});
