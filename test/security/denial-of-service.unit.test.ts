/**
 * Denial of service: one script must not freeze the process or grow shared state without bound.
 * The reading before the start is linear, bounded in size, gives the event loop turns and honours
 * the shell call's signal (docs/security.md, "The preflight"). These tests assert behaviour only;
 * the cost against script length is measured in bench/preflight.bench.ts.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { z } from "zod";
import { always, createToolShell, defineTool, planScript, type ToolShell } from "../../src/index.js";
import { MAX_SCRIPT_CHARS } from "../../src/policy/plan.js";
import { MAX_PREFLIGHT_REQUESTS, preflight } from "../../src/runtime/plan-command.js";
import { MAX_QUESTIONS_PER_CALL } from "../../src/call/person.js";

let ts: ToolShell;
let runs = 0;

before(async () => {
  ts = await createToolShell({
    tools: {
      del: defineTool({ description: "Deletes a record.", inputSchema: z.object({ id: z.number() }), approval: always(), execute: () => { runs++; return "1"; } }),
      count: defineTool({ description: "Counts.", inputSchema: z.object({}), hints: { readOnly: true }, execute: () => "2" }),
    },
  });
});
after(() => ts.close());

/** `n` lines of literal gated calls, each with its own input. */
const gated = (n: number) => Array.from({ length: n }, (_, i) => `tools del --id ${i}`).join("\n");

test("a script longer than the bound gets a clear error from tools plan, and the shell's own error when run; nothing runs", async () => {
  const long = `tools del --id 1\n# ${"x".repeat(MAX_SCRIPT_CHARS)}`;
  await assert.rejects(planScript(long, ts.catalog(), ts.policy, { sessionId: "s", sessionMetadata: {} }), (err: Error) => {
    assert.ok(err instanceof RangeError);
    assert.match(err.message, /the script is 1,000,019 characters; the limit is 1,000,000/);
    return true;
  });
  const s = ts.session();
  const plan = await s.bash(`printf '%${MAX_SCRIPT_CHARS + 1}s' '' | tr ' ' '#' > big.sh; tools plan big.sh`);
  assert.equal(plan.exit_code, 1);
  assert.match(plan.stderr, /"code":"invalid_input".*tools plan: the script is 1,000,001 characters; the limit is 1,000,000/);
  const r = await s.bash(long);
  assert.equal(r.exit_code, 2);
  assert.match(r.stderr, /Input too large/);
  assert.equal((await s.pendingApprovals()).length, 0, "no request was raised");
  assert.equal(runs, 0);
  // Control: a script just under the bound is read.
  const under = `tools del --id 1\n# ${"x".repeat(MAX_SCRIPT_CHARS - 100)}`;
  const { plan: p } = await planScript(under, ts.catalog(), ts.policy, { sessionId: "s", sessionMetadata: {} });
  assert.equal(p.calls.length, 1);
});

test("another timer fires while a large preflight runs (the event loop gets turns)", async () => {
  const s = ts.session();
  let ticks = 0;
  let running = true;
  const timer = setInterval(() => {
    if (running) ticks++;
  }, 1);
  try {
    const outcome = await preflight(gated(5_000), s.catalog(), ts.policy, s);
    running = false;
    assert.ok(outcome.stop, "the script is stopped before it starts");
  } finally {
    clearInterval(timer);
  }
  assert.ok(ticks > 0, "a 1 ms timer fired while the preflight ran");
});

test("the shell call's signal ends the reading: an abort from a timer stops a large plan", async () => {
  const controller = new AbortController();
  setTimeout(() => controller.abort(new Error("the time limit")), 1);
  await assert.rejects(planScript(gated(5_000), ts.catalog(), ts.policy, { sessionId: "s", sessionMetadata: {}, signal: controller.signal }), /the time limit/);
  // Control: without an abort the same plan completes.
  const { plan } = await planScript(gated(200), ts.catalog(), ts.policy, { sessionId: "s", sessionMetadata: {} });
  assert.equal(plan.calls.length, 200);
});

