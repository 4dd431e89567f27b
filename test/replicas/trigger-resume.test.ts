/**
 * A trigger run stopped for approval resumes the same run when the answer comes, with a real
 * `toolshell serve` on SQLite and two on one real PostgreSQL (docs/sessions.md → Triggers): the calls that
 * completed before the stop are replayed from the step's record, never run again. The saved
 * script refunds two charges in a loop with the `refund` tool, whose definition needs a person
 * every time; the tool logs each real refund.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { api, deployment, until, type Deployment, type Replica } from "./helpers.js";

type Run = { id: string; status: string; request_id?: string; result?: { stdout?: string } };
type Pending = { id: string; session_id: string; input: Record<string, unknown>; tool_call_id: string };

async function pendingOf(r: Replica, session: string): Promise<Pending[]> {
  return ((await api(r, "GET", `/v1/sessions/${session}/tool-approvals`)).json.pending as Pending[]) ?? [];
}

/** The refund case: the run is started on `a`, each card answered on the other replica (or `a` itself). */
async function refundCase(d: Deployment, a: Replica, b: Replica): Promise<void> {
  const saved = await api(a, "POST", "/v1/agents/default/scripts", {
    name: "refund-duplicates",
    description: "Refunds the duplicate charges.",
    body: "for c in ch_8001 ch_8002; do\n  tools refund charge=$c\ndone\necho refunded all\n",
  });
  assert.equal(saved.status, 201, JSON.stringify(saved.json));
  const created = await api(a, "POST", "/v1/agents/default/triggers", { name: "refunds", webhook: true, script: "refund-duplicates", input: {} });
  assert.equal(created.status, 201, JSON.stringify(created.json));
  const id = created.json.id as string;
  const session = `trg_${id}`;

  const first = (await api(a, "POST", `/v1/agents/default/triggers/${id}/run`, {})).json as Run;
  assert.equal(first.status, "stopped", JSON.stringify(first));
  const [card1] = await pendingOf(b, session);
  assert.deepEqual(card1.input, { charge: "ch_8001" });
  // Answered on B: the same run goes on (on whichever replica takes it) and stops at the second charge.
  assert.equal((await api(b, "POST", `/v1/sessions/${session}/tool-approvals`, { decisions: [{ request_id: card1.id, decision: "allow" }] })).status, 200);
  const card2 = await until(async () => (await pendingOf(a, session)).find((p) => p.id !== card1.id), "the second card");
  assert.deepEqual(card2.input, { charge: "ch_8002" });
  assert.deepEqual(d.lines().map((l) => l.split(" ").slice(1).join(" ")), ["refund ch_8001"]);
  const stopped = await until(async () => {
    const r = (await api(a, "GET", `/v1/agents/default/triggers/${id}/runs/${first.id}`)).json as Run;
    return r.status === "stopped" && r.request_id === card2.id ? r : undefined;
  }, "the run stopped at the second charge");
  assert.equal(stopped.id, first.id);

  assert.equal((await api(a, "POST", `/v1/sessions/${session}/tool-approvals`, { decisions: [{ request_id: card2.id, decision: "allow" }] })).status, 200);
  const done = await until(async () => {
    const r = (await api(b, "GET", `/v1/agents/default/triggers/${id}/runs/${first.id}`)).json as Run;
    return r.status === "ok" ? r : undefined;
  }, "the run to finish");
  assert.match(done.result?.stdout ?? "", /refunded all/);
  // Each charge refunded once: ch_8001 was replayed from the step's record, not refunded again.
  assert.deepEqual(d.lines().map((l) => l.split(" ").slice(1).join(" ")), ["refund ch_8001", "refund ch_8002"]);
  assert.deepEqual(await pendingOf(b, session), []);
  // One run, not a run per answer.
  assert.equal(((await api(a, "GET", `/v1/agents/default/triggers/${id}/runs`)).json.runs as Run[]).length, 1);
}

test("SQLite, one serve: a trigger run stopped for approval resumes on the answer, and a completed refund is never made twice", async (t) => {
  const d = await deployment(t, { store: "state.db" });
  const a = await d.start("A");
  await refundCase(d, a, a);
});

test("PostgreSQL, two replicas: the answer given on either lets the same run go on, each refund made once", async (t) => {
  const d = await deployment(t);
  const [a, b] = await Promise.all([d.start("A"), d.start("B")]);
  await refundCase(d, a, b);
});
