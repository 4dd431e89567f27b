/**
 * Names compared in one canonical form: a config rule covers the tool it names, however the rule
 * is spaced or cased, and never a second tool of the server whose name folds to the same form
 * (`get-report` and `GET_REPORT`); each of the two is reached by its exact spelling, under its own
 * command, so an answer for one never covers the other. Each form has a control.
 * See docs/security.md ("Answers are bound to what was shown").
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test, type TestContext } from "node:test";
import { createToolShell } from "../../src/index.js";
import { sdkModule } from "../fixtures/mcp/index.js";

/** A stdio server with `get-report` (read-only), `GET_REPORT` (destructive) and `list-items`. */
function server(t: TestContext): string {
  const dir = mkdtempSync(path.join(tmpdir(), "ts-names-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, "fake.mjs");
  writeFileSync(
    file,
    [
      `import { McpServer } from ${JSON.stringify(sdkModule("@modelcontextprotocol/server"))};`,
      `import { StdioServerTransport } from ${JSON.stringify(sdkModule("@modelcontextprotocol/server/stdio"))};`,
      `const server = new McpServer({ name: "fake", version: "1.0.0" });`,
      `server.registerTool("get-report", { description: "Reads the report.", annotations: { readOnlyHint: true } }, () => ({ content: [{ type: "text", text: "read" }] }));`,
      `server.registerTool("GET_REPORT", { description: "Deletes the report.", annotations: { destructiveHint: true } }, () => ({ content: [{ type: "text", text: "DELETED" }] }));`,
      `server.registerTool("list-items", { description: "Lists.", annotations: { destructiveHint: true } }, () => ({ content: [{ type: "text", text: "listed" }] }));`,
      `await server.connect(new StdioServerTransport());`,
    ].join("\n"),
  );
  return file;
}

async function shellWith(t: TestContext, tools: Record<string, "always" | "never" | "block">) {
  const shell = await createToolShell({ config: { mcpServers: { fake: { command: process.execPath, args: [server(t)] } }, approval: { tools } } });
  t.after(() => shell.close());
  return shell;
}

test("a rule for `fake get-report` does not exempt GET_REPORT: each is reached by its exact spelling under its own command; control: get-report runs", async (t) => {
  const shell = await shellWith(t, { "fake get-report": "never" });
  const s = shell.session("names");
  for (const word of ["GET_REPORT", "GET-REPORT"]) {
    const r = await s.bash(`tools fake ${word}`);
    assert.equal(r.tools?.stopped?.reason, "needs_approval", `${word}: ${JSON.stringify(r)}`);
    assert.doesNotMatch(r.stdout, /DELETED/);
  }
  // A folded spelling naming both reaches neither.
  const both = await s.bash("tools fake get_REPORT");
  assert.equal(both.exit_code !== 0 && !/DELETED|read/.test(both.stdout), true, JSON.stringify(both));
  const ok = await s.bash("tools fake get-report");
  assert.equal(ok.stdout, "read\n", ok.stderr);
  // An answer for one never covers the other: they have different commands.
  const stopped = (await s.bash("tools fake GET_REPORT")).tools!.stopped!;
  await s.answer(stopped.request_id!, "allow_always");
  const other = await shell.session("names-2").bash("tools fake GET_REPORT");
  assert.equal(other.tools?.stopped?.reason, "needs_approval", "another session still asks");
  const again = await s.bash("tools fake GET_REPORT");
  assert.equal(again.stdout, "DELETED\n", "control: allowed, it runs");
});

test("a block written with other spacing or case matches every spelling of the tool; control: the other tools still run", async (t) => {
  for (const rule of [" TOOLS  Fake\tList_Items ", "fake LIST-ITEMS", "Tools fake list_items"]) {
    const shell = await shellWith(t, { [rule]: "block" });
    const s = shell.session("block");
    for (const word of ["list-items", "list_items", "LIST-ITEMS", "List_Items"]) {
      const r = await s.bash(`tools fake ${word}`);
      assert.doesNotMatch(r.stdout, /listed/, `${JSON.stringify(rule)} / ${word}`);
      assert.match(r.stderr, /denied|block/i, `${JSON.stringify(rule)} / ${word}: ${r.stderr}`);
    }
    const ok = await s.bash("tools fake get-report");
    assert.equal(ok.stdout, "read\n", `control under ${JSON.stringify(rule)}: ${ok.stderr}`);
    await shell.close();
  }
});

test("a rule spelling neither of two namesakes covers both, the stricter way; an exact spelling covers only its own", async (t) => {
  const shell = await shellWith(t, { "FAKE get_Report": "block" });
  const s = shell.session("neither");
  assert.match((await s.bash("tools fake get-report")).stderr, /denied|block/i);
  assert.match((await s.bash("tools fake GET_REPORT")).stderr, /denied|block/i);
  const exact = await shellWith(t, { "fake GET_REPORT": "block" });
  const e = exact.session("exact");
  assert.match((await e.bash("tools fake GET_REPORT")).stderr, /denied|block/i);
  const ctl = await e.bash("tools fake get-report");
  assert.equal(ctl.stdout, "read\n", `control: the namesake the rule does not spell runs: ${ctl.stderr}`);
});

test("with allowedTools, a saved script it does not name is unreachable; control: one it names runs", async (t) => {
  const { openHost } = await import("../../src/server/index.js");
  const { defineTool } = await import("../../src/index.js");
  const note = defineTool({ description: "Notes.", inputSchema: { type: "object", properties: {} }, hints: { destructive: false, openWorld: false }, execute: () => "noted" });
  const save = (name: string) => `echo 'echo ran-${name}' | tools scripts save ${name} --description 'Says it ran.'`;
  const open = await openHost({ store: ":memory:", tools: { note }, config: { manageScripts: true } });
  t.after(() => open.close());
  const s = open.session("saver");
  assert.equal((await s.bash(save("hidden-one"))).exit_code, 0);
  assert.equal((await s.bash(save("shown-one"))).exit_code, 0);
  const limited = await openHost({ store: open.store, tools: { note }, config: { manageScripts: true }, allowedTools: ["note", "scripts shown-one", "scripts save"] });
  t.after(() => limited.close());
  const l = limited.session("saver");
  for (const form of ["tools scripts hidden-one", "tools hidden-one", "tools scripts HIDDEN_ONE", "c=hidden-one; tools scripts $c", "echo '{}' | tools scripts hidden-one -"]) {
    const r = await l.bash(form);
    assert.doesNotMatch(r.stdout, /ran-hidden-one/, `${form}: ${JSON.stringify(r)}`);
    assert.notEqual(r.exit_code, 0, form);
  }
  // Nor listed, shown, saved over or archived: to this session it does not exist.
  assert.doesNotMatch((await l.bash("tools scripts; tools scripts --json; tools scripts --archived")).stdout, /hidden-one/);
  for (const form of ["tools scripts show hidden-one", "tools scripts versions hidden-one", "tools scripts archive hidden-one", "echo 'echo SWAPPED' | tools scripts save hidden-one --description x"]) {
    const r = await l.bash(form);
    assert.match(r.stderr, /"code":"unknown_command"/, `${form}: ${JSON.stringify(r)}`);
  }
  assert.equal((await s.bash("tools scripts hidden-one")).stdout, "ran-hidden-one\n", "control: untouched for a session it is allowed to");
  const ok = await l.bash("tools scripts shown-one");
  assert.equal(ok.stdout, "ran-shown-one\n", `control: ${ok.stderr}`);
});
