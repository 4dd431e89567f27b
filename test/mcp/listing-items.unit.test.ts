/**
 * One item of a server's `tools/list` (src/mcp/listing.ts `readTool`): an item that cannot be a
 * tool is left out with why, and the rest of the listing stands ("a tool's schema never stops the
 * server's other tools", README). A definition nested without end ran the SDK's schema check out
 * of stack and failed the whole server; a name with a line break printed as two lines of the
 * listing the model reads.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { readTool } from "../../src/mcp/listing.js";

function nested(n: number): Record<string, unknown> {
  let s: Record<string, unknown> = { type: "string" };
  for (let i = 0; i < n; i++) s = { type: "object", properties: { a: s } };
  return s;
}

test("an input schema nested past the bound is left out with why; control: one nested a few levels is a tool", () => {
  for (const n of [40, 800, 5000]) assert.equal(readTool({ name: "d", inputSchema: nested(n) }), "its definition is nested more than 64 levels deep", String(n));
  const ok = readTool({ name: "d", inputSchema: nested(10) });
  assert.equal(typeof ok, "object");
  assert.equal((ok as { tool: { name: string } }).tool.name, "d");
});

test("a name holding a control character or a line separator is left out with why; control: dots, dashes and unicode letters stay", () => {
  for (const name of ["a\nb", "a\rb", "nul\u0000x", "tab\tx", "esc\u001b[2Jx", "c1\u0085x", "ls\u2028x", "ps\u2029x"]) {
    const r = readTool({ name, inputSchema: { type: "object" } });
    assert.equal(typeof r, "string", JSON.stringify(name));
    assert.match(r as string, /holds a control character/);
  }
  for (const name of ["get.issue", "make-thing_2", "résumé"]) assert.equal(typeof readTool({ name, inputSchema: { type: "object" } }), "object", name);
});
