/**
 * One canonical form of names (docs/security.md "Answers are bound to what was shown"): a config
 * rule written with full-width letters or an invisible character names the same tool as its
 * plain spelling, so a `block` is not missed. Control: the plain rule blocks, and with no rule the
 * tool runs. Real toolshell, a local tool.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { z } from "zod";
import { createToolShell, defineTool } from "../../src/index.js";

async function runs(rule: string | undefined): Promise<boolean> {
  let ran = false;
  const ts = await createToolShell({
    config: rule === undefined ? {} : ({ approval: { tools: { [rule]: "block" } } } as never),
    tools: { del: defineTool({ description: "Deletes.", inputSchema: z.object({ id: z.number() }), hints: { readOnly: true }, execute: () => ((ran = true), "1") }) },
  });
  try {
    await ts.session().bash("tools del --id 1");
  } finally {
    await ts.close();
  }
  return ran;
}

test("a block rule spelled with full-width letters, a zero-width space or a soft hyphen blocks the tool; control: no rule, it runs; the plain rule blocks", async () => {
  assert.equal(await runs(undefined), true, "control: the tool runs");
  assert.equal(await runs("del"), false, "control: the plain rule blocks");
  for (const rule of ["ｄｅｌ", "d\u200bel", "de\u00adl", "\ufeffdel", "ＤＥＬ "]) assert.equal(await runs(rule), false, JSON.stringify(rule));
});
