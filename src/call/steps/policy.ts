/**
 * The `policy` step: the one place a call is judged. Blocked or refused calls answer `denied`;
 * a call that needs a person's answer and has none is not made: a request is raised (or the
 * pending one for the same exact call reused), the call answers `needs_approval`, and a shell
 * call stops there.
 *
 * See README → Approvals; the risk rules are the policy's (src/policy/policy.ts).
 */
import { refusedMessage, type Judgement, type Policy } from "../../policy/index.js";
import { isPromiseLike, ToolCallError, type ToolCall } from "../../tool/index.js";
import type { CallSession, CallState, Step } from "../call.js";

function apply(s: CallState, j: Judgement): void {
  s.judgement = j;
  const { call } = s;
  if (j.risk === "blocked" || j.rejected) throw new ToolCallError("denied", j.message ?? `${call.command} is blocked by policy`);
  if (j.risk !== "needs_approval" || j.approved) return;
  // A resumed step's call following the upstream task its earlier attempt started (the `replay`
  // step set `resumeTask`): the work was approved when it started, and following it starts
  // nothing, so nothing is asked again. A block or a refusal since still denies it (above).
  if (s.resumeTask !== undefined) return;
  call.line ??= s.scope.lineOf?.(call);
  const requestId = raiseRequest(s.env.policy, s.scope.session, call, j.why);
  const err = new ToolCallError(
    "needs_approval",
    `${call.command} needs a person's approval (${j.why ?? "policy"}); ${call.via === "shell" ? "the script stops here" : "the call was not made"}. Request ${requestId}`,
  );
  s.requestId = requestId;
  s.status = "needs_approval";
  s.error = err;
  s.scope.setStop?.({ reason: "needs_approval", error: err, call: { tool: call.command, input: call.given }, requestId, why: j.why, line: call.line });
}

/**
 * Raises (or reuses) the request for `call` (`Policy.requestApproval`) and records
 * `approval.requested` in its session: the one way a request is raised, here and by the preflight
 * before a script starts (`beforeStart`, runtime/plan-command.ts; that event names the line, not a
 * tool call, since none was made). @returns the request's id.
 */
export function raiseRequest(
  policy: Pick<Policy, "requestApproval">,
  session: Pick<CallSession, "emit">,
  call: Pick<ToolCall, "sessionId" | "command" | "tool" | "given" | "callId" | "line">,
  why: string | undefined,
  beforeStart = false,
): string {
  const id = policy.requestApproval(call, why).id;
  session.emit({ type: "approval.requested", request_id: id, tool: call.command, ...(beforeStart ? { before_start: true } : { tool_call_id: call.callId }), ...(call.line !== undefined ? { line: call.line } : {}) });
  return id;
}

export const policy: Step = {
  name: "policy",
  run(s: CallState) {
    // A resumed step's held call refused by the person: denied by that answer. The session's
    // one-off refusal is not spent here; it waits for the same call's next try (durable.ts).
    if (s.scope.heldAnswer?.(s.call) === "reject") return apply(s, { risk: "needs_approval", rejected: true, message: refusedMessage(s.call.command) });
    const judging = s.env.policy.judge(s.call);
    if (isPromiseLike(judging)) return Promise.resolve(judging).then((j) => apply(s, j));
    apply(s, judging);
  },
};

/**
 * The approval a call needs now, without making it or using up an answer (for surfaces that ask
 * the person before the call, such as the AI SDK's tool approval): undefined when it may run or
 * will be refused; else the pending request, raised (or reused) now.
 */
export async function approvalNeeded(s: CallState): Promise<{ requestId: string; why?: string } | undefined> {
  const j = await s.env.policy.peek(s.call);
  if (j.risk !== "needs_approval" || j.approved || j.rejected) return undefined;
  const requestId = raiseRequest(s.env.policy, s.scope.session, s.call, j.why);
  return { requestId, ...(j.why ? { why: j.why } : {}) };
}
