/**
 * Answer scope: an approval covers the input exactly as the script gave it — never what a
 * schema made of it. Schemas that transform (RegExp, Set, upper-casing), fill defaults, coerce,
 * or return new objects (Standard Schema, JSON Schema with `default`) must not let one `allow`
 * cover a different input, and the request shows the person the input as written.
 * Each case has a control: the approved input itself runs.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { z } from "zod";
import { always, createToolShell, defineTool, type ToolDefinition } from "../../src/index.js";

/** A Standard Schema validator (no library) that returns a new, normalised object. */
const lowerCase = {
  "~standard": {
    version: 1 as const,
    vendor: "test",
    validate: (v: unknown) => {
      const o = v as { name?: unknown };
      return typeof o?.name === "string" ? { value: { name: o.name.toLowerCase() } } : { issues: [{ message: "name must be a string" }] };
    },
    jsonSchema: { input: () => ({ type: "object", properties: { name: { type: "string" } }, required: ["name"] }) },
  },
};

const ran: unknown[] = [];
function gated(inputSchema: ToolDefinition["inputSchema"]): ToolDefinition {
  return defineTool({ description: "Needs a person.", inputSchema, approval: always(), execute: (input) => (ran.push(input), "ran") });
}

const CASES: Array<{ name: string; tool: ToolDefinition; approved: string; other: string; shown: Record<string, unknown> }> = [
  { name: "transform to RegExp", tool: gated(z.object({ pattern: z.string().transform((s) => new RegExp(s)) })), approved: "pattern=a", other: "pattern='.*'", shown: { pattern: "a" } },
  { name: "transform to Set", tool: gated(z.object({ tags: z.array(z.string()).transform((a) => new Set(a)) })), approved: `tags='["x"]'`, other: `tags='["x","rm-everything"]'`, shown: { tags: ["x"] } },
  { name: "transform to upper case", tool: gated(z.object({ target: z.string().transform((s) => s.toUpperCase()) })), approved: "target=prod", other: "target=PROD", shown: { target: "prod" } },
  { name: "default", tool: gated(z.object({ path: z.string(), force: z.boolean().default(false) })), approved: "path=/a force=false", other: "path=/a", shown: { path: "/a", force: false } },
  { name: "coercion", tool: gated(z.object({ amount: z.coerce.number() })), approved: "amount=5", other: "amount='\"5\"'", shown: { amount: 5 } },
  { name: "Standard Schema returning a new object", tool: gated(lowerCase as never), approved: "name=ops", other: "name=OPS", shown: { name: "ops" } },
  { name: "JSON Schema with default", tool: gated({ type: "object", properties: { mode: { type: "string", default: "dry-run" } } }), approved: "mode=dry-run", other: "", shown: { mode: "dry-run" } },
];

for (const c of CASES) {
  test(`answer scope (${c.name}): allow covers the input as written, not what the schema made of it`, async (t) => {
    const shell = await createToolShell({ tools: { act: c.tool } });
    t.after(() => shell.close());
    const session = shell.session();
    const first = await session.bash(`tools act ${c.approved}`);
    assert.equal(first.tools?.stopped?.reason, "needs_approval", first.stderr);
    const request = (await session.pendingApprovals())[0];
    // The person is shown exactly what the script wrote.
    assert.deepEqual(request.input, c.shown);
    assert.deepEqual(first.tools?.stopped?.call?.input, c.shown);
    await session.answer(request.id, "allow");
    // A different input the schema maps onto the same value is asked about again.
    ran.length = 0;
    const other = await session.bash(`x=1; tools act ${c.other}`);
    assert.equal(other.tools?.stopped?.reason, "needs_approval", `${c.name}: ${other.stderr}`);
    assert.equal(ran.length, 0, "the other input did not run");
    // Control: the approved input itself runs, once.
    const again = await session.bash(`x=1; tools act ${c.approved}`);
    assert.equal(again.exit_code, 0, again.stderr);
    assert.equal(again.stdout, "ran\n");
    assert.equal(ran.length, 1);
  });
}

test("answer scope: a plan shows the input as written, and a direct call's request too", async (t) => {
  const shell = await createToolShell({ tools: { act: gated(z.object({ pattern: z.string().transform((s) => new RegExp(s)) })) } });
  t.after(() => shell.close());
  const session = shell.session();
  const plan = await session.bash(`tools plan <<'EOF'\ntools act pattern=abc\nEOF`);
  assert.deepEqual(JSON.parse(plan.stdout).calls[0].input, { pattern: "abc" });
  const { callDirect } = await import("../../src/gateway/index.js");
  const tool = shell.sources[0].tools()[0];
  const outcome = await callDirect(shell, session, tool, { pattern: "x+" }, { callId: "d1" });
  assert.equal(outcome.status, "needs_approval");
  assert.deepEqual((await session.pendingApprovals()).find((r) => r.tool_call_id === "direct:d1")?.input, { pattern: "x+" });
});
