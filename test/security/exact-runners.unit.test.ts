/**
 * A gated call written through a command that runs it with exactly the words written — `command`,
 * `builtin`, `env`, `timeout`, `time`, `nice`, `nohup`, or `tools` by its path — is asked before
 * the start like a direct call, so nothing before it runs (docs/security.md "The preflight"); a
 * path to `tools` also leaves the plan incomplete (a script can write that file). Each form has
 * the control of the same call allowed always: it runs.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { always, createToolShell, defineTool, type ToolShell } from "../../src/index.js";

let ts: ToolShell;
let marks = 0;
let paid = 0;
before(async () => {
  ts = await createToolShell({
    config: { mcpServers: {} },
    tools: {
      mark: defineTool({ description: "Marks.", hints: { readOnly: false, destructive: false, openWorld: false }, inputSchema: { type: "object" }, execute: () => ({ mark: ++marks }) }),
      pay: defineTool({ description: "Pays.", inputSchema: { type: "object", properties: { id: { type: "string" } } }, needsApproval: always(), execute: () => ({ paid: ++paid }) }),
    },
  });
});
after(() => ts.close());

const FORMS = [
  "command tools pay id=1",
  "\\command tools pay id=1",
  "builtin command tools pay id=1",
  "command command tools pay id=1",
  "env A=1 tools pay id=1",
  "timeout 5 tools pay id=1",
  "time tools pay id=1",
  "nice tools pay id=1",
  "nohup tools pay id=1",
  "/usr/bin/tools pay id=1",
  "/bin/tools pay id=1",
  "f() { command tools pay id=1; }; f",
  "if true; then command tools pay id=1; fi",
  "x=$(command tools pay id=1)",
];

for (const form of FORMS) {
  test(`tools mark; ${form}: stopped before the start, nothing ran; the plan names the call as needing approval`, async () => {
    const s = ts.session(`exact-${Math.random()}`);
    const before = marks;
    const r = await s.bash(`tools mark; ${form}`);
    assert.equal(r.tools?.stopped?.reason, "needs_approval", JSON.stringify(r));
    assert.equal(r.tools?.stopped?.before_start, true, JSON.stringify(r.tools));
    assert.equal(marks, before, "the call before it did not run");
    const plan = JSON.parse((await s.bash(`tools plan <<'EOF'\ntools mark; ${form}\nEOF`)).stdout);
    const pay = plan.calls.find((c: { tool: string }) => c.tool === "tools pay");
    assert.deepEqual([pay.risk, pay.input], ["needs_approval", { id: "1" }], JSON.stringify(plan));
    if (form.startsWith("/")) assert.equal(plan.complete, false, "a path to tools: a script can write that file");
    // Control: allowed always, the same script runs through.
    await s.answer(r.tools!.stopped!.request_id!, "allow_always");
    const ran = await s.bash(`tools mark; ${form}; echo done`);
    assert.match(ran.stdout, /done\n$/, JSON.stringify(ran));
    assert.equal(ran.tools?.stopped, undefined);
  });
}
