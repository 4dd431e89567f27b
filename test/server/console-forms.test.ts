/**
 * The console's forms and frame in a real browser (Debian's Chromium via playwright-core) against
 * a real `startApi` server on 127.0.0.1 with a SQLite store and real MCP servers over stdio: a bad
 * server entry keeps the form and shows an error, a slow server shows a pending state, Run now and
 * a failed run say what happened, a webhook trigger runs with a payload typed in the console, the
 * script page labels its body, headers wrap at spaces, the tab bar on a phone, trigger sessions
 * named after their trigger, and the Approvals badge counting servers' questions.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { always, defineTool } from "../../src/index.js";
import { openHost, startApi, type Host, type RunningApi } from "../../src/server/index.js";
import { apiCaller } from "../fixtures/api-call.js";
import { launchChromium } from "../fixtures/chromium.js";
import { FEATURE_SERVER, NPM_SERVERS, REPO_ROOT, tsxCommand } from "../fixtures/mcp/index.js";

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
  const small = await open(t, "/servers", phone);
  const smallForm = small.getByRole("region", { name: "Add an MCP server" });
  await smallForm.getByLabel("Name").fill("remote");
  await smallForm.getByLabel("Entry (JSON)").fill(`{"url": "notaurl${"/very/long/unbroken/path".repeat(6)}"}`);
  await smallForm.getByRole("button", { name: "Add server" }).click();
  const refusal = smallForm.getByRole("alert").filter({ hasText: /is not a URL/ });
  await refusal.waitFor();
  assert.match(await refusal.innerText(), /^mcpServers\.remote\.url: /, "the refusal names the entry, not the config file");
  const spill = await refusal.evaluate((el) => el.scrollWidth - el.clientWidth);
  assert.equal(spill, 0, "the refusal's text wraps inside its card");
  // Without the client script: the page comes back with what was typed and the error under the form.
  const plain = await browser.newContext({ javaScriptEnabled: false });
  t.after(() => plain.close());
  await plain.addCookies(await signedIn.cookies());
  const bare = await open(t, "/servers", plain);
  const bareForm = bare.getByRole("region", { name: "Add an MCP server" });
  await bareForm.getByLabel("Name").fill("memory");
  await bareForm.getByLabel("Entry (JSON)").fill('{"command": 42}');
  await bareForm.getByRole("button", { name: "Add server" }).click();
  await bareForm.getByRole("alert").filter({ hasText: /mcpServers\.memory\.command/ }).waitFor();
  assert.equal(await bareForm.getByLabel("Name").inputValue(), "memory");
  assert.equal(await bareForm.getByLabel("Entry (JSON)").inputValue(), '{"command": 42}');
  assert.equal(await bare.locator("p.note").count(), 0);
  assert.deepEqual(host.shell.config.servers.map((s) => s.name), ["feature"]);
});

test("adding a slow server shows a pending state until it started, then the server", async (t) => {
  const go = path.join(dir, "go");
  // Starts the memory server only once the test writes the file `go`: as slow as the test wants.
  const slow = `const fs=require("fs");const t=setInterval(()=>{if(!fs.existsSync(${JSON.stringify(go)}))return;clearInterval(t);require("child_process").spawn(${JSON.stringify(NPM_SERVERS.memory)},[],{stdio:"inherit",env:{...process.env,MEMORY_FILE_PATH:${JSON.stringify(path.join(dir, "m.jsonl"))}}}).on("exit",(c)=>process.exit(c??0))},50)`;
  const page = await open(t, "/servers");
  const form = page.getByRole("region", { name: "Add an MCP server" });
  await form.getByLabel("Name").fill("slow");
  await form.getByLabel("Entry (JSON)").fill(JSON.stringify({ command: process.execPath, args: ["-e", slow] }));
  await form.getByRole("button", { name: "Add server" }).click();
  const pending = form.getByRole("status");
  await pending.waitFor();
  await page.screenshot({ path: path.join(SHOTS, "servers-pending.png") });
  await pending.getByText("Adding slow", { exact: false }).waitFor();
  assert.equal(await form.getByRole("button", { name: /Add/ }).isDisabled(), true, "one add at a time");
  assert.equal(await form.locator("form").getAttribute("aria-busy"), "true");
  writeFileSync(go, "");
  await page.locator("p.note", { hasText: "Added server slow" }).waitFor();
  await page.getByRole("region", { name: "slow" }).getByText("loaded", { exact: true }).waitFor();
  await v1("DELETE", "/v1/servers/slow");
});

test("Run now says the run started; a failed run shows its message; a webhook trigger runs with a JSON payload", async (t) => {
  await v1("POST", "/v1/agents/default/scripts", { name: "fails", description: "Fails.", body: "echo 'the disk is full' >&2\nexit 3\n" });
  await v1("POST", "/v1/agents/default/scripts", { name: "hook-body", description: "Webhook.", body: "echo hooked\n" });
  const failing = await v1("POST", "/v1/agents/default/triggers", { name: "failing-job", schedule: "0 3 * * *", script: "fails" });
  const hook = await v1("POST", "/v1/agents/default/triggers", { name: "on-push", webhook: true, script: "hook-body" });
  assert.ok(failing.id && hook.id, JSON.stringify([failing, hook]));
  const page = await open(t, "/triggers");
  await page.waitForFunction(() => document.documentElement.dataset.live === "connected");
  const fail = page.locator("article.trigger", { has: page.getByRole("heading", { name: "failing-job" }) });
  await fail.getByRole("button", { name: "Run now" }).click();
  await fail.locator("p.note", { hasText: "Started trigger failing-job" }).waitFor();
  const run = fail.locator(".runs li").first();
  await run.getByText("failed").waitFor();
  await run.getByText("the disk is full", { exact: false }).waitFor();
  assert.match(await run.locator(".run-failure").innerText(), /^exit 1: saved script fails exited with 3: the disk is full$/);

  const wh = page.locator("article.trigger", { has: page.getByRole("heading", { name: "on-push" }) });
  const payload = wh.getByLabel("Payload (JSON)");
  assert.equal(await fail.getByLabel("Payload (JSON)").count(), 0, "only webhook triggers take a payload");
  await payload.fill("{ref: main}");
  await wh.getByRole("button", { name: "Run now" }).click();
  await wh.getByRole("alert").getByText("The payload is not JSON", { exact: false }).waitFor();
  assert.equal(await payload.inputValue(), "{ref: main}", "the payload is kept");
  assert.equal((await host.store.listTriggerRuns(hook.id)).length, 0, "nothing ran");
  await page.screenshot({ path: path.join(SHOTS, "triggers-forms.png"), fullPage: true });
  await payload.fill('{"ref": "main"}');
  await wh.getByRole("button", { name: "Run now" }).click();
  await wh.locator(".runs li", { hasText: "ok" }).waitFor();
  assert.deepEqual((await host.store.listTriggerRuns(hook.id))[0].payload, { ref: "main" });

  // A trigger's session is named after the trigger, without the doubled prefix.
  await page.goto(api.url + "/sessions");
  const row = page.getByRole("row", { name: /failing-job/ });
  await row.waitFor();
  assert.doesNotMatch(await row.innerText(), /trg_trg_/);
  await row.getByRole("link").first().click();
  await page.getByRole("heading", { level: 1, name: "Trigger failing-job" }).waitFor();
  assert.doesNotMatch(await page.title(), /trg_trg_/);
});

test("the script page labels the body and the input schema apart", async (t) => {
  await v1("POST", "/v1/agents/default/scripts", { name: "labelled", description: "Labelled.", body: "echo labelled\n" });
  const page = await open(t, "/scripts/default/labelled");
  const body = page.getByRole("region", { name: /Body/ });
  assert.equal((await body.locator("pre.script-text").innerText()).trim(), "echo labelled");
  const details = page.locator("details", { has: page.locator("summary", { hasText: "Input schema" }) });
  assert.equal(await details.locator("pre.script-text").count(), 0, "the body is not under the schema's disclosure");
});

test("table headers wrap at spaces only; at 390 px the active tab is in view and a cue says more tabs exist", async (t) => {
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 } });
  t.after(() => phone.close());
  await phone.addCookies(await signedIn.cookies());
  const narrow = await browser.newContext({ viewport: { width: 700, height: 800 } });
  t.after(() => narrow.close());
  await narrow.addCookies(await signedIn.cookies());
  await v1("POST", "/v1/sessions", { id: "ses-heads" });
  await v1("POST", "/v1/sessions/ses-heads/bash", { script: "echo one" });
  const page = await open(t, "/sessions", narrow);
  await page.locator("table.list").waitFor();
  // Each header's words each fit on a line: no header is broken inside a word.
  const broken = await page.evaluate(() =>
    [...document.querySelectorAll("thead th")].filter((th) => {
      const range = document.createRange();
      const node = th.firstChild!;
      for (const m of (th.textContent ?? "").matchAll(/\S+/g)) {
        range.setStart(node, m.index!);
        range.setEnd(node, m.index! + m[0].length);
        if (range.getClientRects().length > 1) return true;
      }
      return false;
    }).map((th) => th.textContent),
  );
  assert.deepEqual(broken, []);

  const small = await open(t, "/servers", phone);
  const nav = small.getByRole("navigation", { name: "Console" });
  const active = nav.getByRole("link", { name: "Servers" });
  await small.waitForFunction(() => {
    const a = document.querySelector<HTMLElement>('nav a[aria-current="page"]')!;
    const box = a.getBoundingClientRect();
    const scroller = a.closest("nav")!.getBoundingClientRect();
    return box.left >= scroller.left - 1 && box.right <= scroller.right + 1;
  });
  assert.equal(await active.getAttribute("aria-current"), "page");
  await small.screenshot({ path: path.join(SHOTS, "servers-phone-tabs.png") });
  // The cue: the side where tabs are hidden says so.
  assert.equal(await nav.getAttribute("data-more"), "start");
  const first = await open(t, "/", phone);
  assert.equal(await first.getByRole("navigation", { name: "Console" }).getAttribute("data-more"), "end");
  const cue = await first.evaluate(() => getComputedStyle(document.querySelector("nav")!).maskImage);
  assert.match(cue, /gradient/);
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
