/**
 * An approval a trigger run waited for, in words, as `toolshell triggers runs` and the console's
 * Triggers page show it (docs/sessions.md → Triggers): how long, for which tool, the answer, and
 * who gave it through which surface; and why a run did not start.
 */

/** What the text needs of an approval a run waited for (the store's `RunApproval`; `display/` imports nothing, docs/architecture.md). */
export interface WaitedApproval {
  request_id: string;
  tool: string;
  decision?: string;
  by?: string;
  surface?: string;
  waited_ms?: number;
}

/** E.g. "waited 4 s for approval of tools refund: allow by ops (console)". */
export function waitedText(a: WaitedApproval): string {
  const took = a.waited_ms === undefined ? "" : ` ${a.waited_ms < 10_000 ? `${a.waited_ms} ms` : `${Math.round(a.waited_ms / 1000)} s`}`;
  const who = a.by ? ` by ${a.by}${a.surface ? ` (${a.surface})` : ""}` : "";
  return `waited${took} for approval of ${a.tool || a.request_id}: ${a.decision ?? "answered"}${who}`;
}

/**
 * Why a person's "run now" did not start (docs/sessions.md → Triggers), as the API's 409, the
 * console and `toolshell triggers run` say it: e.g. "trigger nightly did not start: the previous
 * run run_… waits for approval (request apr_…); answer that request and the waiting run goes on".
 */
export function notStartedText(trigger: string, skipped: { reason: string }): string {
  return `trigger ${trigger} did not start: ${skipped.reason}; answer that request and the waiting run goes on`;
}
