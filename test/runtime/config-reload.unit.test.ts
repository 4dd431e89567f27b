/**
 * A running host acts on the settings the person has now (README "Changing servers while
 * running"): approval rules written into the watched config file (`always`, `block`,
 * `mode: protective`) judge the next call, a local tool file that gained `needsApproval` or a
 * destructive hint asks from its next call, a deleted one is gone, and each reload says what
 * changed (or why it was refused, keeping the last good one). Real files, a real watcher.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { createToolShell } from "../../src/index.js";
import { watchConfigFile } from "../../src/runtime/config-watch.js";
import { toolFile } from "../fixtures/tool-file.js";

const stoppedFor = (r: { tools?: { stopped?: { reason?: string } } }) => r.tools?.stopped?.reason;

test("library watcher: approval rules and tool files written while the host runs apply to the next call, and each reload says what changed", async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), "toolshell-reload-"));
  const tools = path.join(dir, "tools");
  mkdirSync(tools);
  const file = path.join(dir, "toolshell.config.json");
  const write = (approval: unknown) => writeFileSync(file, JSON.stringify({ tools: "tools", approval }));
  write({ mode: "normal" });
  writeFileSync(path.join(tools, "mark.mjs"), toolFile('hints: { readOnly: false, destructive: false, openWorld: false },'));
  writeFileSync(path.join(tools, "note.ts"), toolFile('hints: { readOnly: false, destructive: false, openWorld: false },'));
  const ts = await createToolShell({ config: file });
  const reported: string[] = [];
  const changed: string[][] = [];
  const w = watchConfigFile(ts, file, { debounceMs: 50, onError: (m) => reported.push(m), onReload: (c) => changed.push(c) });
  t.after(async () => {
    w.close();
    await ts.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const s = ts.session();
  const settle = async (ok: () => boolean) => {
    for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 50));
    await w.settled();
  };
  // Control: both run without asking.
  assert.equal((await s.bash("tools mark")).stdout, "marked\n");
  assert.equal((await s.bash("tools note")).stdout, "marked\n");

  write({ mode: "normal", tools: { mark: "always" } });
  await settle(() => changed.length >= 1);
  assert.deepEqual(changed.at(-1), ["approval.tools"]);
  assert.equal(stoppedFor(await s.bash("tools mark")), "needs_approval");

  write({ mode: "normal", tools: { "  MARK ": "block" } });
  await settle(() => changed.length >= 2);
  const blocked = await s.bash("tools mark");
  assert.notEqual(blocked.exit_code, 0);
  assert.doesNotMatch(blocked.stdout, /marked/);

  write({ mode: "protective" });
  await settle(() => changed.length >= 3);
  assert.deepEqual(changed.at(-1), ["approval.mode", "approval.tools"]);
  assert.equal(stoppedFor(await s.bash("tools note")), "needs_approval");

  write({ mode: "normal" });
  await settle(() => changed.length >= 4);
  assert.equal((await s.bash("tools note")).stdout, "marked\n");

  // A broken edit is reported and the rules in force stay.
  writeFileSync(file, "{ broken");
  await settle(() => reported.length >= 1);
  assert.equal((await s.bash("tools note")).stdout, "marked\n");
  write({ mode: "normal" });
  await settle(() => w.errors().length === 0);

  // Tool files: one gains a destructive hint, one needsApproval; each asks from its next call.
  const before = changed.length;
  writeFileSync(path.join(tools, "mark.mjs"), toolFile('hints: { readOnly: false, destructive: true, openWorld: false },'));
  await settle(() => changed.slice(before).some((c) => c.includes("tool mark")));
  assert.equal(stoppedFor(await s.bash("tools mark")), "needs_approval");
  const before2 = changed.length;
  writeFileSync(path.join(tools, "note.ts"), toolFile("needsApproval: () => true, hints: { readOnly: false, destructive: false, openWorld: false },"));
  await settle(() => changed.slice(before2).some((c) => c.includes("tool note")));
  assert.equal(stoppedFor(await s.bash("tools note")), "needs_approval");

  // A deleted tool file: the tool is gone, and the reload says so.
  const before3 = changed.length;
  unlinkSync(path.join(tools, "note.ts"));
  await settle(() => changed.slice(before3).some((c) => c.includes("tool note (gone)")));
  assert.match((await s.bash("tools note")).stderr, /unknown_command/);
  // A new file: said as new. An edit of its code alone (same definition): said as changed, and run.
  const before4 = changed.length;
  writeFileSync(path.join(tools, "fresh.mjs"), toolFile(SAFE_HINTS));
  await settle(() => changed.slice(before4).some((c) => c.includes("tool fresh (new)")));
  const before5 = changed.length;
  writeFileSync(path.join(tools, "fresh.mjs"), toolFile(SAFE_HINTS).replace('execute: () => "marked"', 'execute: () => "marked again"'));
  await settle(() => changed.slice(before5).some((c) => c.includes("tool fresh")));
  assert.deepEqual(changed.at(-1), ["tool fresh"]);
  assert.equal((await s.bash("tools fresh")).stdout, "marked again\n");
});

const SAFE_HINTS = "hints: { readOnly: false, destructive: false, openWorld: false },";
