/**
 * When redaction fails (docs/security.md "Secrets" → When redaction fails): a shell call whose
 * result the redactor throws on answers the clear error `internal` — "the output could not be
 * redacted; nothing of it is shown" — with nothing of its output, with and without a store; an
 * event it throws on is recorded as `redaction.failed` naming only its type; a tool whose output
 * is nested deeper than the redactor reaches (a real RangeError) answers the same error. The
 * process lives on and the next call of the same session works (the control).
 */
import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import { createToolShell, defineTool, type ToolShell } from "../../src/index.js";
import { openHost } from "../../src/server/index.js";

const SECRET = "sk-live-Zq81Pw55Xy20";
/** A script printing SECRET without writing it whole (so only the result holds it, not the script's event). */
const PRINTS_SECRET = `a=${SECRET.slice(0, 10)}; b=${SECRET.slice(10)}; echo "$a$b and plain words"`;
const CLEAR = { code: "internal", message: "the output could not be redacted; nothing of it is shown", retryable: false };

/** Makes the host's redactor throw, as it does on a value nested too deep for it, on every value holding `marker`. */
function failOn(shell: ToolShell, marker: string, t: TestContext): void {
  const r = shell.redactor;
  const value = r.value.bind(r);
  r.value = <T>(v: T): T => {
    if (JSON.stringify(v).includes(marker)) throw new RangeError("Maximum call stack size exceeded");
    return value(v);
  };
  t.after(() => void (r.value = value));
}

/** Nothing of the secret, nor of the redactor's own error, anywhere in `what`; with `output`, nothing of the output either. */
function assertNothingOf(what: unknown, where: string, output = false): void {
  const text = JSON.stringify(what);
  for (const part of [SECRET, "Maximum call stack", ...(output ? ["plain words"] : [])]) assert.ok(!text.includes(part), `${where} holds ${part}: ${text.slice(0, 2000)}`);
}

test("a shell call whose result the redactor fails on answers the clear error with nothing of its output; control: the next call works", async (t) => {
  const shell = await createToolShell({ secrets: [SECRET] });
  t.after(() => shell.close());
  failOn(shell, SECRET, t);
  const session = shell.session("result");
  const r = await session.bash(PRINTS_SECRET);
  assert.deepEqual(JSON.parse(r.stderr), { error: CLEAR });
  assert.deepEqual({ stdout: r.stdout, exit_code: r.exit_code, success: r.success, tools: r.tools }, { stdout: "", exit_code: 1, success: false, tools: undefined });
  assertNothingOf(r, "the result", true);
  assertNothingOf(session.events, "the events");
  assert.deepEqual(
    session.events.filter((e) => (e as { tool_call_id?: string }).tool_call_id === r.tool_call_id).map((e) => [e.type, "exit_code" in e ? e.exit_code : undefined]),
    [["shell_call.started", undefined], ["redaction.failed", undefined], ["shell_call.ended", 1]],
  );
  const next = await session.bash("echo fine");
  assert.deepEqual([next.stdout, next.exit_code], ["fine\n", 0], "control: the session goes on");
});

test("an event the redactor fails on is recorded as redaction.failed naming only its type; control: the shell call's own result stands", async (t) => {
  const shell = await createToolShell({ secrets: [SECRET] });
  t.after(() => shell.close());
  failOn(shell, "MARK-unredactable", t);
  const session = shell.session("event");
  const r = await session.bash("echo done # MARK-unredactable");
  assert.deepEqual([r.stdout, r.exit_code], ["done\n", 0]);
  const started = session.events.find((e) => e.type === "redaction.failed");
  assert.deepEqual(started && { type: started.type, event: started.event, message: started.message }, { type: "redaction.failed", event: "shell_call.started", message: CLEAR.message });
  assert.ok(!JSON.stringify(session.events).includes("MARK-unredactable"), "nothing of the event is kept");
  assert.ok(session.events.some((e) => e.type === "shell_call.ended" && e.exit_code === 0), "control: the other events are recorded");
});

test("with a store, a result the redactor fails on is the clear error, not a store failure, and the step records nothing of it; control: the next call works", async (t) => {
  const host = await openHost({ store: ":memory:", config: {}, secrets: [SECRET] });
  t.after(() => host.close());
  failOn(host.shell, SECRET, t);
  const session = host.session("stored");
  await session.ready;
  const r = await session.bash(PRINTS_SECRET, { stepId: "print" });
  assert.deepEqual(JSON.parse(r.stderr), { error: CLEAR });
  assertNothingOf(r, "the result", true);
  const steps = await host.store.listSteps("stored");
  assert.deepEqual(steps.map((s) => [s.stepId, s.status]), [["print", "completed"]]);
  assertNothingOf(steps.map((step) => step.result), "the stored step", true);
  assertNothingOf(await host.store.listEvents("stored"), "the stored events");
  assert.ok(!(await host.store.listEvents("stored")).some((e) => e.type === "store.failed"), "no store failure is reported");
  const next = await session.bash("echo fine");
  assert.deepEqual([next.stdout, next.exit_code], ["fine\n", 0], "control: the session goes on");
});

test("a tool output nested deeper than the redactor reaches answers the clear error in the script, with nothing of it; control: a shallow output and the next call show", async (t) => {
  const nested = (depth: number): unknown => {
    let v: unknown = `${SECRET} and plain words`;
    for (let i = 0; i < depth; i++) v = [v];
    return v;
  };
  const deep = defineTool({ description: "Returns a value nested `depth` deep.", inputSchema: { type: "object", properties: { depth: { type: "number" } } }, hints: { readOnly: true }, execute: ({ depth }) => nested(Number(depth)) });
  const shell = await createToolShell({ tools: { deep }, secrets: [SECRET] });
  t.after(() => shell.close());
  const session = shell.session("deep");
  const r = await session.bash("tools deep depth=3000; echo status=$?");
  assert.equal(r.stdout, "status=1\n");
  assert.deepEqual(JSON.parse(r.stderr), { error: CLEAR });
  assertNothingOf(r, "the result", true);
  assertNothingOf(session.events, "the events");
  const call = session.events.find((e) => e.type === "tool.nested_call");
  assert.deepEqual(call && "error" in call ? call.error : undefined, { code: "internal", message: CLEAR.message });
  const next = await session.bash("tools deep depth=2 | jq -c .");
  assert.deepEqual([next.stdout, next.exit_code], ['[["[REDACTED] and plain words"]]\n', 0], "control: an output it reaches is shown, redacted");
});
