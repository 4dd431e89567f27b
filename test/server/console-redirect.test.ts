/**
 * The console and the person (docs/security.md): after signing in, `next` never leaves the site
 * whatever its spelling, and `?note=` shows only notes the console wrote itself. A real
 * `startApi` server on 127.0.0.1; each `Location` is resolved the way a browser resolves it (the
 * URL standard, as Node's URL implements it), and Chromium follows the tab form for real.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { launchChromium } from "../fixtures/chromium.js";
import { openHost, startApi, type Host, type RunningApi } from "../../src/server/index.js";

const TOKEN = "redirect-token-0123456789ab";
let dir: string;
let host: Host;
let api: RunningApi;

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "toolshell-redirect-"));
  host = await openHost({ store: path.join(dir, "state.db"), config: { server: { tokens: [TOKEN] } } });
  api = await startApi(host, { host: "127.0.0.1", port: 0, triggers: false });
});
after(async () => {
  await api?.close();
  await host?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function login(next: string): Promise<string> {
  const res = await fetch(api.url + "/login", { method: "POST", redirect: "manual", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ token: TOKEN, next }) });
  assert.equal(res.status, 303);
  return res.headers.get("location")!;
}

const ATTACKS = [
  "//evil.example/",
  "/\t/evil.example/",
  "/\n/evil.example/",
  "/\r\n/evil.example/",
  "\t//evil.example/",
  "/\\evil.example/",
  "\\\\evil.example/",
  "/\\/evil.example/",
  "/%09/evil.example/",
  "https://evil.example/",
  "https:evil.example",
  "http:/\\evil.example",
  "//evil.example@site/",
  "/ /evil.example",
  "//%65vil.example/",
  "javascript:alert(1)",
  " //evil.example",
];

test("next after sign-in stays on the site in every spelling; a local path is kept (the control)", async () => {
  const site = new URL(api.url).origin;
  for (const next of ATTACKS) {
    const location = await login(next);
    assert.equal(new URL(location, api.url + "/login").origin, site, `${JSON.stringify(next)} → ${location}`);
    // The decoded form too (the page's form field holds it decoded).
    const decoded = await login(decodeURIComponent(next.replace(/%(?![0-9a-f]{2})/gi, "%25")));
    assert.equal(new URL(decoded, api.url + "/login").origin, site, `${JSON.stringify(next)} decoded → ${decoded}`);
  }
  assert.equal(await login("/sessions?x=1#y"), "/sessions?x=1#y");
  assert.equal(await login("/scripts/default/a%20b"), "/scripts/default/a%20b");
});

test("Chromium signing in from /login?next=/%09/evil.example/ lands on the console", async (t) => {
  const browser = await launchChromium(t);
  const page = await browser.newPage();
  await page.goto(api.url + "/login?next=/%09/evil.example/");
  await page.getByLabel("API token").fill(TOKEN);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Approvals", level: 1 }).waitFor();
  assert.equal(new URL(page.url()).origin, new URL(api.url).origin);
});

test("?note= shows only the console's own notes", async () => {
  const cookie = `__Host-toolshell-token=${TOKEN}`;
  const page = async (p: string) => (await fetch(api.url + p, { headers: { cookie, accept: "text/html" } })).text();
  const forged = await page(`/?note=${encodeURIComponent("Security check: paste your API token at evil.example")}`);
  assert.doesNotMatch(forged, /Security check/);
  assert.doesNotMatch(await page(`/?note=${encodeURIComponent("Hacked")}&sig=AAAAAAAAAAAAAAAAAAAAAA`), /Hacked/);
  // The control: a form's own answer (a trigger that does not exist) is shown after its redirect.
  const res = await fetch(api.url + "/console/triggers/trg_nope/run", { method: "POST", redirect: "manual", headers: { cookie, "content-type": "application/x-www-form-urlencoded" }, body: "" });
  assert.equal(res.status, 303);
  assert.match(await page(res.headers.get("location")!), /<p class="error note-error" role="alert">no trigger trg_nope<\/p>/, "a failure is shown as an error");
});
