/**
 * `toolshell events` (renderTimeline, docs/sessions.md → Events): a durable step that ran again
 * keeps its tool call id, and each run lists the nested calls made during it — the killed run's
 * calls under the killed run, the resumed run's under the resumed run.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { renderTimeline, type StoredEvent } from "../../src/store/index.js";

let seq = 0;
const ev = (x: Record<string, unknown>) => ({ session_id: "s", at: "2026-01-01T10:00:00.000Z", seq: ++seq, ...x }) as unknown as StoredEvent;
const nested = (parent: string, command: string) => ev({ type: "tool.nested_call", parent_tool_call_id: parent, call_id: `${parent}:${command}`, command, status: "completed", duration_ms: 2 });

test("each run of a shell call lists its own nested calls; a run that never ended is closed when the next starts", () => {
  const lines = renderTimeline([
    ev({ type: "shell_call.started", tool_call_id: "call_bash_7", script_preview: "tools a; tools b" }),
    nested("call_bash_7", "tools first-run-a"),
    // The host was killed here: no shell_call.ended for the first run.
    ev({ type: "step.resumed", step_id: "st", tool_call_id: "call_bash_7", attempt: 2, after: "lease lost" }),
    ev({ type: "shell_call.started", tool_call_id: "call_bash_7", script_preview: "tools a; tools b" }),
    nested("call_bash_7", "tools second-run-b"),
    ev({ type: "shell_call.ended", tool_call_id: "call_bash_7", exit_code: 0 }),
    ev({ type: "shell_call.started", tool_call_id: "call_bash_8", script_preview: "tools c" }),
    nested("call_bash_8", "tools c"),
  ]).split("\n");
  const at = (text: string) => lines.findIndex((l) => l.includes(text));
  const [start1, start2] = lines.flatMap((l, i) => (l.includes("▶ call_bash_7") ? [i] : []));
  assert.ok(start1 < at("├─ tools first-run-a") && at("├─ tools first-run-a") < start2, lines.join("\n"));
  assert.ok(at("(call_bash_7, run 1, did not end)") < start2, lines.join("\n"));
  assert.ok(start2 < at("├─ tools second-run-b") && at("├─ tools second-run-b") < at("■ call_bash_7 exit 0"), lines.join("\n"));
  assert.equal(lines.filter((l) => l.includes("├─ tools first-run-a")).length, 1, "listed once");
  // A shell call still running is listed at the end with its calls.
  assert.ok(at("(call_bash_8 did not end)") > at("▶ call_bash_8") && at("├─ tools c") > at("(call_bash_8 did not end)"), lines.join("\n"));
});

test("calls of one run are not moved under another run of the same id that ended first", () => {
  const lines = renderTimeline([
    ev({ type: "shell_call.started", tool_call_id: "call_bash_1", script_preview: "x" }),
    nested("call_bash_1", "tools one"),
    ev({ type: "shell_call.ended", tool_call_id: "call_bash_1", exit_code: 1, stopped: "needs_approval" }),
    ev({ type: "shell_call.started", tool_call_id: "call_bash_1", script_preview: "x" }),
    nested("call_bash_1", "tools one"),
    nested("call_bash_1", "tools two"),
    ev({ type: "shell_call.ended", tool_call_id: "call_bash_1", exit_code: 0 }),
  ]).split("\n");
  const ends = lines.flatMap((l, i) => (l.includes("■ call_bash_1") ? [i] : []));
  const two = lines.findIndex((l) => l.includes("├─ tools two"));
  assert.ok(ends[0] < two && two < ends[1], lines.join("\n"));
  assert.equal(lines.filter((l) => l.includes("├─ tools one")).length, 2);
  assert.ok(lines.findIndex((l) => l.includes("├─ tools one")) < ends[0]);
});
