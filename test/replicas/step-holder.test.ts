/**
 * Who holds a running durable step (docs/deployment.md → Who holds a step): two real
 * `toolshell serve` replicas on one real PostgreSQL. A step running on A names A (its id, host
 * and pid) in the API's step data and on the console's session page; once A is killed with
 * SIGKILL and its heartbeat goes stale, both say "replica gone" instead of "running", with what to
 * do; sent again to B, the step runs there, and "Started" stays the first attempt's start.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { launchChromium } from "../fixtures/chromium.js";
import { api, deployment, kill, TOKEN, until, type Replica } from "./helpers.js";

interface Step {
  step_id: string;
  tool_call_id: string;
  status: string;
  note?: string;
  started_at: string;
  resumed_at?: string;
  replica?: { id: string; live: boolean; host?: string; pid?: number; url?: string; seen_at?: string };
}

async function stepOf(r: Replica, sid: string, stepId: string): Promise<Step | undefined> {
  const steps = (await api(r, "GET", `/v1/sessions/${sid}/steps`)).json.steps as Step[];
  return steps.find((s) => s.step_id === stepId);
}

test("a running step names its replica; killed, the step shows replica gone in the API and on the open console page", async (t) => {
  const d = await deployment(t);
  const [a, b] = await Promise.all([d.start("A", { env: { TOOLSHELL_TEST_HANG: "1" } }), d.start("B")]);
  assert.equal((await api(b, "POST", "/v1/sessions", { id: "h1" })).status, 201);
  const body = { script: "tools count label=n1; tools hang; echo done", step_id: "turn-1.bash-1" };
  const onA = api(a, "POST", "/v1/sessions/h1/bash", body).catch((err: unknown) => err);
  await until(async () => (d.lines().includes("A hang") ? true : undefined), "A to reach the hanging call");

  // Running on A: asked on B, the step names A, live.
  const running = await until(async () => {
    const s = await stepOf(b, "h1", "turn-1.bash-1");
    return s?.status === "running" ? s : undefined;
  }, "the step to be recorded as running");
  assert.equal(running.replica?.pid, a.child.pid, JSON.stringify(running));
  assert.equal(running.replica?.live, true);
  assert.equal(running.replica?.url, a.url);
  assert.match(running.replica!.id, /^rep_/);

  const browser = await launchChromium(t);
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  page.setDefaultTimeout(30_000);
  await page.goto(b.url + "/login?next=/sessions/h1");
  await page.getByLabel("API token").fill(TOKEN);
  await page.getByRole("button", { name: "Sign in" }).click();
  const row = page.getByRole("region", { name: "Durable steps" }).locator('tr[data-step="turn-1.bash-1"]');
  await row.waitFor();
  const onPage = await row.innerText();
  assert.match(onPage, /running/);
  assert.ok(onPage.includes(`On replica ${running.replica!.id}`), onPage);
  assert.ok(onPage.includes(`pid ${a.child.pid}`), onPage);

  // A is killed mid-call: once its heartbeat is stale, the step is "replica gone", not running.
  await kill(a);
  assert.ok((await onA) instanceof Error, "A's caller lost its connection");
  const gone = await until(async () => {
    const s = await stepOf(b, "h1", "turn-1.bash-1");
    return s?.status === "replica_gone" ? s : undefined;
  }, "the step to show its replica gone", 900);
  assert.equal(gone.replica?.id, running.replica!.id);
  assert.equal(gone.replica?.live, false);
  assert.match(gone.note ?? "", /send the same step_id again/);

  // The open page shows it by itself (no event marks a replica going stale; the live check
  // compares the steps' statuses).
  await row.locator(".state", { hasText: "replica gone" }).waitFor({ timeout: 60_000 });
  const state = await row.locator(".state").innerText();
  assert.equal(state, "replica gone");
  assert.equal(await row.getAttribute("data-status"), "replica_gone");
  assert.match(await row.innerText(), /stopped .*nothing runs this step until the agent sends step turn-1\.bash-1 again/s);
  // Its shell call's card below says it did not end, not "running…" (the step is not running).
  const card = page.locator(`article.card.shell[data-call="${running.tool_call_id}"]`).first();
  assert.equal(await card.getAttribute("data-state"), "unfinished");
  assert.doesNotMatch(await card.locator(".card-head").innerText(), /running/);

  // The session lists flag it before anyone opens the session: the API's and the console's.
  const listedGone = ((await api(b, "GET", "/v1/sessions")).json.sessions as { id: string; steps_replica_gone?: number }[]).find((x) => x.id === "h1");
  assert.equal(listedGone?.steps_replica_gone, 1, JSON.stringify(listedGone));
  await page.goto(b.url + "/sessions");
  const listRow = page.locator("tr", { has: page.getByRole("link", { name: "h1", exact: true }) });
  assert.match(await listRow.locator('td[data-label="Waiting"]').innerText(), /1 step\(s\): replica gone/);
  await page.goto(b.url + "/sessions/h1");

  // Sent again to B: it runs there (what A completed is replayed) and the step no longer names A.
  const onB = await api(b, "POST", "/v1/sessions/h1/bash", body);
  assert.equal(onB.json.exit_code, 0, JSON.stringify(onB.json));
  const done = await stepOf(b, "h1", "turn-1.bash-1");
  assert.equal(done?.status, "completed");
  // A completed step names the replica that ran its latest attempt: B, live.
  assert.deepEqual([done?.replica?.pid, done?.replica?.live, done?.replica?.url], [b.child.pid, true, b.url], JSON.stringify(done));
  assert.deepEqual(d.lines(), ["A n1", "A hang", "B hang"]);
  const listedDone = ((await api(b, "GET", "/v1/sessions")).json.sessions as { id: string; steps_replica_gone?: number }[]).find((x) => x.id === "h1");
  assert.equal(listedDone?.steps_replica_gone, undefined, "control: resumed, the session is flagged no more");
  // "Started" is the first attempt's start (on A); the run on B is shown beside it.
  assert.equal(done?.started_at, running.started_at);
  assert.ok(done?.resumed_at && Date.parse(done.resumed_at) > Date.parse(done.started_at), JSON.stringify(done));
  await page.reload();
  await row.locator('[data-status="completed"]').or(row).waitFor();
  const started = await row.locator('td[data-label="Started"]').innerText();
  assert.match(started, /latest run/);
  assert.equal(await row.locator('td[data-label="Started"] time').first().getAttribute("datetime"), running.started_at);
  await page.goto(b.url + "/sessions");
  assert.equal(await listRow.locator('td[data-label="Waiting"]').innerText(), "—", "control: the console's list flags it no more");
});

test("the console's Servers page lists the live replicas; a killed one drops out", async (t) => {
  const d = await deployment(t);
  const [a, b] = await Promise.all([d.start("A"), d.start("B")]);
  const browser = await launchChromium(t);
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  page.setDefaultTimeout(30_000);
  await page.goto(b.url + "/login?next=/servers");
  await page.getByLabel("API token").fill(TOKEN);
  await page.getByRole("button", { name: "Sign in" }).click();
  const list = page.getByRole("region", { name: "Live replicas" });
  await list.waitFor();
  const rows = list.locator("tbody tr");
  assert.equal(await rows.count(), 2, await list.innerText());
  const text = await list.innerText();
  for (const r of [a, b]) {
    assert.ok(text.includes(String(r.child.pid)), `pid of ${r.name}: ${text}`);
    assert.ok(text.includes(r.url), `url of ${r.name}: ${text}`);
  }
  assert.match(await rows.filter({ hasText: String(b.child.pid) }).innerText(), /this one/);
  assert.doesNotMatch(await rows.filter({ hasText: String(a.child.pid) }).innerText(), /this one/);
  // The API lists the same replicas (operator tokens), and names the one that answered.
  const listed = await api(b, "GET", "/v1/replicas");
  assert.equal(listed.status, 200, JSON.stringify(listed.json));
  const byPid = (json: any, pid: number | undefined) => (json.replicas as Array<{ pid: number; id: string; live: boolean; url: string; kind: string }>).find((r) => r.pid === pid);
  assert.deepEqual([a, b].map((r) => [byPid(listed.json, r.child.pid)?.url, byPid(listed.json, r.child.pid)?.live, byPid(listed.json, r.child.pid)?.kind]), [[a.url, true, "serve"], [b.url, true, "serve"]]);
  assert.equal(listed.json.this, byPid(listed.json, b.child.pid)?.id);
  assert.equal((await api(a, "GET", "/v1/replicas")).json.this, byPid(listed.json, a.child.pid)?.id);

  await kill(a);
  await until(async () => {
    await page.reload();
    await list.waitFor();
    return (await rows.count()) === 1 ? true : undefined;
  }, "the killed replica to drop out of the list", 300, 500);
  assert.ok((await list.innerText()).includes(String(b.child.pid)));
  // The API keeps the killed one, not live, until it is forgotten.
  const after = await api(b, "GET", "/v1/replicas");
  assert.equal(byPid(after.json, a.child.pid)?.live, false, JSON.stringify(after.json));
  assert.equal(byPid(after.json, b.child.pid)?.live, true);
});
