/**
 * The console in a real browser: Debian's Chromium driven by playwright-core, against a real
 * `startApi` server on 127.0.0.1 with a SQLite store, local tools and the `everything` MCP server.
 * Screenshots go to test/out/console/ (git-ignored); docs/images/ holds the ones the README shows.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { always, defineTool } from "../../src/index.js";
import { openHost, startApi, type Host, type RunningApi } from "../../src/server/index.js";
import { TokenGuard } from "../../src/server/token-guard.js";
import { apiCaller } from "../fixtures/api-call.js";
import { launchChromium } from "../fixtures/chromium.js";
import { NPM_SERVERS, REPO_ROOT } from "../fixtures/mcp/index.js";

const TOKEN = "console-token-0123456789abcdef";
const SHOTS = path.join(REPO_ROOT, "test/out/console");

let dir: string;
let host: Host;
let api: RunningApi;
let browser: Browser;
let signedIn: BrowserContext;
let dangerRuns = 0;
let openGate: () => void = () => {};
const gate = new Promise<void>((resolve) => (openGate = resolve));

before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  dir = mkdtempSync(path.join(tmpdir(), "toolshell-console-"));
  host = await openHost({
    store: path.join(dir, "state.db"),
    config: {
      server: { tokens: [TOKEN] },
      logDir: path.join(dir, "logs"),
      mcpServers: {
        everything: { command: NPM_SERVERS.everything, args: ["stdio"], load: "on_demand", trust: true },
        broken: { command: process.execPath, args: ["-e", "console.error('boom: this server cannot start'); process.exit(3)"] },
      },
    },
    tools: {
      counter: defineTool({
        description: "Returns n.",
        hints: { readOnly: true },
        inputSchema: { type: "object", properties: { n: { type: "number" } } },
        execute: ({ n }) => ({ n }),
      }),
      gate: defineTool({
        description: "Waits until the test opens the gate.",
        hints: { readOnly: true },
        inputSchema: { type: "object", properties: {} },
        execute: async () => {
          await gate;
          return { opened: true };
        },
      }),
      progress: defineTool({
        description: "Reports progress with a server-like message.",
        hints: { readOnly: true },
        inputSchema: { type: "object", properties: { message: { type: "string" } } },
        execute: ({ message }, ctx) => {
          ctx.reportProgress?.({ progress: 1, total: 2, message: message as string });
          return { ok: true };
        },
      }),
      danger: defineTool({
        description: "Needs a person.",
        inputSchema: { type: "object", properties: { x: {} } },
        approval: always(),
        execute: ({ x }) => {
          dangerRuns++;
          return { x };
        },
      }),
    },
  });
  // Many forms of a wrong token are tried below from one address; the slow-down they would meet
  // is tested apart (test/security/console-person.test.ts), so here it starts late.
  api = await startApi(host, { host: "127.0.0.1", port: 0, triggers: false, guard: new TokenGuard({ free: 1000 }) });
  browser = await launchChromium();
});
after(async () => {
  openGate();
  await browser?.close();
  await api?.close();
  await host?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The HTTP API with the bearer token. */
async function v1(method: string, p: string, body?: unknown): Promise<any> {
  return (await apiCaller(api.url, TOKEN)(method, p, body)).json;
}

async function newSession(id: string): Promise<void> {
  const made = await v1("POST", "/v1/sessions", { id });
  assert.equal(made.id, id, JSON.stringify(made));
}

async function bash(session: string, script: string): Promise<any> {
  return v1("POST", `/v1/sessions/${session}/bash`, { script });
}

async function signIn(page: Page, token = TOKEN): Promise<void> {
  await page.goto(api.url + "/");
  await page.getByLabel("API token").fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
}

function card(page: Page, tool: string) {
  return page.locator("article.approval").filter({ has: page.getByRole("heading", { name: tool }) });
}

