/**
 * The console's session page lists the session's durable steps (views/steps.tsx) in a real
 * browser (Debian's Chromium via playwright-core, test/fixtures/chromium.ts) against a real
 * `startApi` server on 127.0.0.1 with a SQLite store: a step held for approval shows "held for
 * approval"; once answered through the API the open page shows "answered" and says nothing runs
 * until the step is sent again; sent again, the step shows done after its second run.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { always, defineTool } from "../../src/index.js";
import { openHost, startApi } from "../../src/server/index.js";
import { apiCaller } from "../fixtures/api-call.js";
import { launchChromium } from "../fixtures/chromium.js";

const TOKEN = "console-steps-token-0123456789ab";

test("a held step shows held, then answered with what the agent must do, then done after it is sent again", async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), "toolshell-console-steps-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const ran: string[] = [];
  const host = await openHost({
    store: path.join(dir, "state.db"),
    config: { server: { tokens: [TOKEN] }, logDir: path.join(dir, "logs") },
    tools: {
      refund: defineTool({ description: "Refunds a charge.", inputSchema: { type: "object", properties: { charge: { type: "string" } } }, approval: always(), execute: ({ charge }) => (ran.push(String(charge)), { refunded: charge }) }),
    },
  });
  t.after(() => host.close());
  const api = await startApi(host, { host: "127.0.0.1", port: 0, triggers: false });
  t.after(() => api.close());
  const call = apiCaller(api.url, TOKEN);
  assert.equal((await call("POST", "/v1/sessions", { id: "ses-steps" })).status, 201);
  const step = { script: "tools refund charge=ch_1", step_id: "turn-1/bash-1" };
  const first = await call("POST", "/v1/sessions/ses-steps/bash", step);
  assert.notEqual(first.json.exit_code, 0, JSON.stringify(first.json));
  assert.deepEqual(ran, []);

  const browser = await launchChromium(t);
  const ctx = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  ctx.setDefaultTimeout(15_000);
  const page = await ctx.newPage();
  await page.goto(api.url + "/login?next=/sessions/ses-steps");
  await page.getByLabel("API token").fill(TOKEN);
  await page.getByRole("button", { name: "Sign in" }).click();
  const steps = page.getByRole("region", { name: "Durable steps" });
  await steps.waitFor();
  await page.waitForFunction(() => document.documentElement.dataset.live === "connected");
  const row = steps.locator('tr[data-step="turn-1/bash-1"]');
  assert.match(await row.innerText(), /held for approval/);

  // Answered through the API: the open page shows it without a reload.
  const pending = (await call("GET", "/v1/sessions/ses-steps/tool-approvals")).json.pending;
  const answer = await call("POST", "/v1/sessions/ses-steps/tool-approvals", { decisions: [{ tool_call_id: pending[0].tool_call_id, decision: "allow" }] });
  assert.equal(answer.status, 200, JSON.stringify(answer.json));
  await steps.locator('tr[data-step="turn-1/bash-1"][data-status="answered"]').waitFor();
  const answered = await steps.locator('tr[data-step="turn-1/bash-1"]').innerText();
  assert.match(answered, /answered/);
  assert.match(answered, /nothing runs until the agent sends step turn-1\/bash-1 again/);
  assert.deepEqual(ran, [], "answering runs nothing");
  assert.equal((await call("GET", "/v1/sessions/ses-steps/steps")).json.steps[0].status, "answered", "the API says the same");

  // Sent again: it runs, and the page shows it done after its second run.
  const again = await call("POST", "/v1/sessions/ses-steps/bash", step);
  assert.equal(again.json.exit_code, 0, JSON.stringify(again.json));
  assert.deepEqual(ran, ["ch_1"]);
  await steps.locator('tr[data-step="turn-1/bash-1"][data-status="completed"]').waitFor();
  assert.match(await steps.locator('tr[data-step="turn-1/bash-1"]').innerText(), /resumed, done/);
});
