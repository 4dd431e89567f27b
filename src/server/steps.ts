/**
 * A session's durable steps as the API (`GET /v1/sessions/{id}/steps`) and the console's session
 * page show them: snake_case like every other answer, and a step waiting for approval whose
 * request was answered is `answered` — it runs (resumes) when the same step_id is sent again, and
 * nothing runs until then.
 *
 * Rule source: docs/sessions.md → Durable steps; docs/deployment.md "A client whose replica is killed".
 */
import type { StepRecord } from "../runtime/index.js";
import type { Store } from "../store/index.js";

/** What a person or an agent does about an answered step. */
export const ANSWERED_NOTE = "the approval was answered; send the same step_id again to run it (what already ran is replayed)";

/** A step as the API shows it. */
export interface StepView {
  session_id: string;
  step_id: string;
  kind: string;
  tool_call_id: string;
  request_hash: string;
  request: unknown;
  /** `running`, `completed`, `waiting_approval`, or `answered` (waiting no more: send it again). */
  status: StepRecord["status"] | "answered";
  note?: string;
  /** 1 for the first run; more when it ran again (resumed after a kill or an answer). */
  attempt: number;
  result: unknown;
  request_id?: string;
  started_at: string;
  ended_at?: string;
}

function stepJson(s: StepRecord, answered: ReadonlySet<string>): StepView {
  const waitsNoMore = s.status === "waiting_approval" && !!s.requestId && answered.has(s.requestId);
  return {
    session_id: s.sessionId,
    step_id: s.stepId,
    kind: s.kind,
    tool_call_id: s.toolCallId,
    request_hash: s.requestHash,
    request: s.request,
    status: waitsNoMore ? "answered" : s.status,
    ...(waitsNoMore ? { note: ANSWERED_NOTE } : {}),
    attempt: s.attempt,
    result: s.result,
    request_id: s.requestId,
    started_at: s.startedAt,
    ended_at: s.endedAt,
  };
}

/** The session's steps in start order, each held step's answer looked up in its approval book. */
export async function sessionSteps(store: Store, sessionId: string): Promise<StepView[]> {
  const steps = await store.listSteps(sessionId);
  const asked = steps.filter((s) => s.status === "waiting_approval" && s.requestId).map((s) => s.requestId!);
  const book = asked.length ? await store.approvalBook(sessionId) : undefined;
  const answered = new Set(asked.filter((id) => book?.get(id)?.status === "answered"));
  return steps.map((s) => stepJson(s, answered));
}
