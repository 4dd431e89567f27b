/**
 * The console's forms and frame in a real browser (Debian's Chromium via playwright-core) against
 * a real `startApi` server on 127.0.0.1 with a SQLite store and real MCP servers over stdio: a bad
 * server entry keeps the form and shows an error, a slow server shows a pending state, Run now and
 * a failed run say what happened, a webhook trigger runs with a payload typed in the console, the
 * script page labels its body, headers wrap at spaces, the tab bar on a phone, trigger sessions
 * named after their trigger, and the Approvals badge counting servers' questions.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { always, defineTool } from "../../src/index.js";
import { openHost, startApi, type Host, type RunningApi } from "../../src/server/index.js";
import { apiCaller } from "../fixtures/api-call.js";
import { launchChromium } from "../fixtures/chromium.js";
import { FEATURE_SERVER, REPO_ROOT, tsxCommand } from "../fixtures/mcp/index.js";

const TOKEN = "console-forms-token-0123456789ab";
const SHOTS = path.join(REPO_ROOT, "test/out/console");

let dir: string;
let host: Host;
let api: RunningApi;
let browser: Browser;
let signedIn: BrowserContext;

before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  dir = mkdtempSync(path.join(tmpdir(), "toolshell-console-forms-"));
  host = await openHost({
    store: path.join(dir, "state.db"),
    config: { server: { tokens: [TOKEN] }, logDir: path.join(dir, "logs"), mcpServers: { feature: { ...tsxCommand(FEATURE_SERVER), load: "on_demand" } } },
    tools: {
      refund: defineTool({
        description: "Refunds a charge to the customer's card.",
        hints: { destructive: true, openWorld: true },
        inputSchema: { type: "object", properties: { charge: { type: "string" } } },
        execute: ({ charge }) => ({ refunded: charge }),
      }),
      lookup: defineTool({ description: "Looks a charge up.", hints: { readOnly: true }, inputSchema: { type: "object", properties: { charge: { type: "string" } } }, execute: ({ charge }) => ({ charge }) }),
      danger: defineTool({ description: "Needs a person.", inputSchema: { type: "object", properties: { x: {} } }, approval: always(), execute: ({ x }) => ({ x }) }),
    },
  });
  api = await startApi(host, { host: "127.0.0.1", port: 0, triggers: false });
  browser = await launchChromium();
  signedIn = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  signedIn.setDefaultTimeout(15_000);
  const page = await signedIn.newPage();
  await page.goto(api.url + "/");
  await page.getByLabel("API token").fill(TOKEN);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Approvals", level: 1 }).waitFor();
  await page.close();
});
after(async () => {
  await browser?.close();
  await api?.close();
  await host?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function v1(method: string, p: string, body?: unknown): Promise<any> {
  return (await apiCaller(api.url, TOKEN)(method, p, body)).json;
}

async function open(t: { after: (fn: () => unknown) => void }, p: string, ctx: BrowserContext = signedIn): Promise<Page> {
  const page = await ctx.newPage();
  t.after(() => page.close());
  await page.goto(api.url + p);
  return page;
}

test("a bad server entry keeps both fields and shows its error as an error; the card says where added servers are kept", async (t) => {
  const page = await open(t, "/servers");
  const form = page.getByRole("region", { name: "Add an MCP server" });
  await form.getByText("kept in the store", { exact: false }).waitFor();
  assert.doesNotMatch(await form.innerText(), /until the host\s+stops/);
  for (const [name, entry, message] of [
    ["memory", "{nope", /the entry of memory is not JSON/],
    ["memory", '{"command": 42}', /mcpServers\.memory\.command/],
  ] as const) {
    await form.getByLabel("Name").fill(name);
    await form.getByLabel("Entry (JSON)").fill(entry);
    await form.getByRole("button", { name: "Add server" }).click();
    const error = form.getByRole("alert");
    await error.filter({ hasText: message }).waitFor();
    assert.equal(await error.getAttribute("class"), "error form-error");
    assert.doesNotMatch(await error.innerText(), /config file/, "nothing is written to a config file");
    assert.equal(await form.getByLabel("Name").inputValue(), name, "the name is kept");
    assert.equal(await form.getByLabel("Entry (JSON)").inputValue(), entry, "the entry is kept");
    assert.equal(await page.locator("p.note").count(), 0, "no success-style note");
  }
  await page.screenshot({ path: path.join(SHOTS, "servers-refused.png"), fullPage: true });
  // On a phone, a refusal quoting a long unbroken path stays inside its card; it names the entry,
  // not the config file it was never in.
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 } });
  t.after(() => phone.close());
  await phone.addCookies(await signedIn.cookies());
  // At 390 px every tab is in sight (they wrap onto a second line), the active one marked.
  for (const at of ["/servers", "/"]) {
    const small = await open(t, at, phone);
    const nav = small.getByRole("navigation", { name: "Console" });
    const outside = await small.evaluate(() =>
      [...document.querySelectorAll<HTMLElement>("nav a")]
        .filter((a) => {
          const box = a.getBoundingClientRect();
          return box.left < 0 || box.right > window.innerWidth || box.width === 0;
        })
        .map((a) => a.textContent),
    );
    assert.deepEqual(outside, [], `tabs out of sight on ${at}`);
    assert.equal(await nav.getAttribute("data-more"), null);
    assert.equal(await nav.getByRole("link", { name: at === "/" ? /Approvals/ : "Servers" }).getAttribute("aria-current"), "page");
    if (at === "/servers") await small.screenshot({ path: path.join(SHOTS, "servers-phone-tabs.png") });
  }
});

test("the Approvals badge counts the servers' questions too", async (t) => {
  await v1("POST", "/v1/sessions", { id: "ses-ask" });
  await v1("POST", "/v1/sessions", { id: "ses-apr" });
  await v1("POST", "/v1/sessions/ses-apr/bash", { script: "tools danger x=1" });
  const asking = v1("POST", "/v1/sessions/ses-ask/bash", { script: "tools feature ask message=Which" });
  const page = await open(t, "/sessions");
  await page.locator("#pending-count", { hasText: "2" }).waitFor();
  const questions = (await v1("GET", "/v1/questions")).pending;
  assert.equal(questions.length, 1);
  await page.goto(api.url + "/sessions");
  assert.equal(await page.locator("#pending-count").innerText(), "2", "rendered with both");
  await v1("POST", "/v1/sessions/ses-ask/questions", { question_id: questions[0].question_id, action: "decline" });
  await asking;
  await page.locator("#pending-count", { hasText: "1" }).waitFor();
});

test("a run-time stop in a loop: the card shows the tool's description, hints and risk, what ran, the line that asked and the scope of always, and no internal id", async (t) => {
  await v1("POST", "/v1/sessions", { id: "ses-loop" });
  const script = "tools lookup charge=ch_1\nfor c in ch_8001 ch_8002; do\n  tools refund charge=$c\ndone";
  const stop = await v1("POST", "/v1/sessions/ses-loop/bash", { script });
  assert.equal(stop.tools?.stopped?.reason, "needs_approval", JSON.stringify(stop));
  const page = await open(t, "/");
  const card = page.locator("article.approval").filter({ has: page.getByRole("heading", { name: "tools refund" }) });
  await card.waitFor();
  const text = await card.innerText();
  await card.getByText("Refunds a charge to the customer's card.").waitFor();
  await card.getByText("destructive", { exact: false }).first().waitFor();
  await card.locator(".ran-before").getByText("tools lookup", { exact: false }).waitFor();
  await card.getByText("line 3 of the script").waitFor();
  await card.getByText("Allow always:", { exact: false }).waitFor();
  await card.getByText("Reject always:", { exact: false }).waitFor();
  assert.doesNotMatch(text, /call_bash_|preflight|:tools:|apr_/);
  await v1("POST", "/v1/sessions/ses-loop/tool-approvals", { decisions: [{ request_id: stop.tools.stopped.request_id, decision: "reject" }] });
});
