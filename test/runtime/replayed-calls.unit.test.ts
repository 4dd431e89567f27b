/**
 * The preflight of a resumed durable step (docs/sessions.md "Durable steps"): which gated literal
 * calls the replay answers from the step's record, so nobody is asked about them again. The whole
 * path with a real SIGKILL is in test/replicas/sessions.test.ts.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { canonicalJson } from "../../src/policy/index.js";
import type { RecordedCall } from "../../src/runtime/durable.js";
import { createReplayer, replayedCalls } from "../../src/runtime/replay.js";

const rec = (index: number, command: string, input: Record<string, unknown>): RecordedCall => ({
  index,
  callId: `call_bash_1:tools:${index}:${command}`,
  command,
  inputKey: canonicalJson(input),
  output: { kind: "text", text: "ok" } as unknown as RecordedCall["output"],
  readOnly: false,
});

test("a recorded call answers one literal call with the same command and input, in order; others are asked", () => {
  const replayed = replayedCalls([rec(2, "tools slow", {}), rec(0, "tools pay", { to: "carol", amount: 7 })]);
  // Same input in another key order is the same call.
  assert.equal(replayed("tools pay", { amount: 7, to: "carol" }), true);
  // The record answered one call: the same payment written again was not recorded, it is asked.
  assert.equal(replayed("tools pay", { to: "carol", amount: 7 }), false);
  assert.equal(replayed("tools pay", { to: "dave", amount: 7 }), false);
  assert.equal(replayed("tools slow", {}), true);
});

test("a call recorded before one already matched is not matched out of order", () => {
  const replayed = replayedCalls([rec(0, "tools pay", { to: "a" }), rec(1, "tools pay", { to: "b" })]);
  assert.equal(replayed("tools pay", { to: "b" }), true);
  assert.equal(replayed("tools pay", { to: "a" }), false);
});

test("nothing recorded: every call is asked", () => {
  assert.equal(replayedCalls([])("tools pay", { to: "carol" }), false);
});

test("the mark of a call that only started is neither replayed nor skipped by the preflight: the call runs (and is asked) again", () => {
  const marked: RecordedCall = { ...rec(1, "tools pay", { to: "carol" }), started: { at: "2026-01-01T00:00:00.000Z", replica: "rep_a" } };
  const calls = [rec(0, "tools count", {}), marked];
  assert.equal(replayedCalls(calls)("tools pay", { to: "carol" }), false);
  const replayer = createReplayer(calls);
  assert.ok(replayer.take(0, "tools count", canonicalJson({})));
  assert.equal(replayer.take(1, "tools pay", canonicalJson({ to: "carol" })), undefined);
});
