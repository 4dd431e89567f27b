/**
 * A trigger run stopped for approval resumes the same run when the answer comes, with a real
 * `toolshell serve` on SQLite and two on one real PostgreSQL (docs/sessions.md → Triggers): the calls that
 * completed before the stop are replayed from the step's record, never run again. The saved
 * script refunds two charges in a loop with the `refund` tool, whose definition needs a person
 * every time; the tool logs each real refund.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { test, type TestContext } from "node:test";
import { promisify } from "node:util";
import { launchChromium } from "../fixtures/chromium.js";
import { api, CLI, deployment, TOKEN, until, type Deployment, type Replica } from "./helpers.js";


type Run = {
  id: string;
  status: string;
  request_id?: string;
  result?: { stdout?: string };
  approvals?: Array<{ request_id: string; tool: string; decision?: string; by?: string; surface?: string; asked_at: string; answered_at?: string; waited_ms?: number }>;
};
type Pending = { id: string; session_id: string; input: Record<string, unknown>; tool_call_id: string };

async function pendingOf(r: Replica, session: string): Promise<Pending[]> {
  return ((await api(r, "GET", `/v1/sessions/${session}/tool-approvals`)).json.pending as Pending[]) ?? [];
}

/** The console's card of a pending request, in Chromium, signed in to `r`; answered with `answer` when given. */
async function consoleCard(t: TestContext, r: Replica, requestId: string, answer?: string): Promise<string> {
  const browser = await launchChromium(t);
  const page = await (await browser.newContext()).newPage();
  page.setDefaultTimeout(20_000);
  await page.goto(r.url + "/");
  await page.getByLabel("API token").fill(TOKEN);
  await page.getByRole("button", { name: "Sign in" }).click();
  const card = page.locator(`#card-${requestId}`);
  await card.waitFor();
  const text = await card.innerText();
  if (answer) {
    await card.getByRole("button", { name: answer, exact: true }).click();
    await card.waitFor({ state: "detached" });
  }
  return text;
}

