/**
 * The session lease from the runtime's side (runtime/lease.ts), with two hosts in this process
 * on one real PostgreSQL store each (two replicas in all but the process): a shell call that
 * cannot have its session within its time limit answers `unavailable` and runs nothing; the
 * lease is let go when a shell call fails; an answer given inside a held session does not wait
 * for itself; a direct call waits for a shell call of the same session on the other host.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { always, defineTool } from "../../src/index.js";
import { openHost } from "../../src/server/index.js";
import { callDirect } from "../../src/surface/index.js";
import { freshDatabase } from "../fixtures/postgres.js";
import { gatedWait } from "./helpers.js";

test("a session held by one host: the other's shell call answers unavailable, then runs once it is let go", async (t) => {
  const url = await freshDatabase(t);
  const ran: string[] = [];
  const { wait, release } = gatedWait(ran);
  const tools = {
    wait,
    note: defineTool({
      description: "Notes a call.",
      hints: { destructive: false, openWorld: false },
      inputSchema: { type: "object", properties: { n: { type: "number" } } },
      execute: ({ n }) => {
        ran.push(`note ${String(n)}`);
        return { n };
      },
    }),
    pay: defineTool({
      description: "Needs a person.",
      inputSchema: { type: "object", properties: {} },
      approval: always(),
      execute: () => {
        ran.push("pay");
        return "paid";
      },
    }),
  };
  const a = await openHost({ store: url, config: {}, tools });
  t.after(() => a.close());
  const b = await openHost({ store: url, config: {}, tools });
  t.after(() => b.close());

  const long = a.session("s").bash("tools wait; tools note n=1");
  while (!ran.includes("wait")) await new Promise((resolve) => setTimeout(resolve, 10));
  const busy = await b.session("s").bash("tools note n=2", { timeoutMs: 300 });
  assert.equal(busy.exit_code, 1);
  assert.match(busy.stderr, /"code":"unavailable".*busy/);
  assert.match(busy.stderr, /"retryable":true/);
  assert.deepEqual(ran, ["wait"], "the busy call ran nothing");

  // A direct call on B waits for A's shell call, then runs with the session as A left it.
  const note = b.shell.sources[0].tools().find((x) => x.name === "note");
  assert.ok(note);
  const direct = callDirect(b.shell, b.session("s"), note, { n: 3 }, { callId: "d1" });
  // However long it is given, it does not run while A holds the session.
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.deepEqual(ran, ["wait"]);
  release();
  const first = await long;
  assert.equal(first.exit_code, 0, first.stderr);
  assert.equal((await direct).status, "ok");
  assert.deepEqual(ran, ["wait", "note 1", "note 3"]);

  // A shell call that fails lets the session go: the next one on the other host runs.
  const failed = await a.session("s").bash("tools note n=oops; exit 3");
  assert.equal(failed.exit_code, 3);
  const after = await b.session("s").bash("tools note n=4 >/dev/null; echo ok");
  assert.equal(after.stdout, "ok\n");

  // Stopped for approval on B, answered on A, run on B.
  const stopped = await b.session("s").bash("tools pay");
  const requestId = stopped.tools?.stopped?.request_id;
  assert.ok(requestId);
  await a.session("s").answer(requestId, "allow");
  const paid = await b.session("s").bash("tools pay");
  assert.equal(paid.stdout, "paid\n");
  assert.equal(ran.filter((r) => r === "pay").length, 1);
});
