/**
 * The policy's answer for one call, and the interface the runtime asks it through.
 *
 * See README → Approvals.
 */
import type { MaybePromise, ToolCall } from "../tool/index.js";

/** Risk of a call (`checked_at_run_time` exists only in plans). */
export type Risk = "read_only" | "changes" | "needs_approval" | "blocked";

/** Why a call needs approval. */
export type Why = "destructive" | "open_world" | "mutating" | "policy" | "rated_changes";

/** The policy's judgement of one call with its real input. */
export interface Judgement {
  risk: Risk;
  why?: Why;
  /** For `blocked` / `denied`: the reason shown in the error. */
  message?: string;
  /** True when an approval answer (allow / allow_always) covers this call; it runs. */
  approved?: boolean;
  /**
   * True when that answer is a one-off `allow`, spent on this call: the same call asks again the
   * next time it is made (a durable step marks such a call as started before it runs).
   */
  oneOff?: boolean;
  /** True when an answer (reject / reject_always) refuses it: `denied`. */
  rejected?: boolean;
}

/**
 * One call as the policy sees it: the call shape every surface uses. The risk is assessed on
 * `input` (what the tool gets); answers are matched on `given` (what the person saw).
 */
export type JudgeCall = Pick<ToolCall, "tool" | "command" | "given" | "input" | "sessionId" | "sessionMetadata" | "callId">;

/** What the runtime asks before each call. */
export interface CallJudge {
  judge(call: JudgeCall): MaybePromise<Judgement>;
}

/** A judge that asks nothing: read-only by hints, everything else `changes`. */
export const permissiveJudge: CallJudge = {
  judge(call) {
    return { risk: call.tool.hints.readOnly === true ? "read_only" : "changes" };
  },
};
