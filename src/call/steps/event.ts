/**
 * The `event` step: every call ends in one event in the session's timeline — `tool.nested_call`
 * for a call from a script (under its shell call), `tool.direct_call` for a direct call — with
 * the same fields on every surface (docs/sessions.md "Events").
 */
import type { CallStatus, CallState, Step } from "../call.js";
import { tellPerson } from "../person.js";
import { previewInput } from "../preview.js";

/** How the call ended, as its event says. */
export function statusOf(s: CallState): CallStatus {
  if (s.status) return s.status;
  if (s.error) return s.error.code === "denied" ? "refused" : "failed";
  return s.stoppedWhileRunning ? "stopped" : "completed";
}

export const event: Step = {
  name: "event",
  when: () => true,
  run(s: CallState) {
    const { call } = s;
    s.scope.session.emit({
      type: call.via === "shell" ? "tool.nested_call" : "tool.direct_call",
      ...(call.parentId !== undefined ? { parent_tool_call_id: call.parentId } : {}),
      call_id: call.callId,
      tool_name: call.tool.name,
      command: call.command,
      status: statusOf(s),
      input_preview: previewInput(call.given),
      ...(s.error ? { error: { code: s.error.code, message: s.error.message } } : {}),
      duration_ms: Math.round((performance.now() - s.started) * 1000) / 1000,
      ...(s.replayed ? { replayed: true } : {}),
    });
    if (s.invoked) tellPerson({ phase: "ended", call_id: call.callId, command: call.command, ...(call.parentId !== undefined ? { parent_tool_call_id: call.parentId } : {}), status: statusOf(s) });
  },
};