test("log in: the login form keeps the token in a secure, http-only, same-site cookie", async (t) => {
  signedIn = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  signedIn.setDefaultTimeout(10_000);
  const page = await signedIn.newPage();
  t.after(() => page.close());
  await signIn(page);
  await page.getByRole("heading", { name: "Approvals", level: 1 }).waitFor();
  assert.equal(new URL(page.url()).pathname, "/");
  const [cookie] = await signedIn.cookies();
  assert.equal(cookie.value, TOKEN);
  assert.equal(cookie.httpOnly, true);
  assert.equal(cookie.secure, true);
  assert.equal(cookie.sameSite, "Strict");
  assert.equal(await page.evaluate(() => document.cookie), "", "page scripts cannot read the token");
});

test("a wrong token gets no data", async (t) => {
  await newSession("secret-session");
  const stop = await bash("secret-session", "tools danger x=41");
  const requestId = stop.tools.stopped.request_id as string;
  t.after(() => v1("POST", "/v1/sessions/secret-session/tool-approvals", { decisions: [{ request_id: requestId, decision: "reject" }] }));

  const ctx = await browser.newContext();
  t.after(() => ctx.close());
  const page = await ctx.newPage();
  await signIn(page, TOKEN + "x");
  await page.getByRole("alert").filter({ hasText: "not one of this server's API tokens with the operator role" }).waitFor();
  assert.equal(new URL(page.url()).pathname, "/login");
  assert.deepEqual(await ctx.cookies(), []);
  assert.doesNotMatch(await page.content(), /secret-session|apr_/);

  // A sign-in whose token the server no longer accepts (rotated, removed): the login page says so and forgets the cookie.
  const stale = await fetch(api.url + "/login", { headers: { cookie: `__Host-toolshell-token=${TOKEN}-rotated`, accept: "text/html" } });
  const stalePage = await stale.text();
  assert.match(stalePage, /Your sign-in is no longer accepted: its token was removed or rotated/);
  assert.match(stale.headers.get("set-cookie") ?? "", /__Host-toolshell-token=;/);
  const fresh = await fetch(api.url + "/login", { headers: { accept: "text/html" } });
  assert.doesNotMatch(await fresh.text(), /no longer accepted/, "control: a first visit says nothing of the kind");
  // A forged cookie with a wrong token, and no cookie at all: nothing but a redirect or a 401.
  for (const cookie of [`__Host-toolshell-token=${TOKEN}x`, ""]) {
    const headers = { cookie, accept: "text/html" };
    for (const p of ["/", "/sessions", "/sessions/secret-session", "/servers", "/scripts", "/triggers", `/?region=1`, "/console/events", "/console/files/secret-session?path=tool-images/a.png"]) {
      const res = await fetch(api.url + p, { headers, redirect: "manual" });
      const text = await res.text();
      assert.ok(res.status === 401 || (res.status === 303 && res.headers.get("location")?.startsWith("/login")), `${p}: ${res.status}`);
      assert.doesNotMatch(text, /secret-session|apr_|danger/, p);
    }
    const answer = await fetch(api.url + "/console/answer", {
      method: "POST",
      headers: { cookie, "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: new URLSearchParams({ session_id: "secret-session", request_id: requestId, decision: "allow" }),
    });
    assert.equal(answer.status, 401);
  }
  // The right cookie on a form another site's page sent: refused.
  const forged = await fetch(api.url + "/console/answer", {
    method: "POST",
    headers: { cookie: `__Host-toolshell-token=${TOKEN}`, origin: "http://evil.example", "sec-fetch-site": "cross-site", "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ session_id: "secret-session", request_id: requestId, decision: "allow" }),
  });
  assert.equal(forged.status, 403);
  // Signed in, a hand-made answer that names no session: a plain message, not a route's.
  const nameless = await fetch(api.url + "/console/answer", {
    method: "POST",
    headers: { cookie: `__Host-toolshell-token=${TOKEN}`, "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    body: new URLSearchParams({ request_id: requestId, decision: "allow" }),
  });
  assert.equal(nameless.status, 400);
  assert.equal(((await nameless.json()) as { message: string }).message, "the answer names no session or request: answer from an approval card");
  assert.equal((await v1("GET", "/v1/sessions/secret-session/tool-approvals")).pending.length, 1, "the request still waits");
  // The login page and the static assets are served without a cookie.
  assert.equal((await fetch(api.url + "/login")).status, 200);
  const css = await (await fetch(api.url + "/console/static/console.css")).text();
  assert.match(css, /prefers-color-scheme: dark/);
});

test("a script stops for approval, the card appears without reload; Allow once; a second page sees the answer live; the re-run succeeds", async (t) => {
  await newSession("ses-allow");
  const page = await signedIn.newPage();
  const second = await signedIn.newPage();
  t.after(() => Promise.all([page.close(), second.close()]));
  for (const p of [page, second]) {
    await p.goto(api.url + "/");
    await p.evaluate(() => ((window as any).notReloaded = true));
    await p.waitForFunction(() => document.documentElement.dataset.live === "connected");
  }
  const script = "tools counter n=1\ntools danger x=7\necho after-danger";
  const stop = await bash("ses-allow", script);
  assert.equal(stop.tools.stopped.reason, "needs_approval");

  const c = card(page, "tools danger");
  await c.waitFor();
  await card(second, "tools danger").waitFor();
  assert.equal(await page.evaluate(() => (window as any).notReloaded), true, "the card came without a reload");
  // The card: tool, top-level, risk and why, input, the script line and the lines around it.
  await c.getByText("top-level tool").waitFor();
  await c.getByText("needs approval").waitFor();
  // Why, from where: the tool's own definition (approval: always()), not the configuration; its description.
  await c.getByText("the tool's definition asks for a person at every call (approval: always())").waitFor();
  await c.getByText("Needs a person.").waitFor();
  // Held before it started (the call is written out): nothing ran, and the agent must send it again.
  await c.getByText("The script has not run. Nothing runs until the agent sends it again", { exact: false }).waitFor();
  assert.equal(await c.locator(".ran-before").count(), 0);
  await c.getByText("Allow always: every call of tools danger in session ses-allow, with any input, runs without asking.").waitFor();
  // No internal id.
  assert.doesNotMatch(await c.innerText(), /call_bash_|:tools:/);
  assert.match(await c.locator(".json").innerText(), /"x": 7/);
  assert.equal(await c.locator("ol.script li.hit").innerText(), "tools danger x=7");
  assert.equal(await c.locator("ol.script li").count(), 3);
  assert.equal(await page.locator("#pending-count").innerText(), "1");
  for (const name of ["Allow once", "Allow always", "Reject", "Reject always"]) assert.equal(await c.getByRole("button", { name, exact: true }).count(), 1, name);

  await c.getByRole("button", { name: "Allow once", exact: true }).click();
  await page.getByRole("status").filter({ hasText: "Allow once: tools danger" }).waitFor();
  await c.waitFor({ state: "detached" });
  // The other page: the card goes and the count drops, without a reload.
  await card(second, "tools danger").waitFor({ state: "detached" });
  await second.locator("#pending-count", { hasText: "0" }).waitFor();
  assert.equal(await second.evaluate(() => (window as any).notReloaded), true);

  const again = await bash("ses-allow", script);
  assert.equal(again.exit_code, 0, JSON.stringify(again));
  assert.equal(again.stdout, '{"n":1}\n{"x":7}\nafter-danger\n');
  assert.equal(dangerRuns, 1);
});

test("Reject: the re-run is denied", async (t) => {
  await newSession("ses-reject");
  const page = await signedIn.newPage();
  t.after(() => page.close());
  await page.goto(api.url + "/");
  await page.waitForFunction(() => document.documentElement.dataset.live === "connected");
  const before = dangerRuns;
  await bash("ses-reject", "tools danger x=8");
  const c = card(page, "tools danger");
  await c.getByRole("button", { name: "Reject", exact: true }).click();
  await c.waitFor({ state: "detached" });
  const again = await bash("ses-reject", "tools danger x=8");
  assert.equal(again.exit_code, 1);
  assert.equal(JSON.parse(again.stderr.trim().split("\n").pop()).error.code, "denied", again.stderr);
  assert.equal(dangerRuns, before, "the rejected call never ran");
});

test("answering a card from the keyboard hands focus to the next card (the one before when it was last), not to the page", async (t) => {
  await newSession("ses-kb1");
  await newSession("ses-kb2");
  const page = await signedIn.newPage();
  t.after(async () => {
    await page.close();
    // The card left pending is answered, so later tests see only their own.
    for (const sid of ["ses-kb1", "ses-kb2"]) {
      const left = (await v1("GET", `/v1/sessions/${sid}/tool-approvals`)).pending ?? [];
      if (left.length) await v1("POST", `/v1/sessions/${sid}/tool-approvals`, { decisions: left.map((r: { id: string }) => ({ request_id: r.id, decision: "reject" })) });
    }
  });
  await page.goto(api.url + "/");
  await page.waitForFunction(() => document.documentElement.dataset.live === "connected");
  await bash("ses-kb1", "tools danger x=11");
  await bash("ses-kb2", "tools danger x=12");
  await page.locator("article.approval", { hasText: '"x": 11' }).waitFor();
  await page.locator("article.approval", { hasText: '"x": 12' }).waitFor();
  const ids = await page.locator("article.approval").evaluateAll((cards) => cards.map((c) => c.id));
  const answered = await page.locator("article.approval", { hasText: '"x": 11' }).getAttribute("id");
  const at = ids.indexOf(answered!);
  const expected = ids[at + 1] ?? ids[at - 1];
  await page.locator(`#${answered} button`, { hasText: "Reject" }).first().focus();
  await page.keyboard.press("Enter");
  await page.locator(`#${answered}`).waitFor({ state: "detached" });
  await page.waitForFunction((id) => document.activeElement?.id === id, expected);
  // One Tab from there reaches a control of that card.
  await page.keyboard.press("Tab");
  assert.equal(await page.evaluate((id) => document.getElementById(id)!.contains(document.activeElement), expected), true);
  // A live refresh (another card arrives) keeps the focused control: the same one of that card.
  const focused = await page.evaluate(() => document.activeElement?.textContent);
  await bash("ses-kb1", "tools danger x=13");
  await page.locator("article.approval", { hasText: '"x": 13' }).waitFor();
  assert.deepEqual(await page.evaluate((id) => [document.getElementById(id)!.contains(document.activeElement), document.activeElement?.textContent], expected), [true, focused]);
});

test("invisible and bidirectional characters in an input are shown and flagged", async (t) => {
  await newSession("ses-hidden");
  const page = await signedIn.newPage();
  t.after(() => page.close());
  await page.goto(api.url + "/");
  await page.waitForFunction(() => document.documentElement.dataset.live === "connected");
  const long = "lorem ipsum dolor sit amet ".repeat(12);
  const script = `tools danger '${JSON.stringify({ x: { to: "alice\u202Egnp.exe", note: "pay\u200Bment", long } })}'`;
  await bash("ses-hidden", script);
  const c = card(page, "tools danger");
  await c.waitFor();
  const warn = c.locator(".warn");
  await warn.getByText("U+202E RIGHT-TO-LEFT OVERRIDE at /x/to").waitFor();
  await warn.getByText("U+200B ZERO WIDTH SPACE at /x/note").waitFor();
  assert.deepEqual(await c.locator(".json mark.hidden-char").allInnerTexts(), ["\\u202e", "\\u200b"]);
  // The script line it came from is shown escaped too, never raw.
  assert.deepEqual(await c.locator("ol.script mark.hidden-char").allInnerTexts(), ["\\u202e", "\\u200b"]);
  assert.doesNotMatch(await c.locator("ol.script").innerText(), /[\u202E\u200B]/);
  // As the script has it (quotes, no added backslashes), only the hidden characters made visible.
  assert.equal(await c.locator("ol.script li.hit code").innerText(), script.replace("\u202E", "\\u202e").replace("\u200B", "\\u200b"));
  assert.doesNotMatch(await c.locator(".json").innerText(), /[\u202E\u200B]/, "no hidden character reaches the page's JSON");
  // The long value is folded; opening it shows the whole value.
  const fold = c.locator("details.fold");
  assert.equal(await fold.count(), 1);
  assert.equal(await fold.locator("code.whole").isVisible(), false);
  await fold.locator("summary").click();
  assert.ok((await fold.locator("code.whole").innerText()).includes(long.trim()));
  await fold.locator("summary").click();
  await page.screenshot({ path: path.join(SHOTS, "inbox.png"), fullPage: true });

  // Dark, and on a phone.
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, colorScheme: "dark", deviceScaleFactor: 2 });
  t.after(() => phone.close());
  await phone.addCookies(await signedIn.cookies());
  const small = await phone.newPage();
  await small.goto(api.url + "/");
  await card(small, "tools danger").waitFor();
  const overflow = await small.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `the page fits a phone (${overflow}px too wide)`);
  assert.notEqual(await small.evaluate(() => getComputedStyle(document.body).backgroundColor), "rgb(246, 247, 249)", "dark colours");
  await small.screenshot({ path: path.join(SHOTS, "inbox-phone-dark.png"), fullPage: true });
  await c.getByRole("button", { name: "Reject always", exact: true }).click();
  await c.waitFor({ state: "detached" });
});

