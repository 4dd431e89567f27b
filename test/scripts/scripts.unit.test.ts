/**
 * Saved scripts through the real shell: saving (only with manageScripts), listing, running with
 * every input form, versions and archive, the caller's filesystem, budget, approvals and stop,
 * four levels of nesting, and no curl/toolshell inside.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { always, defineTool } from "../../src/index.js";
import { openHost, type Host } from "../../src/server/index.js";
import { createToolshellTools } from "../../src/ai/index.js";
import { bashToolSpec } from "../../src/surface/index.js";

const counts = { counter: 0, danger: 0 };
const tools = {
  counter: defineTool({
    description: "Counts calls.",
    hints: { destructive: false, openWorld: false },
    inputSchema: { type: "object", properties: { n: { type: "number" } } },
    execute: ({ n }) => {
      counts.counter++;
      return { n: n ?? null, count: counts.counter };
    },
  }),
  danger: defineTool({
    description: "Does something a person must allow.",
    inputSchema: { type: "object", properties: {} },
    approval: always(),
    execute: () => {
      counts.danger++;
      return "done";
    },
  }),
};

const SAVE_ECHO = `cat <<'EOF' | tools scripts save echo-input --description 'Prints its input and a greeting.' --input-schema '{"type":"object","properties":{"who":{"type":"string"},"n":{"type":"number"}},"required":["who"]}'
input=$(cat)
echo "$input" > last-input.json
echo "hello $(echo "$input" | jq -r .who)"
EOF`;

let host: Host;
let readOnly: Host;
before(async () => {
  host = await openHost({ store: ":memory:", tools, config: { manageScripts: true } });
  readOnly = await openHost({ store: ":memory:", tools, config: { manageScripts: false } });
});
after(async () => {
  await host.close();
  await readOnly.close();
});

test("saving needs manageScripts; without it the answer is denied and nothing is saved", async () => {
  const r = await readOnly.session().bash(SAVE_ECHO);
  assert.equal(r.exit_code, 1);
  const error = JSON.parse(r.stderr.trim().split("\n").pop()!).error;
  assert.equal(error.code, "denied");
  assert.match(error.message, /"manageScripts": true in toolshell\.config\.json/, "the answer says where a person turns it on");
  assert.deepEqual(await readOnly.store.listScripts("default", { includeArchived: true }), []);
});

test("a saved script is listed, in tools --help and search, and runs with k=v, a JSON argument or stdin", async () => {
  const s = host.session();
  const saved = await s.bash(SAVE_ECHO);
  assert.equal(saved.exit_code, 0, saved.stderr);
  assert.deepEqual(JSON.parse(saved.stdout), { saved: "echo-input", version: 1, run: "tools scripts echo-input" });
  const r = await s.bash(
    [
      "tools scripts",
      "tools --help | grep -i 'saved scripts'",
      "tools search greeting",
      "tools scripts echo-input who=ann n=3",
      `tools scripts echo_input '{"who":"bob"}'`,
      `echo '{"who":"cy"}' | tools scripts echo-input`,
      "cat last-input.json",
    ].join("\n"),
  );
  assert.equal(r.exit_code, 0, r.stderr);
  const out = r.stdout;
  assert.match(out, /echo-input\s+v1\s+Prints its input/);
  assert.match(out, /Saved scripts: tools scripts \(\d+ scripts?\)/);
  assert.match(out, /tools scripts echo-input who=<string>/);
  assert.match(out, /hello ann\nhello bob\nhello cy\n/);
  // The input arrives on stdin as the checked JSON object.
  assert.deepEqual(JSON.parse(out.trim().split("\n").pop()!), { who: "cy" });
  const bad = await s.bash("tools scripts echo-input n=1");
  assert.equal(bad.exit_code, 1);
  const err = JSON.parse(bad.stderr.trim()).error;
  assert.equal(err.code, "invalid_input");
  assert.match(err.message, /who/);
  const unknown = await s.bash("tools scripts no-such-script");
  assert.equal(JSON.parse(unknown.stderr.trim()).error.code, "unknown_command");
});

test("saving again keeps history; archived scripts are hidden, listed with --archived, and do not run", async () => {
  const s = host.session();
  const save = (body: string) =>
    s.bash(`cat <<'EOF' | tools scripts save versioned --description 'Says a version.'\n${body}\nEOF`);
  assert.equal((await save("echo one")).exit_code, 0);
  const second = await save("echo two");
  const { note, ...answer } = JSON.parse(second.stdout);
  assert.deepEqual(answer, { saved: "versioned", version: 2, previous_version: 1, run: "tools scripts versioned" });
  assert.match(note, /takes no input/, "it was saved without an input schema");
  const r = await s.bash("tools scripts versioned; tools scripts show versioned --version 1 | tail -1; tools scripts versions versioned | wc -l");
  assert.equal(r.stdout, "two\necho one\n2\n");
  const archived = await s.bash("tools scripts archive versioned");
  assert.deepEqual(JSON.parse(archived.stdout), { name: "versioned", archived: true });
  const list = await s.bash("tools scripts; echo ---; tools scripts --archived");
  const [active, all] = list.stdout.split("---\n");
  assert.doesNotMatch(active, /versioned/);
  assert.match(all, /versioned\s+v2 \(archived\)/);
  const run = await s.bash("tools scripts versioned");
  assert.equal(JSON.parse(run.stderr.trim()).error.code, "unknown_command");
  assert.equal((await s.bash("tools scripts unarchive versioned; tools scripts versioned")).stdout.trim().split("\n").pop(), "two");
});

test("a saved script shares the caller's filesystem, and its calls are the caller's nested calls", async () => {
  const s = host.session();
  await s.bash(`cat <<'EOF' | tools scripts save note-taker --description 'Reads note.txt, counts, writes reply.txt.'\ntools counter n=1 > /dev/null\necho "got: $(cat note.txt)" > reply.txt\nEOF`);
  const r = await s.bash("echo hi > note.txt\ntools scripts note-taker\ncat reply.txt");
  assert.equal(r.exit_code, 0, r.stderr);
  assert.equal(r.stdout, "got: hi\n");
  const calls = s.events.filter((e) => e.type === "tool.nested_call" && (e as Record<string, unknown>).parent_tool_call_id === r.tool_call_id);
  assert.deepEqual(calls.map((e) => (e as Record<string, unknown>).command), ["tools counter", "tools scripts note-taker"]);
});

test("its nested calls count against the caller's budget of 50", async () => {
  const s = host.session();
  await s.bash(`cat <<'EOF' | tools scripts save thirty --description 'Thirty counter calls.'\nfor i in $(seq 1 30); do tools counter n=$i > /dev/null || exit 1; done\nEOF`);
  const start = counts.counter;
  const r = await s.bash("tools scripts thirty\ntools scripts thirty\necho not-reached");
  assert.equal(r.exit_code, 1);
  assert.equal(r.tools?.stopped?.reason, "call_limit");
  assert.doesNotMatch(r.stdout, /not-reached/);
  // 50 nested calls in all: two script runs, 30 counter calls, then 18 before the limit.
  assert.equal(counts.counter - start, 48);
});

test("a call that needs approval inside a saved script stops the caller with the stop report; the caller's answers apply", async () => {
  const s = host.session();
  await s.bash(`cat <<'EOF' | tools scripts save risky --description 'Counts, then does something risky.'\ntools counter n=1 > /dev/null\ntools danger\necho after-danger\nEOF`);
  const r = await s.bash("tools scripts risky\necho after-script");
  assert.equal(r.exit_code, 1);
  assert.equal(r.tools?.stopped?.reason, "needs_approval");
  assert.equal(r.tools?.stopped?.call?.tool, "tools danger");
  assert.doesNotMatch(r.stdout, /after-/);
  assert.equal(counts.danger, 0);
  assert.deepEqual(r.tools?.done.map((d) => d.tool), ["tools counter"]);
  const [req] = await s.pendingApprovals();
  assert.equal(req.tool, "tools danger");
  await s.answer(req.id, "allow_always");
  const again = await s.bash("tools scripts risky\necho after-script");
  assert.equal(again.exit_code, 0, again.stderr);
  assert.match(again.stdout, /after-danger\nafter-script\n$/);
  assert.equal(counts.danger, 1);
});

test("saved scripts call each other at most four deep; inside them there is no curl and no toolshell", async () => {
  const s = host.session();
  const save = await s.bash(`cat <<'EOF' | tools scripts save nest --description 'Calls itself one level deeper.' --input-schema '{"type":"object","properties":{"d":{"type":"number"}},"required":["d"]}'
d=$(jq -r .d)
echo "$d" >> depth.log
tools scripts nest d=$((d + 1)) || exit 1
EOF`);
  assert.equal(save.exit_code, 0, save.stderr);
  const r = await s.bash("tools scripts nest d=1");
  assert.equal(r.exit_code, 1);
  assert.match(r.stderr, /at most 4 deep/);
  assert.match(r.stderr, /call_limit/);
  assert.equal((await s.bash("cat depth.log")).stdout, "1\n2\n3\n4\n");

  await s.bash(`cat <<'EOF' | tools scripts save no-net --description 'Tries curl and toolshell.'\ncurl -s https://example.com; echo "curl=$?"\ntoolshell list; echo "toolshell=$?"\nEOF`);
  const n = await s.bash("tools scripts no-net");
  assert.equal(n.exit_code, 0, n.stderr);
  assert.equal(n.stdout, "curl=127\ntoolshell=127\n");
});

test("tools plan cannot see inside a saved script: the plan is incomplete and names the call", async () => {
  const s = host.session();
  await s.bash(`cat <<'EOF' | tools scripts save hidden-risk --description 'Does something risky inside.'\ntools danger\nEOF`);
  const r = await s.bash(`tools plan <<'PLAN'\ntools scripts hidden-risk\nPLAN`);
  assert.equal(r.exit_code, 0, r.stderr);
  const plan = JSON.parse(r.stdout);
  assert.equal(plan.complete, false);
  assert.equal(plan.calls[0].tool, "tools scripts hidden-risk");
  // And the stopped saved-script call has its own event, status stopped.
  const stopped = await s.bash(`tools scripts hidden-risk`);
  assert.equal(stopped.tools?.stopped?.reason, "needs_approval");
  const events = s.events.filter((e) => e.type === "tool.nested_call" && (e as { parent_tool_call_id?: string }).parent_tool_call_id === stopped.tool_call_id) as Array<{ tool_name: string; status: string }>;
  assert.deepEqual(events.map((e) => [e.tool_name, e.status]), [["danger", "needs_approval"], ["hidden-risk", "stopped"]]);
});

test("a new session's bash tool description counts the saved scripts before its first call, through the AI SDK adapter and the spec the gateway lists", async () => {
  const saver = host.session("describes-saver");
  const saved = await saver.bash(SAVE_ECHO.replace("save echo-input", "save described-script"));
  assert.equal(saved.exit_code, 0, saved.stderr);
  const listed = (await host.store.listScripts("default")).length;
  assert.ok(listed >= 1);
  const fresh = host.session("describes-fresh");
  await fresh.ready;
  const expected = `scripts (${listed} script${listed === 1 ? "" : "s"})`;
  assert.ok(bashToolSpec(host.shell, fresh).description.includes(expected), bashToolSpec(host.shell, fresh).description);
  const tools = await createToolshellTools({ shell: host.shell, session: "describes-ai" });
  const description = typeof tools.bash.description === "function" ? (tools.bash.description as () => string)() : String(tools.bash.description);
  assert.ok(description.includes(expected), description);
});

test("saving a script again from the shell without --input-schema keeps the previous version's, and says so", async () => {
  const s = host.session();
  const typed = '{"type":"object","properties":{"who":{"type":"string"}},"required":["who"]}';
  const v1 = await s.bash(`echo 'echo "hi $(jq -r .who)"' | tools scripts save keeper --description 'v1' --input-schema '${typed}'`);
  assert.equal(v1.exit_code, 0, v1.stderr);
  const v2 = await s.bash(`echo 'echo "hello $(jq -r .who)"' | tools scripts save keeper --description 'v2'`);
  assert.equal(v2.exit_code, 0, v2.stderr);
  assert.deepEqual(JSON.parse(v2.stdout).input_schema_kept, JSON.parse(typed));
  const ran = await s.bash("tools scripts keeper who=zoe");
  assert.equal(ran.stdout, "hello zoe\n", ran.stderr);
  // Control: a first version saved without a schema has no fields.
  const fresh = await s.bash(`echo 'echo x' | tools scripts save fresh-one --description 'f'`);
  assert.equal(JSON.parse(fresh.stdout).input_schema_kept, undefined);
  assert.deepEqual((await host.store.getScript("default", "fresh-one"))?.input_schema, { type: "object", properties: {} });
  // It says it takes no input, and how to give it some; a typed one says nothing of the kind.
  assert.match(JSON.parse(fresh.stdout).note, /takes no input .* save it with --input-schema/);
  assert.equal(JSON.parse(v2.stdout).note, undefined);
});
