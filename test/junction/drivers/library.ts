/**
 * The library (README "Use it from code"): `session.bash(script)`; a stop for approval gives the
 * request id in the stop report, the person answers with `session.answer`, and the script is run
 * again (a stopped script is never resumed).
 */
import type { Decision, Session } from "../../../src/index.js";
import type { Surface, Turn } from "../paths.js";

/** The request ids a stop report waits on (the stopped call and the others before start). */
export function waitingOn(tools: unknown): string[] {
  const s = (tools as { stopped?: { reason?: string; request_id?: string; also_needs_approval?: Array<{ request_id: string }> } } | undefined)?.stopped;
  if (s?.reason !== "needs_approval" || !s.request_id) return [];
  return [s.request_id, ...(s.also_needs_approval ?? []).map((o) => o.request_id)];
}

export function librarySurface(session: Session): Surface {
  return {
    name: "library",
    async turn(script: string, decision: Decision): Promise<Turn> {
      let asked = 0;
      let r = await session.bash(script);
      for (let i = 0; i < 2; i++) {
        const ids = waitingOn(r.tools);
        if (!ids.length) break;
        asked++;
        for (const id of ids) await session.answer(id, decision);
        // After a yes the script is run again; after a no it is not (the refusal waits for the next try).
        if (decision.startsWith("reject")) break;
        r = await session.bash(script);
      }
      return { asked, stdout: r.stdout, stderr: r.stderr, pending: (await session.pendingApprovals()).length };
    },
    events: async () => JSON.stringify(session.events),
  };
}
