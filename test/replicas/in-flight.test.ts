/**
 * A re-asked call that was approved and in flight when its replica was killed (docs/sessions.md →
 * The approval card): two real `toolshell serve` replicas on one real PostgreSQL. A durable step's
 * transfer is allowed once and starts on replica A, which is killed (SIGKILL) while the transfer
 * runs; sent again to B, the step resumes and the transfer asks again (the answer was spent). The
 * card of that request — the API's `card`, the console's inbox, `toolshell approvals` — says the
 * same call was approved and had started when replica A stopped, and may already have run. The
 * card of the first request, whose call never started, says nothing of it.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { test } from "node:test";
import { promisify } from "node:util";
import { launchChromium } from "../fixtures/chromium.js";
import { api, CLI, deployment, kill, TOKEN, until, type Replica } from "./helpers.js";

type Card = { in_flight?: { approved_by?: string; surface?: string; approved_at?: string; started_at: string; replica?: { id: string; host?: string; pid?: number }; warning: string }; before_start: boolean };
type Pending = { id: string; session_id: string; input: Record<string, unknown>; card: Card };

async function pending(r: Replica): Promise<Pending[]> {
  return (await api(r, "GET", "/v1/approvals")).json.pending as Pending[];
}

test("a transfer approved and in flight when its replica was killed is asked again with a warning that it may already have run", async (t) => {
  const d = await deployment(t);
  const [a, b] = await Promise.all([d.start("A", { env: { TOOLSHELL_TEST_HANG: "1" } }), d.start("B")]);
  assert.equal((await api(b, "POST", "/v1/sessions", { id: "pay-1" })).status, 201);
  const body = { script: "tools transfer to=carol\n", step_id: "turn-1/bash-1" };

  const held = await api(a, "POST", "/v1/sessions/pay-1/bash", body);
  assert.equal(held.json.tools?.stopped?.before_start, true, JSON.stringify(held.json));
  const [first] = await pending(b);
  // Control: nothing of this call has started yet.
  assert.equal(first.card.in_flight, undefined, JSON.stringify(first.card));
  assert.equal((await api(b, "POST", "/v1/sessions/pay-1/tool-approvals", { decisions: [{ tool_call_id: first.id, decision: "allow" }] })).status, 200);

  // Sent again to A: the transfer starts there and hangs; A is killed while it runs.
  const onA = api(a, "POST", "/v1/sessions/pay-1/bash", body).catch((err: unknown) => err);
  await until(async () => (d.lines().includes("A transfer carol") ? true : undefined), "the transfer to start on A");
  await kill(a);
  assert.ok((await onA) instanceof Error, "A's caller lost its connection");

  // Sent again to B: the step resumes, and the transfer asks again.
  const again = await api(b, "POST", "/v1/sessions/pay-1/bash", body);
  assert.equal(again.json.tools?.stopped?.reason, "needs_approval", JSON.stringify(again.json));
  const second = (await pending(b)).find((p) => p.id === again.json.tools.stopped.request_id);
  assert.ok(second, "the re-asked request is pending");
  const f = second.card.in_flight;
  assert.ok(f, `the card names the in-flight approval: ${JSON.stringify(second.card)}`);
  assert.equal(f.approved_by, "token-1");
  assert.equal(f.surface, "api");
  assert.match(f.replica?.id ?? "", /^rep_/);
  assert.equal(f.replica?.pid, a.child.pid);
  assert.ok(f.approved_at && f.started_at >= f.approved_at, JSON.stringify(f));
  const warning = new RegExp(`This exact call was approved by token-1 \\(api\\) at \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC and had started at \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC when replica ${f.replica!.id} \\([^)]*pid ${a.child.pid}\\) stopped; it may already have run upstream\\. Allowing it runs it again\\.`);
  assert.match(f.warning, warning);

  // `toolshell approvals`, in a CLI process of its own on the same store.
  const cli = await promisify(execFile)(process.execPath, [CLI, "approvals", "--no-daemon", "--config", d.config], { cwd: d.dir, env: { ...process.env, TOOLSHELL_TEST_LOG: d.log } });
  const block = cli.stdout.split("\n\n").find((x) => x.startsWith(second.id)) ?? "";
  assert.match(block, /warning: This exact call was approved by token-1 \(api\)/);
  assert.match(block, /it may already have run upstream\. Allowing it runs it again\./);

  // The console's inbox on B.
  const browser = await launchChromium(t);
  const page = await browser.newPage();
  page.setDefaultTimeout(20_000);
  await page.goto(b.url + "/");
  await page.getByLabel("API token").fill(TOKEN);
  await page.getByRole("button", { name: "Sign in" }).click();
  const card = page.locator(`#card-${second.id}`);
  await card.waitFor();
  assert.match(await card.locator(".in-flight").innerText(), warning);
  // Allowed there, the session's history keeps what the person was warned of, on either replica.
  await card.getByRole("button", { name: "Allow once" }).click();
  const answered = await until(async () => {
    const events = (await api(b, "GET", "/v1/sessions/pay-1/events")).json.events as { type: string; request_id?: string; warned?: string; by?: string }[];
    return events.find((e) => e.type === "approval.answered" && e.request_id === second.id);
  }, "the answer recorded");
  assert.match(answered.warned ?? "", warning, JSON.stringify(answered));
  assert.equal(answered.by, "token-1");
  // Only the transfer on A really started.
  assert.deepEqual(d.lines(), ["A transfer carol"]);
});
