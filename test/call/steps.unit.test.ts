/**
 * The call pipeline's steps, one at a time, over a real ToolShell's policy and a real session:
 * each step reads and writes the call's state, and the composer runs them in the documented
 * order, skipping the work steps once a call has ended.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { z } from "zod";
import { STEPS, type CallScope, type CallState, type StopState } from "../../src/call/index.js";
import { always, createToolShell, defineTool, ToolCallError, type Session, type ToolCall, type ToolShell } from "../../src/index.js";

const SECRET = "very-secret-token-42";

async function shellWith(t: import("node:test").TestContext, extra: Parameters<typeof createToolShell>[0] = {}): Promise<ToolShell> {
  const shell = await createToolShell({
    secrets: [SECRET],
    tools: {
      echo: defineTool({
        description: "Echoes.",
        inputSchema: z.object({ n: z.number(), tag: z.string().transform((s) => s.toUpperCase()).optional() }),
        hints: { readOnly: true },
        execute: (input) => ({ ...input, key: SECRET }),
      }),
      gated: defineTool({ description: "Gated.", inputSchema: z.object({ n: z.number() }), approval: always(), execute: ({ n }) => ({ n }) }),
      boom: defineTool({ description: "Fails.", inputSchema: z.object({}), hints: { readOnly: true }, execute: () => { throw new Error(`failed with ${SECRET}`); } }),
    },
    ...extra,
  });
  t.after(() => shell.close());
  return shell;
}

function call(shell: ToolShell, session: Session, name: string, given: unknown, extra: Partial<ToolCall> = {}): ToolCall {
  const tool = shell.sources[0].tools().find((x) => x.name === name)!;
  return { callId: `test:${name}`, tool, command: `tools ${name}`, given: given as Record<string, unknown>, input: given as Record<string, unknown>, sessionId: session.id, sessionMetadata: session.metadata, via: "shell", ...extra };
}

function scope(session: Session, extra: Partial<CallScope> & { stops?: StopState[] } = {}): CallScope {
  const stops = extra.stops ?? [];
  return { session, signal: new AbortController().signal, setStop: (s) => stops.push(s), stopState: () => stops[0], ...extra };
}

function step(name: string) {
  const s = STEPS.find((x) => x.name === name);
  assert.ok(s, name);
  return s;
}

function state(shell: ToolShell, c: ToolCall, sc: CallScope): CallState {
  return { call: c, scope: sc, env: shell.pipeline.env, started: performance.now(), invoked: false };
}

test("the steps run in the documented order", () => {
  assert.deepEqual(
    STEPS.map((s) => s.name),
    ["budget", "input", "schema", "replay", "before-hooks", "policy", "invoke", "after-hooks", "redact", "record", "event"],
  );
});

test("budget: past the limit the call stops the shell call; after a stop nothing runs", async (t) => {
  const shell = await shellWith(t);
  const session = shell.session();
  const stops: StopState[] = [];
  const over = state(shell, call(shell, session, "echo", { n: 1 }, { index: 2 }), scope(session, { callLimit: 2, stops }));
  await step("budget").run(over);
  assert.equal(over.error?.code, "call_limit");
  assert.equal(stops[0].reason, "call_limit");
  const within = state(shell, call(shell, session, "echo", { n: 1 }, { index: 1 }), scope(session, { callLimit: 2 }));
  await step("budget").run(within);
  assert.equal(within.error, undefined);
  const after = state(shell, call(shell, session, "echo", { n: 1 }, { index: 0 }), scope(session, { stops }));
  await step("budget").run(after);
  assert.equal(after.error?.code, "stopped");
});

test("input: only a JSON object that JSON carries faithfully", async (t) => {
  const shell = await shellWith(t);
  const session = shell.session();
  for (const bad of [null, [1], "x", { n: Infinity }, JSON.parse('{"__proto__":{"x":1}}')]) {
    const s = state(shell, call(shell, session, "echo", bad), scope(session));
    assert.throws(() => step("input").run(s), (e: ToolCallError) => e.code === "invalid_input", JSON.stringify(bad));
  }
  const ok = state(shell, call(shell, session, "echo", { n: 1 }), scope(session));
  step("input").run(ok);
});

test("schema: the parsed value is what the tool gets; the given input is kept as written", async (t) => {
  const shell = await shellWith(t);
  const session = shell.session();
  const s = state(shell, call(shell, session, "echo", { n: 1, tag: "abc" }), scope(session));
  await step("schema").run(s);
  assert.deepEqual(s.call.input, { n: 1, tag: "ABC" });
  assert.deepEqual(s.call.given, { n: 1, tag: "abc" });
  const bad = state(shell, call(shell, session, "echo", { n: "x", extra: 1 }), scope(session));
  await assert.rejects(async () => step("schema").run(bad), (e: ToolCallError) => e.code === "invalid_input" && /unknown field "extra"/.test(e.message) && /Signature/.test(e.message));
});

test("replay: a recorded call stands in; the tool is not run but the event is recorded", async (t) => {
  const shell = await shellWith(t);
  const session = shell.session();
  const c = call(shell, session, "gated", { n: 7 }, { index: 0 });
  const s = await shell.pipeline.run(c, scope(session, { replay: (i, command, key) => (i === 0 && command === "tools gated" && key === '{"n":7}' ? { output: { kind: "json", value: "recorded" }, readOnly: false } : undefined) }));
  assert.equal(s.error, undefined, s.error?.message);
  assert.deepEqual(s.output, { kind: "json", value: "recorded" });
  assert.equal(s.judgement, undefined, "the policy was not asked again");
  assert.equal(s.invoked, false);
  const e = session.events.at(-1) as { type: string; replayed?: boolean; status: string };
  assert.deepEqual([e.type, e.status, e.replayed], ["tool.nested_call", "completed", true]);
});

test("before-hooks: deny refuses; replace becomes the given input and is checked again", async (t) => {
  let mode: "deny" | "replace" | "bad" = "deny";
  const shell = await shellWith(t, {
    hooks: {
      beforeToolCall: () => (mode === "deny" ? { action: "deny", reason: "not today" } : mode === "replace" ? { action: "replace", input: { n: 2, tag: "x" } } : { action: "replace", input: { n: "two" } }),
    },
  });
  const session = shell.session();
  const denied = await shell.pipeline.run(call(shell, session, "echo", { n: 1 }), scope(session));
  assert.equal(denied.error?.code, "denied");
  assert.match(denied.error!.message, /not today/);
  mode = "replace";
  const replaced = await shell.pipeline.run(call(shell, session, "echo", { n: 1 }), scope(session));
  assert.deepEqual(replaced.call.given, { n: 2, tag: "x" });
  assert.deepEqual(replaced.call.input, { n: 2, tag: "X" });
  mode = "bad";
  const bad = await shell.pipeline.run(call(shell, session, "echo", { n: 1 }), scope(session));
  assert.equal(bad.error?.code, "invalid_input");
  assert.equal(bad.invoked, false);
});

test("policy: a gated call raises a request and stops; an allow lets that exact given input through once", async (t) => {
  const shell = await shellWith(t);
  const session = shell.session();
  const stops: StopState[] = [];
  const first = await shell.pipeline.run(call(shell, session, "gated", { n: 1 }), scope(session, { stops }));
  assert.equal(first.error?.code, "needs_approval");
  assert.equal(first.invoked, false);
  assert.ok(first.requestId);
  assert.equal(stops[0].requestId, first.requestId);
  assert.deepEqual((await session.pendingApprovals())[0].input, { n: 1 });
  await session.answer(first.requestId!, "allow");
  const again = await shell.pipeline.run(call(shell, session, "gated", { n: 1 }), scope(session));
  assert.equal(again.error, undefined);
  assert.deepEqual(again.output?.value, { n: 1 });
  const third = await shell.pipeline.run(call(shell, session, "gated", { n: 1 }), scope(session));
  assert.equal(third.error?.code, "needs_approval", "the one-off answer was used up");
});

test("invoke, after-hooks, redact: failures reach after-hooks; secrets leave neither output nor error", async (t) => {
  const seen: string[] = [];
  const shell = await shellWith(t, {
    hooks: {
      afterToolCall: (c, r) => {
        seen.push(`${c.tool.name}:${r.ok ? "ok" : r.error.code}`);
        return r.ok && c.tool.name === "echo" ? { output: { kind: "json", value: { replaced: true, key: SECRET } } } : undefined;
      },
    },
  });
  const session = shell.session();
  const ok = await shell.pipeline.run(call(shell, session, "echo", { n: 1 }), scope(session));
  assert.deepEqual(ok.output?.value, { replaced: true, key: "[REDACTED]" });
  const failed = await shell.pipeline.run(call(shell, session, "boom", {}), scope(session));
  assert.equal(failed.error?.code, "tool_error");
  assert.equal(failed.error?.message, "boom: failed with [REDACTED]");
  assert.deepEqual(seen, ["echo:ok", "boom:tool_error"]);
});

test("record and event run for every call, in that order, even for calls that never reached the tool", async (t) => {
  const shell = await shellWith(t);
  const session = shell.session();
  const order: string[] = [];
  const sc = scope(session, {
    record: (s) => order.push(`record:${s.error?.code ?? "ok"}`),
    session: { emit: (e) => order.push(`event:${(e as { status: string }).status}`), invokeContext: (c, sig) => session.invokeContext(c, sig) },
  });
  await shell.pipeline.run(call(shell, session, "echo", "nope"), sc);
  await shell.pipeline.run(call(shell, session, "echo", { n: 1 }), sc);
  assert.deepEqual(order, ["record:invalid_input", "event:failed", "record:ok", "event:completed"]);
});
