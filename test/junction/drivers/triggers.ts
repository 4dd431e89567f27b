/**
 * Triggers (docs/sessions.md "Triggers") of a built `toolshell serve`: a saved script run with no
 * model by a webhook trigger. A turn `tools scripts NAME k=v…` is a delivery to the webhook
 * trigger of NAME whose input templates take the payload (`POST /v1/webhooks/{id}?wait=true`
 * with an API token); a run stopped for approval is answered in the trigger's session
 * (`POST /v1/sessions/trg_<id>/tool-approvals`) and the same run goes on by itself. Each
 * surface (row) has triggers of its own, so their sessions are apart. A run has no person:
 * a server's question is declined, progress is listed as events.
 */
import type { Decision } from "../../../src/index.js";
import type { ListedEvent, Surface, Turn } from "../paths.js";
import { api } from "./http-api.js";

interface Run {
  id: string;
  status: string;
  request_id?: string;
  session_id: string;
  result?: { stdout?: string; stderr?: string };
}

/** Input templates of each saved script of the world: every field from the payload. */
const INPUTS: Record<string, Record<string, string>> = { purge: { id: "{{payload.id}}" }, count: { n: "{{payload.n}}" }, greet: {} };

export function triggerSurface(url: string, prefix: string): Surface {
  const triggers = new Map<string, { id: string; session: string }>();
  let session = "";
  const triggerOf = async (script: string) => {
    let t = triggers.get(script);
    if (!t) {
      const made = await api<{ id?: string; trigger?: { id: string } }>(url, "POST", "/v1/agents/default/triggers", { name: `${prefix}-${script}`, webhook: true, script, input: INPUTS[script] });
      const id = made.trigger?.id ?? made.id!;
      t = { id, session: `trg_${id}` };
      triggers.set(script, t);
    }
    session = t.session;
    return t;
  };
  /** Delivers `tools scripts NAME k=v…` as a webhook; answers the finished (or stopped) run. */
  const deliver = async (line: string): Promise<Run> => {
    const [, name, args] = /^tools scripts (\S+)\s*(.*)$/.exec(line) ?? [];
    if (!name) throw new Error(`a trigger runs a saved script, not: ${line}`);
    const payload = Object.fromEntries(args.split(/\s+/).filter(Boolean).map((kv) => kv.split("=")).map(([k, v]) => [k, /^\d+$/.test(v) ? Number(v) : v]));
    const t = await triggerOf(name);
    const r = await api<{ run: Run } & Run>(url, "POST", `/v1/webhooks/${t.id}?wait=true`, payload);
    return r.run ?? r;
  };
  const s = () => `/v1/sessions/${encodeURIComponent(session)}`;
  const pending = async () => (session ? (await api<{ pending: unknown[] }>(url, "GET", `${s()}/tool-approvals`)).pending.length : 0);
  const events = async () => (session ? (await api<{ events: ListedEvent[] }>(url, "GET", `${s()}/events?limit=10000`)).events : []);
  const out = async (run: Run, asked: number): Promise<Turn> => ({ asked, stdout: run.result?.stdout ?? "", stderr: run.result?.stderr ?? JSON.stringify(run), pending: await pending() });
  return {
    name: "triggers",
    async turn(line, decision: Decision) {
      let run = await deliver(line);
      let asked = 0;
      if (run.status === "stopped" && run.request_id) {
        asked = 1;
        const t = [...triggers.values()].find((x) => x.session === run.session_id)!;
        await api(url, "POST", `${s()}/tool-approvals`, { decisions: [{ tool_call_id: run.request_id, decision }] });
        // After an answer the same run goes on by itself (a yes runs the call; after a no it answers denied).
        for (let i = 0; i < 600; i++) {
          const got = await api<{ run?: Run } & Run>(url, "GET", `/v1/agents/default/triggers/${t.id}/runs/${run.id}`);
          run = got.run ?? got;
          if (run.status !== "stopped" && run.status !== "running") break;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
      return out(run, asked);
    },
    events,
    async progress(line) {
      const before = (await events()).length;
      const run = await deliver(line);
      const seen = (await events()).slice(before).flatMap((e) => (e.type === "tool.progress" && typeof e.message === "string" ? [e.message] : []));
      return { ...(await out(run, 0)), seen };
    },
  };
}
