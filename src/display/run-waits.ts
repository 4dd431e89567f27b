/**
 * An approval a trigger run waited for, in words, as `toolshell triggers runs` and the console's
 * Triggers page show it (docs/sessions.md → Triggers): how long, for which tool, the answer, and
 * who gave it through which surface.
 */

/** The fields of a trigger run's approval (the store's `RunApproval`) this text uses; display/ imports no other folder. */
export interface WaitedApproval {
  request_id: string;
  tool?: string;
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
