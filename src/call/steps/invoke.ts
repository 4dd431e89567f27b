/**
 * The `invoke` step: the tool runs with the parsed input and the session's `ctx`. When the shell
 * call stops while the tool runs (its time limit), a result that still arrives is kept for the
 * stop report but the script does not go on; a failure caused by that stop answers `stopped`.
 * A saved script's inner call that stopped the shell call stops this call too. Inside a durable
 * step the tool is told of the upstream task it follows (`ctx.upstreamTask`), and a call a one-off
 * `allow` let through is marked as started before the tool runs (`CallScope.recordStart`), so an
 * attempt that dies while it is in flight leaves that mark (docs/sessions.md → Durable steps).
 */
import { ToolCallError, toToolCallError, type ToolOutput } from "../../tool/index.js";
import type { CallState, Step } from "../call.js";
import { tellPerson } from "../person.js";

const STOPPING: ReadonlySet<string> = new Set(["needs_approval", "call_limit", "stopped"]);

/** Records how a failed tool call ends: stopped with its shell call, or its own error. */
function failed(s: CallState, err: unknown): void {
  const e = toToolCallError(err);
  const stop = s.scope.stopState?.();
  if (stop && STOPPING.has(e.code)) {
    s.status = "stopped";
    s.error = e;
  } else if (stop && s.scope.signal.aborted) {
    s.status = "stopped";
    s.error = new ToolCallError("stopped", `the shell call stopped (${stop.reason}) while ${s.call.command} ran`);
  } else s.error = e;
}

/** The mark of a call a one-off `allow` let through, when its scope keeps marks (not for a call re-attaching to its task). */
function markStart(s: CallState): void | Promise<void> {
  if (!s.judgement?.oneOff || s.resumeTask !== undefined || !s.scope.recordStart) return;
  try {
    return s.scope.recordStart(s.call);
  } catch {}
}

export const invoke: Step = {
  name: "invoke",
  run(s: CallState) {
    const marking = markStart(s);
    if (marking) return marking.then(() => start(s), () => start(s));
    return start(s);
  },
};

/** Runs the tool (see the file comment). */
function start(s: CallState): void | Promise<void> {
  const { call, scope } = s;
  s.invoked = true;
  // The person sees every nested call start (docs/mcp.md "Progress"): a long script is never silent.
  tellPerson({ phase: "started", call_id: call.callId, command: call.command, ...(call.parentId !== undefined ? { parent_tool_call_id: call.parentId } : {}) });
  let running: Promise<ToolOutput>;
  try {
    const ctx = scope.session.invokeContext(call, scope.signal);
    if (scope.recordTask || s.resumeTask !== undefined) {
      const started = (taskId: string) => scope.recordTask?.(call, taskId);
      ctx.upstreamTask = s.resumeTask !== undefined ? { resume: s.resumeTask, started } : { started };
    }
    running = call.tool.invoke(call.input, ctx);
  } catch (err) {
    failed(s, err);
    return;
  }
  return running.then(
    (output) => {
      s.output = output;
      const stop = scope.stopState?.();
      if (stop) s.stoppedWhileRunning = stop;
    },
    (err: unknown) => failed(s, err),
  );
}
