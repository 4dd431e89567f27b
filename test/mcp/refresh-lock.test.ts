/**
 * One refresh for many processes: twelve `toolshell exec --no-daemon` processes sharing one store
 * (a SQLite file, then a PostgreSQL database) call an OAuth-protected MCP server at the same
 * moment with an access token that has run out (the server answers 401) or is about to (refreshed
 * before the request). The authorization server rotates refresh tokens (each is accepted once, as
 * OAuth 2.1 asks of public clients), so a second refresh with the same token would be refused and
 * leave that process signed out. Every process must answer, with exactly one refresh.
 * (README "Sign-in"; src/mcp/auth/provider.ts, CredentialStore.acquireRefresh.)
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test, type TestContext } from "node:test";
import { fileURLToPath } from "node:url";
import { signIn } from "../../src/mcp/auth/flow.js";
import { SignInBroker } from "../../src/mcp/auth/index.js";
import { openStore } from "../../src/store/open.js";
import { startOAuthServer } from "../fixtures/mcp/oauth-server.js";
import { freshDatabase } from "../fixtures/postgres.js";
import { approve, configFor } from "./oauth-helpers.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const CLI = path.join(root, "dist/cli/main.js");
const CALLERS = 12;

function exec(dir: string, script: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, "exec", "--no-daemon", script], { cwd: dir, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, DISPLAY: "", WAYLAND_DISPLAY: "" } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** A project whose store is `store` (a SQLite file in it when undefined), signed in to the fixture as alice. */
async function signedIn(t: TestContext, store?: string) {
  assert.ok(existsSync(CLI), "run `npm run build` before the tests");
  const f = await startOAuthServer();
  t.after(() => f.close());
  const dir = mkdtempSync(path.join(tmpdir(), "ts-refresh-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const location = store ?? path.join(dir, ".toolshell", "state.db");
  writeFileSync(path.join(dir, "toolshell.config.json"), JSON.stringify({ ...(store ? { store } : {}), mcpServers: { tracker: { url: f.url } } }));
  const opened = await openStore(location);
  t.after(() => opened.close());
  const broker = new SignInBroker();
  t.after(() => broker.close());
  await signIn(configFor("tracker", f.url), "default", { store: opened.credentials, broker }, { onUrl: approve });
  return { f, dir, credentials: opened.credentials };
}

async function everyoneAnswers(dir: string): Promise<void> {
  const runs = await Promise.all(Array.from({ length: CALLERS }, () => exec(dir, "tools tracker whoami | jq -r .user")));
  for (const r of runs) assert.deepEqual({ code: r.code, stdout: r.stdout }, { code: 0, stdout: "alice\n" }, r.stderr);
}

for (const kind of ["SQLite", "PostgreSQL"] as const) {
  test(`${CALLERS} processes on one ${kind} store: a token the server refuses is refreshed once, and every call answers`, { timeout: 10 * 60_000 }, async (t) => {
    const { f, dir } = await signedIn(t, kind === "PostgreSQL" ? await freshDatabase(t) : undefined);
    assert.deepEqual((await exec(dir, "tools tracker whoami | jq -r .user")).stdout, "alice\n");
    assert.equal(f.counts.refreshes, 0);
    f.expireAccessTokens();
    await everyoneAnswers(dir);
    assert.equal(f.counts.refreshes, 1, "one refresh for every process");
    assert.equal(f.counts.authorizations, 1, "nobody was asked to sign in again");
  });

  test(`${CALLERS} processes on one ${kind} store: a token about to run out is refreshed once, before the requests`, { timeout: 10 * 60_000 }, async (t) => {
    const { f, dir, credentials } = await signedIn(t, kind === "PostgreSQL" ? await freshDatabase(t) : undefined);
    const creds = (await credentials.get("tracker", "default"))!;
    // Saved so long ago that less than a minute is left.
    await credentials.put("tracker", "default", { ...creds, savedAt: Date.now() - (creds.tokens!.expires_in! - 30) * 1000 });
    await everyoneAnswers(dir);
    assert.equal(f.counts.refreshes, 1, "one refresh for every process");
    assert.equal(f.counts.authorizations, 1);
  });
}
