/** The four answers to an approval request (README "Approvals" → Answers). */
export const DECISIONS = ["allow", "allow_always", "reject", "reject_always"] as const;
/** The person's answer. */
export type Decision = (typeof DECISIONS)[number];
