/**
 * The console where a team is: real `toolshell serve` processes (node dist/cli/main.js, after
 * `npm run build`) bound to 0.0.0.0 and Debian's Chromium opening the address `serve` prints.
 * Plain HTTP off loopback: the banner warns, the login page says why signing in cannot work
 * (and it does not); HTTPS with a certificate made here by `openssl`: signing in works; the
 * compose example of docs/deployment.md: `serve` with the replicas' command line as written,
 * behind a TLS proxy that sets the headers its nginx.conf sets.
 */
import assert from "node:assert/strict";
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test, type TestContext } from "node:test";
import type { Browser, Page } from "playwright-core";
import { launchChromium } from "../fixtures/chromium.js";
import { REPO_ROOT } from "../fixtures/mcp/index.js";
import { stopChild } from "../fixtures/child.js";

const CLI = path.join(REPO_ROOT, "dist/cli/main.js");
const TOKEN = "tls-console-token-0123456789";

let browser: Browser;
let dir: string;

before(async () => {
  assert.ok(existsSync(CLI), "run `npm run build` first");
  dir = mkdtempSync(path.join(tmpdir(), "toolshell-tls-"));
  writeFileSync(path.join(dir, "toolshell.config.json"), JSON.stringify({ store: "${TOOLSHELL_STORE}" }));
  // A certificate for this machine's names and addresses, made here.
  execFileSync("openssl", [
    "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
    "-keyout", path.join(dir, "key.pem"), "-out", path.join(dir, "cert.pem"), "-subj", "/CN=toolshell-test",
    "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
  ], { stdio: "ignore" });
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** `toolshell serve ARGS` in the test folder; resolves once it printed its console line. */
async function serve(t: TestContext, args: string[]): Promise<{ stderr: () => string; console: string; child: ChildProcess }> {
  const { TOOLSHELL_API_TOKENS: _a, ...base } = process.env;
  const child = spawn(process.execPath, [CLI, "serve", "--no-triggers", ...args], {
    cwd: dir,
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...base, TOOLSHELL_API_TOKEN: TOKEN, TOOLSHELL_STORE: path.join(dir, `state-${Math.random().toString(36).slice(2)}.db`) },
  });
  t.after(() => stopChild(child));
  let err = "";
  const consoleUrl = await new Promise<string>((resolve, reject) => {
    child.stderr!.on("data", (d: Buffer) => {
      err += d;
      const m = /console at (\S+) /.exec(err);
      if (m && err.includes("\n", err.indexOf(m[0]))) setTimeout(() => resolve(m[1]), 50);
    });
    child.once("exit", (code) => reject(new Error(`serve exited (${code}):\n${err}`)));
  });
  return { stderr: () => err, console: consoleUrl, child };
}

async function signIn(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.getByLabel("API token").fill(TOKEN);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForLoadState();
}

test("plain HTTP off loopback: serve warns and prints an address people can open; the login page says why signing in cannot work", async (t) => {
  const s = await serve(t, ["--host", "0.0.0.0", "--port", "0"]);
  const printed = new URL(s.console);
  assert.notEqual(printed.hostname, "0.0.0.0", s.stderr());
  assert.match(s.stderr(), /warning: listening off loopback over plain HTTP: browsers keep the console's sign-in cookie only over HTTPS or on localhost/);
  assert.match(s.stderr(), /--tls-cert\/--tls-key/);
  assert.notEqual(printed.hostname, "127.0.0.1", "this machine has a network address to print");

  const ctx = await browser.newContext();
  t.after(() => ctx.close());
  const page = await ctx.newPage();
  await signIn(page, s.console);
  // The right token, and still not signed in: the page says why.
  const why = page.locator("#insecure-origin");
  await why.getByRole("heading", { name: "Signing in cannot work on this address" }).waitFor();
  assert.match(await why.innerText(), /plain HTTP at .*Secure.*--tls-cert/s);
  assert.equal(new URL(page.url()).pathname, "/login");
  assert.equal((await ctx.cookies()).length, 0);

  // The control: the same server through loopback signs in, and shows no warning.
  const local = await ctx.newPage();
  await signIn(local, `http://127.0.0.1:${printed.port}/`);
  await local.getByRole("heading", { name: "Approvals", level: 1 }).waitFor();
  await local.goto(`http://127.0.0.1:${printed.port}/login`);
  assert.equal(await local.locator("#insecure-origin").isVisible(), false);
});

test("serve --tls-cert/--tls-key: HTTPS, no warning, and signing in works off loopback", async (t) => {
  const s = await serve(t, ["--host", "0.0.0.0", "--port", "0", "--tls-cert", "cert.pem", "--tls-key", "key.pem"]);
  assert.match(s.console, /^https:\/\//);
  assert.doesNotMatch(s.stderr(), /warning/);
  assert.notEqual(new URL(s.console).hostname, "0.0.0.0");
  const ctx = await browser.newContext({ ignoreHTTPSErrors: true });
  t.after(() => ctx.close());
  const page = await ctx.newPage();
  await page.goto(s.console + "login");
  assert.equal(await page.locator("#insecure-origin").isVisible(), false);
  await signIn(page, s.console);
  await page.getByRole("heading", { name: "Approvals", level: 1 }).waitFor();
  const [cookie] = await ctx.cookies();
  assert.equal(cookie.secure, true);

  // A key that cannot be read stops the start, naming the file.
  const bad = spawn(process.execPath, [CLI, "serve", "--no-triggers", "--port", "0", "--tls-cert", "cert.pem", "--tls-key", "missing.pem"], { cwd: dir, env: { ...process.env, TOOLSHELL_API_TOKEN: TOKEN, TOOLSHELL_STORE: ":memory:" }, stdio: ["ignore", "ignore", "pipe"] });
  let err = "";
  bad.stderr!.on("data", (d: Buffer) => (err += d));
  const code = await new Promise((resolve) => bad.once("exit", resolve));
  assert.equal(code, 2);
  assert.match(err, /server\.tls\.key: cannot read .*missing\.pem: ENOENT/);
});

/** The nginx.conf of docs/deployment.md: its `proxy_set_header` lines. */
function proxyHeadersOfDoc(): Array<[string, string]> {
  const doc = readFileSync(path.join(REPO_ROOT, "docs/deployment.md"), "utf8");
  const conf = /```nginx\n([\s\S]*?)```/.exec(doc);
  assert.ok(conf, "docs/deployment.md shows an nginx.conf");
  assert.match(conf[1], /listen 443 ssl;/);
  return [...conf[1].matchAll(/proxy_set_header\s+(\S+)\s+(\S+);/g)].map((m) => [m[1], m[2]]);
}

/** The replicas' command line of the compose example, as written. */
function composeCommand(): string[] {
  const doc = readFileSync(path.join(REPO_ROOT, "docs/deployment.md"), "utf8");
  const m = /command: (\[.*"serve".*\])/.exec(doc);
  assert.ok(m, "the compose example has a serve command");
  const argv = JSON.parse(m[1]) as string[];
  assert.deepEqual(argv.slice(0, 3), ["npx", "toolshell", "serve"]);
  return argv.slice(3);
}

test("the compose example as written: serve behind a TLS proxy with nginx.conf's headers signs in; without --trust-proxy it says what to set", async (t) => {
  const headers = proxyHeadersOfDoc();
  const args = composeCommand();
  assert.ok(args.includes("--trust-proxy"), args.join(" "));
  // The same command line, on a free port (the container's 8787 may be taken here).
  const port = args.indexOf("--port");
  const s = await serve(t, args.map((a, i) => (i === port + 1 ? "0" : a)));
  assert.doesNotMatch(s.stderr(), /warning/, "a believed TLS proxy: no warning");
  const upstream = new URL(s.console).port;

  // The TLS proxy: what nginx does with those lines, variable by variable.
  const value = (v: string, req: IncomingMessage): string => {
    const peer = req.socket.remoteAddress ?? "";
    const vars: Record<string, string> = {
      $http_host: req.headers.host ?? "",
      $host: (req.headers.host ?? "").replace(/:\d+$/, ""),
      $scheme: "https",
      $remote_addr: peer,
      $proxy_add_x_forwarded_for: req.headers["x-forwarded-for"] ? `${req.headers["x-forwarded-for"]}, ${peer}` : peer,
    };
    assert.ok(v in vars, `the test proxy knows nginx's ${v}`);
    return vars[v];
  };
  const proxy = createHttpsServer({ cert: readFileSync(path.join(dir, "cert.pem")), key: readFileSync(path.join(dir, "key.pem")) }, (req: IncomingMessage, res: ServerResponse) => {
    const h: Record<string, string | string[] | undefined> = { ...req.headers };
    for (const [name, v] of headers) h[name.toLowerCase()] = value(v, req);
    const up = httpRequest({ host: "127.0.0.1", port: Number(upstream), method: req.method, path: req.url, headers: h }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on("error", () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise<void>((resolve) => { proxy.closeAllConnections(); proxy.close(() => resolve()); }));
  const front = `https://127.0.0.1:${(proxy.address() as AddressInfo).port}/`;

  const ctx = await browser.newContext({ ignoreHTTPSErrors: true });
  t.after(() => ctx.close());
  const page = await ctx.newPage();
  await page.goto(front + "login");
  assert.equal(await page.locator("#insecure-origin").isVisible(), false);
  await signIn(page, front);
  await page.getByRole("heading", { name: "Approvals", level: 1 }).waitFor();

  // The proxy path decides: a forwarded https from a proxy serve is not told to believe gets the
  // explanation (the login page without the browser's own check), and a believed one does not.
  const plainArgs = args.filter((a) => a !== "--trust-proxy").map((a, i, all) => (all[i - 1] === "--port" ? "0" : a));
  const plain = await serve(t, plainArgs);
  assert.match(plain.stderr(), /warning: listening off loopback over plain HTTP/);
  // (fetch cannot set Host: a plain request, as a proxy sends it.)
  const asked = (p: string) =>
    new Promise<string>((resolve, reject) => {
      const r = httpRequest({ host: "127.0.0.1", port: Number(p), path: "/login", headers: { host: "team.example", "x-forwarded-proto": "https", "x-forwarded-for": "198.51.100.7" } }, (res) => {
        let text = "";
        res.on("data", (d: Buffer) => (text += d));
        res.on("end", () => resolve(text));
      });
      r.on("error", reject);
      r.end();
    });
  const unbelieved = await asked(new URL(plain.console).port);
  assert.match(unbelieved, /id="insecure-origin"(?![^>]*hidden)/);
  assert.match(unbelieved, /set server\.trustProxy \(or serve --trust-proxy\)/);
  const believed = await asked(upstream);
  assert.match(believed, /id="insecure-origin"[^>]*hidden/);
});
