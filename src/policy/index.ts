/** The policy folder's public face: risk of a call, approvals, ratings, plans. */
export { permissiveJudge } from "./judge.js";
export type { Risk, Why, Judgement, JudgeCall, CallJudge } from "./judge.js";
export { Policy, refusedMessage } from "./policy.js";
export type { ApprovalMode, Override, PolicyOptions, Assessment } from "./policy.js";
export { AnsweredError, ApprovalBook, ALLOW_TTL_MS, checkDecision, describeScripts } from "./approvals.js";
export type { ApprovalRequest, ApprovalSnapshot, ApprovalScope, Decision, ScriptVersionRef } from "./approvals.js";
export { Rater, offlineRater, MemoryRatingCache, ratingKey, RATED_CHANGES_AT } from "./rating.js";
export type { DecisionService, RatedTool, Rating, RatingCache } from "./rating.js";
export { planScript, MAX_SCRIPT_CHARS } from "./plan.js";
export { TURN_MS } from "./turns.js";
export type { Plan, PlanCall, PlannedCall } from "./plan.js";
export { canonicalJson, hashOf, callKey, approvalSubject, definitionHash, allowSubject } from "./canonical.js";
export { aiSdkDecisionService, RATING_QUESTION } from "./ai-rater.js";
export type { AiDecisionOptions } from "./ai-rater.js";