test("the shell call's time limit covers the pre-start check: a large script is stopped before it starts, nothing asked", async () => {
  const s = ts.session();
  const r = await s.bash(gated(5_000), { timeoutMs: 1 });
  assert.equal(r.tools?.stopped?.reason, "timeout");
  assert.equal(r.tools?.stopped?.before_start, true);
  assert.equal((await s.pendingApprovals()).length, 0, "the reading stopped before any request");
  assert.equal(runs, 0);
});

test("one script asks at most MAX_PREFLIGHT_REQUESTS distinct questions before it starts; a repeated call is asked once", async () => {
  const s = ts.session();
  const r = await s.bash(gated(800));
  assert.equal(r.tools?.stopped?.before_start, true);
  assert.equal((await s.pendingApprovals()).length, MAX_PREFLIGHT_REQUESTS);
  assert.equal(1 + (r.tools?.stopped?.also_needs_approval?.length ?? 0), MAX_PREFLIGHT_REQUESTS);
  const same = ts.session();
  const twice = await same.bash(`tools del --id 7\ntools del --id 7\ntools del --id 8`);
  assert.equal((await same.pendingApprovals()).length, 2);
  assert.equal(twice.tools?.stopped?.also_needs_approval?.length, 1);
  // Control: once the person allows the tool, the long script runs until its call limit.
  await same.answer(twice.tools!.stopped!.request_id!, "allow_always");
  const ok = await same.bash(gated(3));
  assert.equal(ok.exit_code, 0, ok.stderr);
  assert.equal(runs, 3);
});

test("a flood of progress reports from one call is bounded in the session's events and what the person is told; control: the first reports are shown in order", async (t) => {
  const shell = await createToolShell({
    tools: {
      flood: defineTool({
        description: "Reports progress many times.",
        inputSchema: z.object({}),
        hints: { readOnly: true },
        execute: (_input, ctx) => {
          for (let i = 1; i <= 20_000; i++) ctx.reportProgress?.({ progress: i, message: "step" });
          return "done";
        },
      }),
    },
  });
  t.after(() => shell.close());
  const session = shell.session("s");
  let told = 0;
  const r = await session.bash("tools flood", { person: { progress: (p) => void (p.phase === "progress" && told++) } });
  assert.equal(r.stdout, "done\n", r.stderr);
  const shown = session.events.filter((e) => e.type === "tool.progress");
  assert.ok(shown.length < 1000 && told < 1000, `${shown.length} progress events, ${told} told`);
  // Control: the first ones are all there.
  assert.deepEqual(shown.slice(0, 100).map((e) => (e as { progress?: number }).progress), Array.from({ length: 100 }, (_, i) => i + 1));
});

test("a call that asks question after question reaches the person a bounded number of times; control: the first ones are asked and answered", async (t) => {
  let declined = 0;
  const shell = await createToolShell({
    tools: {
      nag: defineTool({
        description: "Asks until told yes.",
        inputSchema: z.object({}),
        hints: { readOnly: true },
        execute: async (_input, ctx) => {
          for (let i = 0; i < 1000; i++) {
            const a = await ctx.ask!({ server: "local", command: "tools nag", message: `Again? (${i})`, requestedSchema: { type: "object", properties: {} } });
            if (a.action === "decline" && "unanswered" in a) declined++;
          }
          return "gave up";
        },
      }),
    },
  });
  t.after(() => shell.close());
  let asked = 0;
  const r = await shell.session("s").bash("tools nag", { person: { ask: async () => (asked++, { action: "decline" }) } });
  assert.equal(r.stdout, "gave up\n", r.stderr);
  assert.equal(asked, MAX_QUESTIONS_PER_CALL);
  assert.equal(declined, 1000 - MAX_QUESTIONS_PER_CALL);
});
