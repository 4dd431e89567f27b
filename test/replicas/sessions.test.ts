/**
 * Two real `toolshell serve` replicas on one real PostgreSQL (docs/deployment.md): any replica
 * serves any session, an approval answered on one is seen by the other, one session's shell
 * calls never interleave across replicas, and a step interrupted by SIGKILL resumes on the other
 * replica without running a completed call twice. The local tools log each real execution to a
 * file (test/fixtures/replicas/agent/tools).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { api, deployment, kill, until } from "./helpers.js";

test("a session created on A runs on B, and A then sees what B wrote (files and shell-call count)", async (t) => {
  const d = await deployment(t);
  const [a, b] = await Promise.all([d.start("A"), d.start("B")]);
  assert.equal((await api(a, "POST", "/v1/sessions", { id: "s1", agent_id: "ops" })).status, 201);
  const first = await api(a, "POST", "/v1/sessions/s1/bash", { script: "echo one > notes.txt; tools count label=a1" });
  assert.equal(first.json.exit_code, 0, JSON.stringify(first.json));
  assert.equal(first.json.tool_call_id, "call_bash_1");
  const onB = await api(b, "POST", "/v1/sessions/s1/bash", { script: "echo two >> notes.txt; cat notes.txt; tools count label=b1 >/dev/null" });
  assert.equal(onB.json.exit_code, 0, JSON.stringify(onB.json));
  assert.equal(onB.json.stdout, "one\ntwo\n");
  assert.equal(onB.json.tool_call_id, "call_bash_2");
  // A holds the session in memory from its first call: it must not serve that stale copy.
  const backOnA = await api(a, "POST", "/v1/sessions/s1/bash", { script: "cat notes.txt" });
  assert.equal(backOnA.json.stdout, "one\ntwo\n");
  assert.equal(backOnA.json.tool_call_id, "call_bash_3");
  const rec = await api(b, "GET", "/v1/sessions/s1");
  assert.equal(rec.json.agent_id, "ops");
  assert.equal(rec.json.shell_calls, 3);
  assert.deepEqual(d.lines(), ["A a1", "B b1"]);
});

test("a script stopped for approval on A is answered on B and runs when run again on A", async (t) => {
  const d = await deployment(t);
  const [a, b] = await Promise.all([d.start("A"), d.start("B")]);
  assert.equal((await api(a, "POST", "/v1/sessions", { id: "s2" })).status, 201);
  const script = "tools pay to=bob";
  const stopped = await api(a, "POST", "/v1/sessions/s2/bash", { script });
  assert.equal(stopped.json.exit_code, 1);
  const requestId = stopped.json.tools.stopped.request_id as string;
  assert.equal(stopped.json.tools.stopped.reason, "needs_approval");
  const pendingOnB = await api(b, "GET", "/v1/sessions/s2/tool-approvals");
  assert.deepEqual(pendingOnB.json.pending.map((p: { id: string }) => p.id), [requestId]);
  const answered = await api(b, "POST", "/v1/sessions/s2/tool-approvals", { decisions: [{ tool_call_id: requestId, decision: "allow" }] });
  assert.equal(answered.status, 200, JSON.stringify(answered.json));
  assert.deepEqual((await api(a, "GET", "/v1/sessions/s2/tool-approvals")).json.pending, []);
  // The answer names the replica that took it, as GET /v1/replicas names it (docs/sessions.md → Who acted).
  const bId = (await api(b, "GET", "/v1/replicas")).json.this as string;
  const aId = (await api(a, "GET", "/v1/replicas")).json.this as string;
  assert.ok(bId && aId && bId !== aId, `${aId} ${bId}`);
  const events = (await api(a, "GET", "/v1/sessions/s2/events")).json.events as Array<Record<string, unknown>>;
  assert.equal(events.find((e) => e.type === "approval.answered")?.replica, bId);
  // So does a change: a script saved through A.
  assert.equal((await api(a, "POST", "/v1/agents/default/scripts", { name: "hello", description: "Says hi.", body: "echo hi" })).status, 201);
  const changes = (await api(b, "GET", "/v1/sessions/changes/events")).json.events as Array<Record<string, unknown>>;
  assert.equal(changes.find((e) => e.type === "change.made" && String(e.what).startsWith("script hello"))?.replica, aId);
  const again = await api(a, "POST", "/v1/sessions/s2/bash", { script });
  assert.equal(again.json.exit_code, 0, JSON.stringify(again.json));
  assert.equal(again.json.stdout, "paid\n");
  assert.deepEqual(d.lines(), ["A pay bob"]);
  // `allow` was for that one call: the next one asks again, on either replica.
  const third = await api(b, "POST", "/v1/sessions/s2/bash", { script });
  assert.equal(third.json.tools?.stopped?.reason, "needs_approval");
  assert.deepEqual(d.lines(), ["A pay bob"]);
});

test("shell calls of one session sent to both replicas at once run one after another", async (t) => {
  const d = await deployment(t);
  const [a, b] = await Promise.all([d.start("A"), d.start("B")]);
  assert.equal((await api(b, "POST", "/v1/sessions", { id: "s3" })).status, 201);
  const calls = [];
  for (let i = 0; i < 4; i++) {
    for (const r of [a, b]) {
      const label = `${r.name}${i}`;
      calls.push(api(r, "POST", "/v1/sessions/s3/bash", { script: `tools span label=${label}; tools span label=${label}-2; echo ${label} >> order.txt` }));
    }
  }
  const results = await Promise.all(calls);
  for (const r of results) assert.equal(r.json.exit_code, 0, JSON.stringify(r.json));
  const lines = d.lines();
  assert.equal(lines.length, 32);
  // Each shell call's two spans follow each other, start and end, with nothing between.
  for (let i = 0; i < lines.length; i += 4) {
    const label = lines[i].slice("start ".length);
    assert.deepEqual(lines.slice(i, i + 4), [`start ${label}`, `end ${label}`, `start ${label}-2`, `end ${label}-2`]);
  }
  const ids = results.map((r) => r.json.tool_call_id as string).sort();
  assert.equal(new Set(ids).size, 8, `every shell call has its own id: ${ids.join(" ")}`);
  // Every shell call appended its line to the same file: none was lost to a stale copy.
  const order = await api(a, "POST", "/v1/sessions/s3/bash", { script: "wc -l < order.txt" });
  assert.equal(order.json.stdout.trim(), "8");
});

test("SIGKILL of a replica mid-step: the step resumes on the other, and no completed call runs twice", async (t) => {
  const d = await deployment(t);
  const [a, b] = await Promise.all([d.start("A", { env: { TOOLSHELL_TEST_HANG: "1" } }), d.start("B")]);
  assert.equal((await api(b, "POST", "/v1/sessions", { id: "s4" })).status, 201);
  const body = { script: "tools count label=n1; tools count label=n2; tools hang; tools count label=n3; echo done", step_id: "turn-1.bash-1" };
  const onA = api(a, "POST", "/v1/sessions/s4/bash", body).catch((err: unknown) => err);
  // A is inside `hang` once both counts are recorded in the store (their events say so).
  await until(async () => (d.lines().includes("A hang") ? true : undefined), "A to reach the hanging call");
  await until(async () => {
    const ev = await api(b, "GET", "/v1/sessions/s4/events");
    const done = (ev.json.events as Array<{ type: string; status?: string; tool_name?: string }>).filter((e) => e.type === "tool.nested_call" && e.status === "completed" && e.tool_name === "count");
    return done.length === 2 ? true : undefined;
  }, "the two completed calls to be recorded");
  await kill(a);
  assert.ok((await onA) instanceof Error, "A's caller lost its connection");
  const onB = await api(b, "POST", "/v1/sessions/s4/bash", body);
  assert.equal(onB.json.exit_code, 0, JSON.stringify(onB.json));
  // The replayed calls print their recorded output: the script's output is whole.
  const whole = '{"label":"n1"}\n{"label":"n2"}\nwent on\n{"label":"n3"}\ndone\n';
  assert.equal(onB.json.stdout, whole);
  // n1 and n2 ran once (on A) and were replayed on B; the call in flight ran again; n3 once.
  assert.deepEqual(d.lines(), ["A n1", "A n2", "A hang", "B hang", "B n3"]);
  const steps = await api(b, "GET", "/v1/sessions/s4/steps");
  const step = (steps.json.steps as Array<{ step_id: string; status: string; attempt: number }>).find((s) => s.step_id === "turn-1.bash-1");
  assert.equal(step?.status, "completed");
  assert.equal(step?.attempt, 2);
  // Completed: asked again (on either replica), it returns its result and runs nothing.
  const replay = await api(b, "POST", "/v1/sessions/s4/bash", body);
  assert.equal(replay.json.stdout, whole);
  assert.equal(d.lines().length, 5);
});

test("SIGKILL after an allowed call ran: the step resumed on the other replica replays it without asking a person again", async (t) => {
  const d = await deployment(t);
  const [a, b] = await Promise.all([d.start("A", { env: { TOOLSHELL_TEST_HANG: "1" } }), d.start("B")]);
  assert.equal((await api(a, "POST", "/v1/sessions", { id: "s5" })).status, 201);
  const script = "tools pay to=carol; tools hang; echo end";
  const stopped = await api(a, "POST", "/v1/sessions/s5/bash", { script, step_id: "turn-1/bash-1" });
  assert.equal(stopped.json.tools?.stopped?.before_start, true, JSON.stringify(stopped.json));
  const requestId = stopped.json.tools.stopped.request_id as string;
  assert.equal((await api(a, "POST", "/v1/sessions/s5/tool-approvals", { decisions: [{ tool_call_id: requestId, decision: "allow" }] })).status, 200);
  const body = { script, step_id: "turn-1/bash-2" };
  const onA = api(a, "POST", "/v1/sessions/s5/bash", body).catch((err: unknown) => err);
  await until(async () => (d.lines().includes("A hang") ? true : undefined), "A to reach the hanging call");
  await until(async () => {
    const ev = await api(b, "GET", "/v1/sessions/s5/events");
    const paid = (ev.json.events as Array<{ type: string; status?: string; tool_name?: string }>).some((e) => e.type === "tool.nested_call" && e.status === "completed" && e.tool_name === "pay");
    return paid ? true : undefined;
  }, "the payment to be recorded");
  await kill(a);
  assert.ok((await onA) instanceof Error, "A's caller lost its connection");
  const onB = await api(b, "POST", "/v1/sessions/s5/bash", body);
  // The payment already ran: it is replayed from the record, nobody is asked about it again.
  assert.equal(onB.json.exit_code, 0, JSON.stringify(onB.json));
  assert.equal(onB.json.stdout, "paid\nwent on\nend\n");
  assert.deepEqual(d.lines(), ["A pay carol", "A hang", "B hang"]);
  assert.deepEqual((await api(b, "GET", "/v1/sessions/s5/tool-approvals")).json.pending, []);
  const events = (await api(b, "GET", "/v1/sessions/s5/events")).json.events as Array<{ type: string }>;
  assert.equal(events.filter((e) => e.type === "approval.requested").length, 1, "one question, before the first attempt");
});