test("the timeline shows a running script's nested calls as they arrive, then all three rows and the saved image", async (t) => {
  await newSession("ses-timeline");
  await bash("ses-timeline", "echo warm-up");
  const page = await signedIn.newPage();
  t.after(() => page.close());
  await page.goto(api.url + "/sessions/ses-timeline");
  await page.waitForFunction(() => document.documentElement.dataset.live === "connected");
  await page.evaluate(() => ((window as any).notReloaded = true));

  const running = bash("ses-timeline", "tools counter n=1\ntools gate\ntools everything get-tiny-image > /dev/null\necho three-calls");
  const call = page.locator("article.shell").filter({ has: page.getByRole("heading", { name: "bash call_bash_2" }) });
  await page.locator('article.shell[data-state="running"]').waitFor();
  await call.locator("tr.nested-row").first().waitFor();
  assert.equal(await call.locator("tr.nested-row").count(), 1, "the first nested call arrived while the script waits");
  assert.match(await call.locator("tr.nested-row").first().innerText(), /tools counter[\s\S]*completed/);
  await call.getByText("running").first().waitFor();

  openGate();
  const result = await running;
  assert.equal(result.exit_code, 0, JSON.stringify(result));
  await call.getByText("exit 0").waitFor();
  const rows = call.locator("tr.nested-row");
  assert.equal(await rows.count(), 3);
  // Each row read cell by cell: on a narrow page the table lays its rows out as cards (data-label),
  // and a row's innerText then has no separators between cells.
  const texts = await Promise.all([0, 1, 2].map(async (i) => (await rows.nth(i).locator("th, td").allTextContents()).map((c) => c.trim()).join(" ")));
  assert.match(texts[0], /tools counter\s+\{"n":1\}\s+completed\s+\d+ ms/);
  assert.match(texts[1], /tools gate[\s\S]*completed/);
  assert.match(texts[2], /tools everything get-tiny-image[\s\S]*completed/);
  await call.getByText("three-calls").first().waitFor();
  const img = call.locator(".images img");
  await img.waitFor();
  await page.waitForFunction(() => {
    const i = document.querySelector<HTMLImageElement>(".images img");
    return !!i && i.complete && i.naturalWidth > 0;
  });
  assert.equal(await page.evaluate(() => (window as any).notReloaded), true, "everything arrived without a reload");
  await page.screenshot({ path: path.join(SHOTS, "timeline.png"), fullPage: true });

  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, colorScheme: "dark" });
  t.after(() => phone.close());
  await phone.addCookies(await signedIn.cookies());
  const small = await phone.newPage();
  await small.goto(api.url + "/sessions/ses-timeline");
  await small.locator("tr.nested-row").nth(2).waitFor();
  const overflow = await small.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `the timeline fits a phone (${overflow}px too wide)`);
  await small.screenshot({ path: path.join(SHOTS, "timeline-phone-dark.png"), fullPage: true });
});

