/**
 * The line of a call found by reading a script (`tools plan`, the preflight's stop before start,
 * docs/architecture.md "One shell call"): the line of the whole script, also for calls inside
 * `$( )`, backquotes, nested substitutions, loops and after here-documents.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { always, createToolShell, defineTool, type ToolShell } from "../../src/index.js";
import { readScript } from "../../src/policy/script-reader.js";
import { Turns } from "../../src/policy/turns.js";

async function lines(script: string): Promise<Array<[string, number]>> {
  const r = await readScript(script, new Turns());
  return r.calls.map((c) => [(c.words ?? c.partial).join(" "), c.line]);
}

test("calls inside $( ) and backquotes carry the script's line", async () => {
  assert.deepEqual(await lines('echo a\necho b\nr=$(tools m delete x=1)\n'), [["m delete x=1", 3]]);
  assert.deepEqual(await lines("echo a\n\nz=`tools q one`\necho \"$(tools q two)\"\n"), [["q one", 3], ["q two", 4]]);
});

test("nested substitutions, multi-line substitutions and here-documents before them", async () => {
  assert.deepEqual(await lines("echo\nw=$(echo $(echo\ntools n one))\n"), [["n one", 3]]);
  assert.deepEqual(await lines("x=$(\n  echo start\n  tools m two\n)\ny=$(echo $(echo $(tools m three)))\n"), [["m two", 3], ["m three", 5]]);
  assert.deepEqual(await lines("cat <<EOF\nhi\nthere\nEOF\nz=$(cat <<X\nq\nX\ntools q four)\ntools q five\n"), [["q four", 8], ["q five", 9]]);
});

test("a $( ) in a here-document or further down a multi-line string carries its own line", async () => {
  assert.deepEqual(await lines("echo a\ncat <<EOF\ntext\n$(tools h one)\nEOF\ntools h two\n"), [["h one", 4], ["h two", 6]]);
  assert.deepEqual(await lines('echo "first\nsecond $(tools h three)\nthird `tools h four`"\n'), [["h three", 2], ["h four", 3]]);
});

test("for and while bodies, also inside a substitution, carry the script's line", async () => {
  const script = [
    "echo a", // 1
    "for i in 1 2; do", // 2
    "  tools f one", // 3
    "done", // 4
    "out=$(while read l; do", // 5
    "  tools f two", // 6
    "done; for j in $(tools f three); do :; done)", // 7
    "for k in `tools f four`; do", // 8
    "  r=$(tools f five)", // 9
    "done", // 10
  ].join("\n");
  assert.deepEqual(await lines(script), [["f one", 3], ["f two", 6], ["f three", 7], ["f four", 8], ["f five", 9]]);
});

let ts: ToolShell;
before(async () => {
  ts = await createToolShell({
    tools: {
      peek: defineTool({ description: "Look.", hints: { readOnly: true }, inputSchema: { type: "object", properties: { id: { type: "string" } } }, execute: () => "seen" }),
      wipe: defineTool({ description: "Wipe.", inputSchema: { type: "object", properties: { id: { type: "string" } } }, approval: always(), execute: () => "wiped" }),
    },
  });
});
after(async () => {
  await ts.close();
});

test("tools plan and the stop before start name the line of a call in $( ), backquotes and a for loop", async () => {
  const s = ts.session();
  const plan = await s.bash("tools plan <<'EOF' | jq -c '[.calls[] | [.tool, .line]]'\necho a\necho b\nr=$(tools peek id=1)\nz=`tools peek id=2`\nfor i in 1; do\n  tools peek id=3\ndone\nEOF");
  assert.equal(plan.exit_code, 0, plan.stderr);
  assert.deepEqual(JSON.parse(plan.stdout), [["tools peek", 3], ["tools peek", 4], ["tools peek", 6]]);
  const stopped = await s.bash("echo a\necho b\nr=$(tools wipe id=x)\n");
  assert.equal(stopped.tools?.stopped?.before_start, true);
  const m = stopped.stderr.match(/"line":(\d+)/) ?? JSON.stringify(stopped.tools).match(/"line":(\d+)/);
  assert.ok(m, `no line in ${stopped.stderr} ${JSON.stringify(stopped.tools)}`);
  assert.equal(m[1], "3");
});
