/**
 * The library (README "Use it from code"): `session.bash(script)`; a stop for approval gives the
 * request id in the stop report, the person answers with `session.answer`, and the script is run
 * again (a stopped script is never resumed). The person behind a shell call is the `person`
 * option of `session.bash` (src/call/person.ts): it sees progress and answers questions.
 */
import type { Decision, Session } from "../../../src/index.js";
import { approve } from "../../mcp/oauth-helpers.js";
import type { ListedEvent, SignInTurn, StepRun, Surface, Turn } from "../paths.js";

/** The request ids a stop report waits on (the stopped call and the others before start). */
export function waitingOn(tools: unknown): string[] {
  const s = (tools as { stopped?: { reason?: string; request_id?: string; also_needs_approval?: Array<{ request_id: string }> } } | undefined)?.stopped;
  if (s?.reason !== "needs_approval" || !s.request_id) return [];
  return [s.request_id, ...(s.also_needs_approval ?? []).map((o) => o.request_id)];
}

/**
 * Signs in the way a `connection_required` message offers (README "Sign-in"): the person opens
 * the URL in it while the host runs, and the same script runs again. `run` runs the script.
 */
export async function signInByMessage(run: () => Promise<{ stdout: string; stderr: string }>): Promise<SignInTurn> {
  const before = await run();
  const offered = `${before.stdout}\n${before.stderr}`;
  const url = /open (http\S+) to sign in/.exec(offered)?.[1];
  if (url) await approve(url);
  return { before, offered, after: await run() };
}

/** The stop report's `stopped` of a shell call's `tools` report. */
export const stoppedOf = (tools: unknown): StepRun["stopped"] => (tools as { stopped?: StepRun["stopped"] } | undefined)?.stopped;

export function librarySurface(session: Session): Surface {
  const pending = async () => (await session.pendingApprovals()).length;
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
      return { asked, stdout: r.stdout, stderr: r.stderr, pending: await pending() };
    },
    events: async () => session.events as unknown as ListedEvent[],
    async question(script, content) {
      let asked = 0;
      const r = await session.bash(script, { person: { ask: async () => (asked++, { action: "accept", content }) } });
      return { asked, stdout: r.stdout, stderr: r.stderr, pending: await pending() };
    },
    async progress(script) {
      const seen: string[] = [];
      const r = await session.bash(script, { person: { progress: (p) => void (p.message && seen.push(p.message)) } });
      return { asked: 0, stdout: r.stdout, stderr: r.stderr, pending: await pending(), seen };
    },
    signIn: {
      way: (server) => new RegExp(`open http\\S+ to sign in .*toolshell auth ${server}`),
      run: (script) => signInByMessage(() => session.bash(script)),
    },
    step: {
      async run(script, stepId) {
        const r = await session.bash(script, { stepId });
        return { stdout: r.stdout, stderr: r.stderr, stopped: stoppedOf(r.tools) };
      },
      answer: async (id, decision) => void (await session.answer(id, decision)),
      pending,
    },
  };
}
