/**
 * A durable step stopped for approval says what happens to the rest of its script
 * (docs/sessions.md "Durable steps"): it goes on from the stop when its step_id is sent again
 * (what ran is replayed), so the stop report does not tell the agent to write a new script;
 * without a step it does. A real SQLite store.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { always, createToolShell, defineTool } from "../../src/index.js";
import { openStore } from "../../src/store/index.js";
import { tempDir } from "../fixtures/temp.js";

test("a step stopped for approval: not_reached says the rest runs when the step is sent again; control: without a step, write a new script", async (t) => {
  const store = await openStore(path.join(tempDir(t), "state.db"));
  t.after(() => store.close());
  let paid = 0;
  const ts = await createToolShell({
    config: { mcpServers: {} },
    store,
    tools: { pay: defineTool({ description: "Pays.", inputSchema: { type: "object" }, needsApproval: always(), execute: () => ({ paid: ++paid }) }) },
  });
  t.after(() => ts.close());
  const s = ts.session("steps");
  // Held before the start (the preflight read the call), and stopped midway (an input built at run time).
  const held = await s.bash("echo before; tools pay; echo after", { stepId: "step-held" });
  assert.equal(held.tools?.stopped?.before_start, true);
  assert.equal(held.tools?.not_reached, "the whole script: nothing ran; once the request is answered, send step step-held again");
  const script = 'echo before; tools pay "$(echo {})"; echo after';
  const stopped = await s.bash(script, { stepId: "step-pay" });
  assert.equal(stopped.tools?.stopped?.reason, "needs_approval");
  assert.equal(stopped.tools?.stopped?.before_start, undefined, JSON.stringify(stopped.tools));
  assert.equal(stopped.tools?.not_reached, "the stopped call and everything after it: they run once the request is answered and step step-pay is sent again (what ran is replayed, not run again)");
  await s.answer(stopped.tools!.stopped!.request_id!, "allow");
  const resumed = await s.bash(script, { stepId: "step-pay" });
  assert.match(resumed.stdout, /\{"paid":1\}\nafter\n$/, "sent again, the step went on from the stop");
  // Without a step: a new script for the rest, as before.
  const plain = await s.bash('tools pay "$(echo {})"');
  assert.equal(plain.tools?.not_reached, "the stopped call and everything after it; write a new script for the rest");
  const plainHeld = await s.bash("tools pay");
  assert.equal(plainHeld.tools?.not_reached, "the whole script: nothing ran; after the person answers, run the same script again");
});
