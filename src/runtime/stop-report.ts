/**
 * The stop report of one shell call (`StopReport`, types.ts; README → Approvals): from the
 * preflight's stop when the script never started, or from the shell call's state after it ran.
 *
 * See docs/architecture.md → One shell call.
 */
import { errorLine } from "../shell/index.js";
import { ToolCallError } from "../tool/index.js";
import type { PreflightOutcome } from "./plan-command.js";
import type { ShellCall } from "./shell-call.js";
import type { StopReport } from "./types.js";

type Stopped = NonNullable<StopReport["stopped"]>;

const NOT_REACHED = "the stopped call and everything after it; write a new script for the rest";

/** The report of a shell call that stopped before its script started: nothing ran. */
export function beforeStartReport(err: ToolCallError, stopped: Stopped, notReached: string): StopReport {
  return { done: [], read_only_calls: 0, stopped, not_reached: notReached, stdout: "", stderr: errorLine(err), files_written: [] };
}

/** The step id a trigger's run is (`trigger:<run id>`): such a step goes on by itself once answered. */
export const triggerStepId = (runId: string): string => `trigger:${runId}`;
const isTriggerStep = (stepId: string): boolean => stepId.startsWith("trigger:");

/** The preflight found calls that need a person's approval: the script does not start. */
export function approvalBeforeStart(s: NonNullable<PreflightOutcome["stop"]>, stepId?: string): StopReport {
  const err = new ToolCallError("needs_approval", `${s.tool} (line ${s.line}) needs a person's approval (${s.why ?? "policy"}); the script did not start. Request ${s.requestId}`);
  const stopped: Stopped = {
    reason: "needs_approval",
    before_start: true,
    line: s.line,
    call: { tool: s.tool, input: s.input },
    approval: "requested",
    request_id: s.requestId,
    why: s.why,
    ...(s.others?.length ? { also_needs_approval: s.others.map((o) => ({ line: o.line, call: { tool: o.tool, input: o.input }, request_id: o.requestId, why: o.why })) } : {}),
  };
  const then = stepId === undefined
    ? "after the person answers, run the same script again"
    : isTriggerStep(stepId)
      ? "the trigger's run starts it by itself once the request is answered"
      : `once the request is answered, send step ${stepId} again`;
  return beforeStartReport(err, stopped, `the whole script: nothing ran; ${then}`);
}

/**
 * The outcome of a script that ran: a stopped call adds its error line and exit 1; a stopped call,
 * or an error exit after changing something or after a guardrail or hook refused a call, gets
 * the report (without `stopped` for the latter).
 */
export function reportAfterRun(call: ShellCall, ran: { stdout: string; stderr: string; exitCode: number }): { stderr: string; exitCode: number; report?: StopReport } {
  const { stdout } = ran;
  let { stderr, exitCode } = ran;
  if (call.filesFull !== undefined) stderr += (stderr === "" || stderr.endsWith("\n") ? "" : "\n") + call.filesFull;
  const files_written = [...call.filesWritten].sort();
  if (call.stop) {
    stderr += errorLine(call.stop.error);
    exitCode = 1;
    const s = call.stop;
    const stopped: Stopped = {
      reason: s.reason,
      ...(s.line !== undefined ? { line: s.line } : {}),
      ...(s.call ? { call: s.call } : {}),
      ...(s.reason === "needs_approval" ? { approval: "requested" as const, request_id: s.requestId, why: s.why } : {}),
      message: s.error.message,
    };
    // A stop that no call made (the time limit, the host's memory) names what it cut short. A
    // durable step waiting for an answer goes on from the stop (docs/sessions.md "Durable
    // steps"): a trigger's run by itself, another step when its step_id is sent again.
    const waits = s.reason === "needs_approval" && call.stepId !== undefined;
    const notReached = waits
      ? isTriggerStep(call.stepId!)
        ? "the stopped call and everything after it: the trigger's run goes on from there by itself once the request is answered"
        : `the stopped call and everything after it: they run once the request is answered and step ${call.stepId} is sent again (what ran is replayed, not run again)`
      : s.call ? NOT_REACHED : "what the script had not reached when it stopped; write a new script for the rest";
    return { stderr, exitCode, report: { done: call.done, read_only_calls: call.readOnlyCalls, stopped, not_reached: notReached, stdout, stderr, files_written } };
  }
  if (exitCode !== 0 && (call.done.length > 0 || call.denials > 0)) return { stderr, exitCode, report: { done: call.done, read_only_calls: call.readOnlyCalls, stdout, stderr, files_written } };
  return { stderr, exitCode };
}
