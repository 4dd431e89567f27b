/** The policy folder's public face: risk of a call, approvals, plans. */
export { permissiveJudge } from "./judge.js";
export type { Risk, Why, Judgement, JudgeCall, CallJudge } from "./judge.js";
