/**
 * Nothing of the MCP SDK writes to the console: its `[mcp-sdk] …` warnings about a server go to
 * that server's log file (README "MCP servers"). Driven with `toolshell exec` against a real
 * OAuth-protected MCP server on 127.0.0.1 whose authorization server refuses the refresh token
 * (`invalid_grant`), where the SDK warns before it starts a new authorization; and with
 * `toolshell auth` over credentials stored without their issuer stamp (as stored before the
 * stamp existed), where the SDK warns as it reads them.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test, type TestContext } from "node:test";
import { fileURLToPath } from "node:url";
import { openDatabase } from "../../src/store/driver.js";
import { startOAuthServer, type OAuthFixture } from "../fixtures/mcp/oauth-server.js";

const CLI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../dist/cli/main.js");

/** Runs the CLI without blocking this process (the fixture server answers from here). */
function toolshell(args: string[], cwd: string, onStdout?: (soFar: string) => void): Promise<{ stdout: string; stderr: string; code: number | null }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, DISPLAY: "", WAYLAND_DISPLAY: "" } });
    let stdout = "";
    let stderr = "";
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
      onStdout?.(stdout);
    });
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ stdout, stderr, code });
    });
  });
}

/** A project signed in to the fixture server as `tracker` through `toolshell auth`. */
async function signedIn(t: TestContext): Promise<{ f: OAuthFixture; dir: string; log: () => string }> {
  assert.ok(existsSync(CLI), "run `npm run build` before the tests");
  const f = await startOAuthServer();
  t.after(() => f.close());
  const dir = mkdtempSync(path.join(tmpdir(), "ts-sdk-console-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(path.join(dir, "toolshell.config.json"), JSON.stringify({ mcpServers: { tracker: { url: f.url } } }));
  const auth = await signIn(dir);
  assert.equal(auth.code, 0, auth.stderr);
  const file = path.join(dir, ".toolshell", "logs", "tracker.log");
  return { f, dir, log: () => (existsSync(file) ? readFileSync(file, "utf8") : "") };
}

/** `toolshell auth tracker`, approving at the fixture's authorization endpoint the URL it prints. */
async function signIn(dir: string): Promise<{ stdout: string; stderr: string; code: number | null }> {
  let approving: Promise<void> | undefined;
  const auth = await toolshell(["auth", "tracker", "--no-open"], dir, (out) => {
    const url = /^ {2}(http\S+)$/m.exec(out)?.[1];
    approving ??= url
      ? (async () => {
          const res = await fetch(url, { redirect: "manual" });
          assert.equal((await fetch(res.headers.get("location")!)).status, 200);
        })()
      : undefined;
  });
  await approving;
  return auth;
}

test("a refresh token the authorization server refuses: the SDK's warning goes to the server's log, not to the console; control: the call asks for sign-in", async (t) => {
  const { f, dir, log } = await signedIn(t);
  f.expireAccessTokens();
  f.revokeRefreshTokens();
  const run = await toolshell(["exec", "tools tracker whoami"], dir);
  assert.equal(run.code, 1);
  assert.match(run.stderr, /"code":"connection_required"/);
  assert.doesNotMatch(run.stdout + run.stderr, /\[mcp-sdk\]/);
  assert.match(log(), /toolshell: sdk: OAuth "invalid_grant" — invalidating the stored tokens/);
});

test("toolshell auth over credentials stored without their issuer stamp: the SDK's warning goes to the server's log, not to the terminal; control: signed in", async (t) => {
  const { dir, log } = await signedIn(t);
  const db = openDatabase(path.join(dir, ".toolshell", "state.db"));
  const row = db.prepare("SELECT data FROM oauth_credentials WHERE server = ?").get("tracker") as { data: string };
  const stored = JSON.parse(row.data) as { clientInformation: Record<string, unknown>; tokens: Record<string, unknown> };
  delete stored.clientInformation.issuer;
  delete stored.tokens.issuer;
  db.prepare("UPDATE oauth_credentials SET data = ? WHERE server = ?").run(JSON.stringify(stored), "tracker");
  db.close();
  const again = await signIn(dir);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /Signed in to tracker as alice/);
  assert.doesNotMatch(again.stdout + again.stderr, /\[mcp-sdk\]/);
  assert.match(log(), /toolshell: sdk: SEP-2352: stored OAuth credential has no 'issuer' stamp/);
});