/** The refund case: the run is started on `a`, each card answered on the other replica (or `a` itself); with `t`, the second in the console. */
async function refundCase(d: Deployment, a: Replica, b: Replica, t?: TestContext): Promise<void> {
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

  // What a person is shown: the trigger by name, the saved script's line in the loop, what ran before, the scope, what comes next.
  const shown = ((await api(b, "GET", "/v1/approvals")).json.pending as Array<Pending & { card: Record<string, any> }>).find((p) => p.id === card2.id)!;
  assert.deepEqual(shown.card.where, { kind: "trigger", trigger_id: id, trigger_name: "refunds", run_id: first.id });
  assert.equal(shown.card.description, "Refunds a card charge to the customer.");
  assert.match(shown.card.risk, /the tool's definition asks for a person at every call/);
  assert.deepEqual(shown.card.script.saved, { name: "refund-duplicates", version: 1 });
  assert.equal(shown.card.line, 2);
  assert.deepEqual(shown.card.ran_before.map((c: { tool: string; input: unknown }) => [c.tool, c.input]), [["tools refund", { charge: "ch_8001" }]]);
  assert.equal(shown.card.already_ran, undefined);
  assert.match(shown.card.scope.allow_always, /every call of tools refund in every run of trigger refunds, made inside saved script refund-duplicates version 1/);
  assert.match(shown.card.after_answer, /The run goes on as soon as you answer/);

  if (t) {
    const text = await consoleCard(t, b, card2.id, "Allow once");
    assert.match(text, /Refunds a card charge to the customer\./);
    assert.match(text, /Trigger\s+refunds/);
    assert.match(text, /Saved script refund-duplicates \(version 1\): line 2 of 4 asked/);
    assert.match(text, /Already ran before this stop\s+tools refund \{"charge":"ch_8001"\}/);
    assert.match(text, /the tool's definition asks for a person at every call/);
    assert.match(text, /Allow always: every call of tools refund in every run of trigger refunds/);
    assert.match(text, /The run goes on as soon as you answer/);
    assert.doesNotMatch(text, /call_bash_|trg_trg_|:tools:|preflight/);
  } else {
    assert.equal((await api(a, "POST", `/v1/sessions/${session}/tool-approvals`, { decisions: [{ request_id: card2.id, decision: "allow" }] })).status, 200);
  }
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
  // Its history records each approval it waited for: which, the answer, who gave it and how, how long.
  assert.deepEqual(
    done.approvals?.map((w) => [w.request_id, w.tool, w.decision, w.surface]),
    [
      [card1.id, "tools refund", "allow", "api"],
      [card2.id, "tools refund", "allow", t ? "console" : "api"],
    ],
    JSON.stringify(done.approvals),
  );
  for (const w of done.approvals!) {
    assert.ok(w.by, JSON.stringify(w));
    assert.equal(w.waited_ms, Date.parse(w.answered_at!) - Date.parse(w.asked_at));
  }
  const cli = await promisify(execFile)(process.execPath, [CLI, "triggers", "runs", "refunds", "--no-daemon", "--config", d.config], { cwd: d.dir, env: { ...process.env, TOOLSHELL_TEST_LOG: d.log } });
  const by = done.approvals![0].by!;
  assert.ok(cli.stdout.includes(`for approval of tools refund: allow by ${by} (api)`), cli.stdout);
  assert.match(cli.stdout, /waited \d+ (ms|s) for approval/);
  if (t) {
    const browser = await launchChromium(t);
    const page = await browser.newPage();
    page.setDefaultTimeout(20_000);
    await page.goto(a.url + "/login?next=/triggers");
    await page.getByLabel("API token").fill(TOKEN);
    await page.getByRole("button", { name: "Sign in" }).click();
    const waits = page.locator(`#trigger-${id} .run-wait`);
    await waits.first().waitFor();
    assert.equal(await waits.count(), 2);
    assert.match(await waits.nth(1).innerText(), /^waited \d+ (ms|s) for approval of tools refund: allow by .+ \(console\)$/);
  }
}

test("SQLite, one serve: a trigger run stopped for approval resumes on the answer, and a completed refund is never made twice", async (t) => {
  const d = await deployment(t, { store: "state.db" });
  const a = await d.start("A");
  await refundCase(d, a, a, t);
});

test("a card says when the same call already ran in the session, and that a script held before start has not run", async (t) => {
  const d = await deployment(t, { store: "state.db" });
  const a = await d.start("A");
  assert.equal((await api(a, "POST", "/v1/sessions", { id: "agent-1" })).status, 201);
  const held = await api(a, "POST", "/v1/sessions/agent-1/bash", { script: "tools refund charge=ch_1" });
  assert.equal(held.json.tools.stopped.before_start, true);
  const first = ((await api(a, "GET", "/v1/approvals")).json.pending as Array<Pending & { card: Record<string, any> }>)[0];
  assert.equal(first.card.before_start, true);
  assert.match(first.card.after_answer, /The script has not run\. Nothing runs until the agent sends it again/);
  assert.equal(first.card.already_ran, undefined);
  await api(a, "POST", "/v1/sessions/agent-1/tool-approvals", { decisions: [{ request_id: first.id, decision: "allow" }] });
  // Answered but not sent again with its step id: the held step says so instead of waiting for good.
  const steps = (await api(a, "GET", "/v1/sessions/agent-1/steps")).json.steps as Array<{ step_id: string; status: string; note?: string }>;
  assert.equal(steps[0].status, "answered", JSON.stringify(steps));
  assert.match(steps[0].note ?? "", /send the same step_id again/);
  // The agent reads that the answer came, and for which step, in the session's events.
  const events = (await api(a, "GET", "/v1/sessions/agent-1/events")).json.events as Array<{ type: string; request_id?: string; step_id?: string }>;
  const came = events.find((e) => e.type === "approval.answered" && e.request_id === first.id);
  assert.equal(came?.step_id, steps[0].step_id, JSON.stringify(events));
  assert.equal((await api(a, "POST", "/v1/sessions/agent-1/bash", { script: "tools refund charge=ch_1" })).json.exit_code, 0);
  // The agent sends a new script making the same call: the card says it already ran, and when.
  const again = await api(a, "POST", "/v1/sessions/agent-1/bash", { script: "echo once more\ntools refund charge=ch_1\n" });
  assert.equal(again.json.tools.stopped.reason, "needs_approval");
  const second = ((await api(a, "GET", "/v1/approvals")).json.pending as Array<Pending & { card: Record<string, any> }>)[0];
  assert.deepEqual(second.card.where, { kind: "session", session_id: "agent-1" });
  assert.equal(second.card.line, 2);
  assert.ok(Date.parse(second.card.already_ran.at) > 0, JSON.stringify(second.card));
  const text = await consoleCard(t, a, second.id);
  assert.match(text, /This exact call \(same tool, same input\) already ran at \d{4}-\d\d-\d\d/);
  assert.deepEqual(d.lines(), ["A refund ch_1"]);
});

test("PostgreSQL, two replicas: the answer given on either lets the same run go on, each refund made once", async (t) => {
  const d = await deployment(t);
  const [a, b] = await Promise.all([d.start("A"), d.start("B")]);
  await refundCase(d, a, b);
});

test("PostgreSQL, two replicas: `toolshell approve` from the CLI lets the stopped run go on, and a later run asks again", async (t) => {
  const d = await deployment(t);
  const [a, b] = await Promise.all([d.start("A"), d.start("B")]);
  assert.equal((await api(a, "POST", "/v1/agents/default/scripts", { name: "refund-one", description: "Refunds one charge.", body: "tools refund charge=ch_9001\necho refunded\n" })).status, 201);
  const id = (await api(a, "POST", "/v1/agents/default/triggers", { name: "refund-hook", webhook: true, script: "refund-one", input: {} })).json.id as string;
  const session = `trg_${id}`;
  const first = (await api(a, "POST", `/v1/agents/default/triggers/${id}/run`, {})).json as Run;
  assert.equal(first.status, "stopped", JSON.stringify(first));
  // Answered in a CLI process of its own (no warm host), as an operator would from a shell.
  const cli = await promisify(execFile)(process.execPath, [CLI, "approve", first.request_id!, "allow", "--no-daemon", "--config", d.config], { cwd: d.dir, env: { ...process.env, TOOLSHELL_TEST_LOG: d.log } });
  assert.match(cli.stdout, /allow: tools refund/);
  const done = await until(async () => {
    const r = (await api(b, "GET", `/v1/agents/default/triggers/${id}/runs/${first.id}`)).json as Run;
    return r.status === "ok" ? r : undefined;
  }, "the run answered from the CLI to finish");
  assert.match(done.result?.stdout ?? "", /refunded/);
  assert.deepEqual(d.lines().map((l) => l.split(" ").slice(1).join(" ")), ["refund ch_9001"]);
  // The answer was for that run's call: the next run asks again instead of spending it.
  const second = (await api(b, "POST", `/v1/agents/default/triggers/${id}/run`, {})).json as Run;
  assert.equal(second.status, "stopped", JSON.stringify(second));
  assert.notEqual(second.request_id, first.request_id);
  assert.deepEqual(d.lines().map((l) => l.split(" ").slice(1).join(" ")), ["refund ch_9001"]);
  assert.equal((await pendingOf(a, session)).length, 1);
});
