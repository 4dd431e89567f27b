/**
 * Managing MCP servers from the console in a real browser (Debian's Chromium via playwright-core)
 * against a real `startApi` server on 127.0.0.1: add, change and remove a real stdio server, bad
 * entries refused with the config file's messages, and the sign-in and cross-site rules.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { openHost, startApi } from "../../src/server/index.js";
import { launchChromium } from "../fixtures/chromium.js";
import { NPM_SERVERS, REPO_ROOT } from "../fixtures/mcp/index.js";

const TOKEN = "console-servers-token-0123456789";
const SHOTS = path.join(REPO_ROOT, "test/out/console");

test("the servers page adds, changes and removes an MCP server through /v1/servers; a trust false added there is judged by the policy", async (t) => {
  mkdirSync(SHOTS, { recursive: true });
  const dir = mkdtempSync(path.join(tmpdir(), "toolshell-console-servers-"));
  // Protective: a call asks unless it is read-only, and a read-only claim counts only when trusted.
  const host = await openHost({ store: path.join(dir, "state.db"), config: { server: { tokens: [TOKEN] }, logDir: path.join(dir, "logs"), mcpServers: {}, approval: { mode: "protective" } } });
  const api = await startApi(host, { host: "127.0.0.1", port: 0, triggers: false });
  const browser = await launchChromium();
  t.after(async () => {
    await browser.close();
    await api.close();
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  context.setDefaultTimeout(15_000);
  const page = await context.newPage();
  await page.goto(api.url + "/servers");
  await page.getByLabel("API token").fill(TOKEN);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Add an MCP server" }).waitFor();

  const entry = (trust: boolean) => JSON.stringify({ command: NPM_SERVERS.memory, env: { MEMORY_FILE_PATH: path.join(dir, "m.jsonl") }, trust });
  const add = async (name: string, text: string) => {
    const form = page.getByRole("region", { name: "Add an MCP server" });
    await form.getByLabel("Name").fill(name);
    await form.getByLabel("Entry (JSON)").fill(text);
    await form.getByRole("button", { name: "Add server" }).click();
    // Added: the page comes again with its note. Refused: the error under the form, fields kept.
    const answer = page.locator("p.note").or(form.getByRole("alert"));
    await answer.waitFor();
    return (await answer.innerText()).trim();
  };
  // Bad entries: the config file's message, and nothing added.
  assert.match(await add("memory", "{nope"), /the entry of memory is not JSON/);
  assert.match(await add("memory", '{"command": 42}'), /mcpServers\.memory\.command/);
  assert.match(await add("help", entry(false)), /server name "help" is reserved/);
  assert.deepEqual(host.shell.config.servers, []);

  assert.equal(await add("memory", entry(false)), "Added server memory");
  const card = page.getByRole("region", { name: "memory" });
  await card.getByText("loaded", { exact: true }).waitFor();
  await card.getByRole("row", { name: /tools memory read-graph/ }).waitFor();
  await page.screenshot({ path: path.join(SHOTS, "servers-manage.png"), fullPage: true });
  const session = host.session("console-servers");
  const asks = async () => (await session.bash("tools memory read_graph")).tools?.stopped?.reason === "needs_approval";
  assert.equal(await asks(), true, "trust false, added from the console: the readOnly claim is not taken");

  await card.getByText("Entry, change or remove memory").click();
  // The entry it runs with: its command, and env by name only (values are secrets).
  const current = await card.locator(".server-actions pre").innerText();
  assert.match(current, /"command":/);
  assert.match(current, /"MEMORY_FILE_PATH": "\(set, not shown\)"/);
  assert.doesNotMatch(current, /m\.jsonl/);
  await card.getByLabel(/New entry for memory/).fill(entry(true));
  await card.getByRole("button", { name: "Save entry" }).click();
  await page.locator("p.note", { hasText: "Changed server memory" }).waitFor();
  assert.equal(await asks(), false, "trust true now: the claim is taken");

  const again = page.getByRole("region", { name: "memory" });
  await again.getByText("Entry, change or remove memory").click();
  // Remove waits for its box: the browser holds the form, and the server refuses a post without it.
  await again.getByRole("button", { name: "Remove memory" }).click();
  assert.equal(await again.getByRole("checkbox").evaluate((el) => (el as HTMLInputElement).validity.valueMissing), true);
  const unticked = await page.evaluate(async (url) => {
    const r = await fetch(url, { method: "POST", body: new URLSearchParams({}), headers: { Accept: "application/json" }, credentials: "same-origin" });
    return { status: r.status, body: await r.json() };
  }, api.url + "/console/servers/memory/remove");
  assert.equal(unticked.status, 400);
  assert.match(unticked.body.message ?? unticked.body.error ?? "", /Tick the box to remove memory: nothing was removed/);
  assert.equal(host.shell.config.servers.length, 1);
  await again.getByRole("checkbox", { name: /Remove memory from every replica/ }).check();
  await again.getByRole("button", { name: "Remove memory" }).click();
  await page.locator("p.note", { hasText: "Removed server memory" }).waitFor();
  assert.equal(await page.getByRole("region", { name: "memory" }).count(), 0);
  assert.deepEqual(host.shell.config.servers, []);

  // The console's rules hold for these forms: no cookie, no change; a cross-site post is refused.
  const form = new URLSearchParams({ name: "x", entry: entry(true) });
  assert.equal((await fetch(api.url + "/console/servers", { method: "POST", body: form })).status, 401);
  const cookie = `__Host-toolshell-token=${TOKEN}`;
  const cross = await fetch(api.url + "/console/servers", { method: "POST", body: form, headers: { cookie, "sec-fetch-site": "cross-site" } });
  assert.equal(cross.status, 403);
  assert.deepEqual(host.shell.config.servers, []);

  // Added, but its process cannot start: the note says so, beside "Added".
  await page.goto(api.url + "/servers");
  const failing = JSON.stringify({ command: process.execPath, args: [path.join(dir, "no-such-server.js")] });
  assert.match(await add("notes", failing), /^Added server notes, but it failed to start: .*could not start/);
});