test("a stopped shell call shows its stop report in the timeline, and the sessions list counts what waits", async (t) => {
  await newSession("ses-stop");
  await bash("ses-stop", "tools counter n=5\ntools danger x=9");
  const page = await signedIn.newPage();
  t.after(() => page.close());
  await page.goto(api.url + "/sessions/ses-stop");
  const report = page.getByRole("region", { name: "Stop report" });
  await report.getByText("needs_approval at line 2 before the script started").waitFor();
  await page.goto(api.url + "/sessions");
  await page.getByRole("row", { name: /ses-stop/ }).getByText("1 approval(s)").waitFor();
  const pending = (await v1("GET", "/v1/sessions/ses-stop/tool-approvals")).pending;
  await v1("POST", "/v1/sessions/ses-stop/tool-approvals", { decisions: [{ request_id: pending[0].id, decision: "reject" }] });
});

test("saved scripts show their versions and a diff; triggers can be disabled and run now; servers show state, log tail and tools", async (t) => {
  const page = await signedIn.newPage();
  t.after(() => page.close());
  await v1("POST", "/v1/agents/default/scripts", { name: "greet", description: "Says hello.", body: 'echo "hello"\necho done\n' });
  await v1("PUT", "/v1/agents/default/scripts/greet", { description: "Says hello twice.", body: 'echo "hello"\necho "hello again"\necho done\n' });
  await page.goto(api.url + "/scripts");
  await page.getByRole("link", { name: "greet" }).click();
  await page.getByRole("heading", { name: "Versions" }).waitFor();
  assert.equal(await page.locator(".diff ins").count(), 1);
  assert.match(await page.locator(".diff ins").innerText(), /hello again/);
  await page.getByLabel("From version").selectOption("2");
  await page.getByRole("button", { name: "Show diff" }).click();
  await page.getByText("Changes from v2 to v2: the bodies are the same").waitFor();

  const made = await v1("POST", "/v1/agents/default/triggers", { name: "nightly-greet", schedule: "0 3 * * *", script: "greet" });
  assert.equal(made.name, "nightly-greet", JSON.stringify(made));
  await page.goto(api.url + "/triggers");
  await page.waitForFunction(() => document.documentElement.dataset.live === "connected");
  const trig = page.locator("article.trigger", { has: page.getByRole("heading", { name: "nightly-greet" }) });
  await trig.getByText("0 3 * * *").waitFor();
  await trig.getByRole("button", { name: "Disable" }).click();
  await trig.getByText("disabled", { exact: true }).waitFor();
  assert.equal((await v1("GET", `/v1/agents/default/triggers/${made.id}`)).enabled, false);
  await trig.getByRole("button", { name: "Enable" }).click();
  await trig.getByText("enabled", { exact: true }).waitFor();
  await trig.getByRole("button", { name: "Run now" }).click();
  await trig.locator(".runs li", { hasText: "ok" }).waitFor();
  assert.match(await trig.locator(".runs li").first().innerText(), /ok .*\(manual\)/);
  // Each run's link says whose run it opens, not only "timeline".
  await trig.getByRole("link", { name: /^Timeline of nightly-greet's run of / }).first().waitFor();

  await page.goto(api.url + "/servers");
  const broken = page.getByRole("region", { name: "broken" });
  await broken.getByText("failed", { exact: true }).waitFor();
  await broken.getByText("boom: this server cannot start").first().waitFor();
  const local = page.getByRole("region", { name: "local tools" });
  await local.getByRole("row", { name: /tools danger/ }).getByText("needs approval").waitFor();
  await local.getByRole("row", { name: /tools counter/ }).getByText("read only").waitFor();
  await local.getByText("counter({ n?: number })").waitFor();
  const everything = page.getByRole("region", { name: "everything" });
  await everything.getByText("loaded", { exact: true }).waitFor();
  await everything.getByRole("row", { name: /tools everything get-tiny-image/ }).waitFor();
});

test("a progress message in the timeline shows its hidden characters escaped and flagged, never raw", async (t) => {
  await newSession("ses-progress");
  const r = await bash("ses-progress", `tools progress message='step \u202egnp.exe done'`);
  assert.equal(r.exit_code, 0, JSON.stringify(r));
  const page = await signedIn.newPage();
  t.after(() => page.close());
  await page.goto(api.url + "/sessions/ses-progress");
  const row = page.locator("li.t-tool-progress");
  await row.waitFor();
  assert.match(await row.innerText(), /Progress of tools progress: 1 of 2 — step \\u202egnp\.exe done/);
  assert.deepEqual(await row.locator("mark.hidden-char").allInnerTexts(), ["\\u202e"]);
  assert.doesNotMatch(await row.innerText(), /\u202E/, "the override never reaches the page raw");
});
