/**
 * Who answered, who changed what: named API tokens (`server.tokens: [{ name, token }]`), a real
 * `toolshell serve` replica on a real PostgreSQL (test/replicas/helpers.ts), the console in
 * Debian's Chromium and the real CLI. Every `approval.answered` and every change records who and
 * through which surface; `toolshell events` and the console's timelines show it.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { userInfo } from "node:os";
import { test } from "node:test";
import { apiCaller, type ApiAnswer } from "../fixtures/api-call.js";
import { launchChromium } from "../fixtures/chromium.js";
import { CLI, deployment, TOKEN, until, type Replica } from "../replicas/helpers.js";

const BOB = "bob-token-0123456789abcdefgh";

async function as(token: string, r: Replica, method: string, p: string, body?: unknown, retried = false): Promise<ApiAnswer> {
  try {
    return await apiCaller(r.url, token)(method, p, body);
  } catch (err) {
    // A kept-alive socket the server closed while a CLI command ran: the request never arrived.
    if (retried || !["UND_ERR_SOCKET", "ECONNRESET"].includes(String((err as { cause?: { code?: string } }).cause?.code))) throw err;
    return as(token, r, method, p, body, true);
  }
}

test("answers and changes say who and through which surface: API (token names), console, CLI; toolshell events and the console show it", async (t) => {
  const d = await deployment(t, { server: { tokens: [{ name: "alice", token: TOKEN, role: "operator" }, { name: "bob", token: BOB, role: "operator" }] } });
  const r = await d.start("a");
  const me = userInfo().username;
  const cli = (...args: string[]) => spawnSync(process.execPath, [CLI, "--no-daemon", "--config", d.config, ...args], { cwd: d.dir, encoding: "utf8", timeout: 120_000, env: { ...process.env, TOOLSHELL_TEST_LOG: d.log } });

  // A session made with alice's token is alice's client; the reserved change log cannot be made.
  const made = await as(TOKEN, r, "POST", "/v1/sessions", { id: "pay-1" });
  assert.equal(made.status, 201, JSON.stringify(made.json));
  assert.equal(made.json.metadata.client, "api:alice");
  assert.equal((await as(TOKEN, r, "POST", "/v1/sessions", { id: "changes" })).status, 409);

  const stopOnce = async (to: string): Promise<string> => {
    const stop = await as(TOKEN, r, "POST", "/v1/sessions/pay-1/bash", { script: `tools pay to=${to}` });
    assert.equal(stop.json.tools?.stopped?.reason, "needs_approval", JSON.stringify(stop.json));
    return stop.json.tools.stopped.request_id as string;
  };

  // 1. Bob answers through the API.
  const first = await stopOnce("ann");
  const answered = await as(BOB, r, "POST", "/v1/sessions/pay-1/tool-approvals", { decisions: [{ request_id: first, decision: "reject" }] });
  assert.equal(answered.status, 200, JSON.stringify(answered.json));

  // 2. Alice answers in the console.
  const second = await stopOnce("ben");
  const browser = await launchChromium(t);
  const page = await browser.newPage();
  page.setDefaultTimeout(20_000);
  await page.goto(r.url + "/");
  await page.getByLabel("API token").fill(TOKEN);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.locator("article.approval").first().getByRole("button", { name: "Reject", exact: true }).click();
  await until(async () => ((await as(TOKEN, r, "GET", "/v1/sessions/pay-1/tool-approvals")).json.pending.length === 0 ? true : undefined), "the console's answer");

  // 3. The local user answers with the CLI.
  const third = await stopOnce("cy");
  const approve = cli("approve", third, "reject");
  assert.equal(approve.status, 0, approve.stderr);

  const events = (await as(TOKEN, r, "GET", "/v1/sessions/pay-1/events")).json.events.filter((e: any) => e.type === "approval.answered");
  assert.deepEqual(
    events.map((e: any) => [e.request_id, e.by, e.surface]),
    [
      [first, "bob", "api"],
      [second, "alice", "console"],
      [third, me, "cli"],
    ],
  );
  const timeline = cli("events", "pay-1");
  assert.equal(timeline.status, 0, timeline.stderr);
  assert.match(timeline.stdout, new RegExp(`approval ${first} answered: reject \\(tools pay\\) by bob \\(api\\)`));
  assert.match(timeline.stdout, new RegExp(`approval ${second} answered: reject \\(tools pay\\) by alice \\(console\\)`));
  assert.match(timeline.stdout, new RegExp(`approval ${third} answered: reject \\(tools pay\\) by ${me} \\(cli\\)`));

  // Changes: bob saves a script and creates a trigger through the API, alice disables it in the
  // console, the local user enables it again with the CLI.
  assert.equal((await as(BOB, r, "POST", "/v1/agents/default/scripts", { name: "nightly", description: "d", body: "echo hi" })).status, 201);
  const trig = await as(BOB, r, "POST", "/v1/agents/default/triggers", { name: "nightly-run", script: "nightly", schedule: "0 3 * * *" });
  assert.equal(trig.status, 201, JSON.stringify(trig.json));
  await page.goto(r.url + "/triggers");
  await page.getByRole("button", { name: /Disable/ }).first().click();
  await until(async () => ((await as(TOKEN, r, "GET", `/v1/agents/default/triggers/${trig.json.id}`)).json.enabled === false ? true : undefined), "the console's change");
  const enable = cli("triggers", "update", "nightly-run", "--enable");
  assert.equal(enable.status, 0, enable.stderr);

  const changes = cli("events", "changes");
  assert.equal(changes.status, 0, changes.stderr);
  assert.match(changes.stdout, /script nightly saved \(agent default\) by bob \(api\)/);
  assert.match(changes.stdout, /trigger nightly-run created \(agent default\) by bob \(api\)/);
  // The console sends the trigger's id: the log names the trigger and says what the change did.
  assert.match(changes.stdout, /trigger nightly-run disabled \(agent default\) by alice \(console\)/);
  assert.match(changes.stdout, new RegExp(`trigger nightly-run changed \\(agent default\\) by ${me} \\(cli\\)`));
  assert.match(changes.stdout, /session pay-1 created by alice \(api\)/);

  // The console shows both timelines.
  await page.goto(r.url + "/sessions/pay-1");
  await page.getByText("Approval answered: reject for tools pay by bob (api)").waitFor();
  await page.getByText("Approval answered: reject for tools pay by alice (console)").waitFor();
  await page.goto(r.url + "/sessions/changes");
  await page.getByText("Trigger nightly-run disabled (agent default) by alice (console)").waitFor();
});
