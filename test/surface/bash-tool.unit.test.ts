/**
 * Direct calls (the gateway and the AI SDK adapter): an input the call itself will refuse raises
 * no approval request a person would be shown.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { always, createToolShell, defineTool } from "../../src/index.js";
import { directApprovalNeeded } from "../../src/gateway/index.js";

test("a direct call with a number JSON cannot carry raises no approval request", async () => {
  const ts = await createToolShell({
    tools: { transfer: defineTool({ description: "Sends money.", inputSchema: { type: "object", properties: { amount: { type: "number" } } }, approval: always(), execute: () => "sent" }) },
  });
  try {
    const session = ts.session("d1");
    const tool = ts.catalog().topLevelTools().find((t) => t.name === "transfer")!;
    assert.equal(await directApprovalNeeded(ts, session, tool, { amount: Infinity }, "c1"), undefined);
    assert.deepEqual(await session.pendingApprovals(), []);
    const needed = await directApprovalNeeded(ts, session, tool, { amount: 5 }, "c2");
    assert.ok(needed?.requestId, "an ordinary input still asks");
    assert.equal((await session.pendingApprovals()).length, 1);
  } finally {
    await ts.close();
  }
});
