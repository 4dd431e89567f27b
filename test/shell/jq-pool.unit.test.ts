/**
 * One session's long jq holds one of the process's jq engines, not every session's jq
 * (src/shell/commands/jq/engine.ts, JqPool; docs/security.md "What each limit defends"): another
 * session's jq answers while it runs, and the long one still ends at its shell call's time
 * limit. The test asserts the order of events and what was printed, never durations.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createToolShell, type ToolShell } from "../../src/index.js";
import { JqPool } from "../../src/shell/commands/index.js";

let ts: ToolShell;
before(async () => {
  ts = await createToolShell({ config: { mcpServers: {} }, timeoutMs: 4000 });
});
after(() => ts.close());

test("a jq that runs to its time limit in one session: another session's jq answers first; control: the long one ends at the limit", async () => {
  const order: string[] = [];
  const long = ts.session("long").bash("jq -n 'last(range(1e15))'; echo after").then((r) => (order.push("long"), r));
  await new Promise((r) => setTimeout(r, 300));
  const quick = await ts.session("quick").bash(`echo '{"x":1}' | jq .x`);
  order.push("quick");
  assert.equal(quick.stdout, "1\n", quick.stderr);
  const l = await long;
  assert.deepEqual(order, ["quick", "long"], "the other session's jq did not wait for the long one");
  assert.notEqual(l.exit_code, 0);
  assert.match(l.stderr, /time limit|interrupted|ran past its time limit/, l.stderr);
});

test("the pool starts engines up to its size and queues past it: each run gets its own answer", async (t) => {
  const pool = new JqPool(2);
  t.after(() => pool.close());
  const run = (filter: string, input: string) =>
    pool.run({ argv: ["jq", "-c", filter, "/in"], cwd: "/", files: [{ path: "/in", data: new TextEncoder().encode(input) }], stdin: null, env: [], useEnv: false, maxOutput: 1 << 20, timeoutMs: 10_000 });
  const results = await Promise.all([1, 2, 3, 4, 5].map((n) => run(`.x * ${n}`, '{"x":2}')));
  assert.deepEqual(results.map((r) => [new TextDecoder().decode(r.stdout), r.exitCode]), [["2\n", 0], ["4\n", 0], ["6\n", 0], ["8\n", 0], ["10\n", 0]]);
});
