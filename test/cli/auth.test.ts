/**
 * `toolshell auth` end to end against a real OAuth-protected MCP server on 127.0.0.1: sign in
 * (URL printed, redirect received), list, call from a script, tokens kept out of outputs, logs
 * and events, the store file private, sign out → `connection_required` with a sign-in URL.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { startOAuthServer } from "../fixtures/mcp/oauth-server.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const CLI = path.join(root, "dist/cli/main.js");

interface Run {
  stdout: string;
  stderr: string;
  code: number | null;
}

/** Runs the CLI without blocking this process (the fixture server answers from here); `onStdout` sees output as it comes. */
function toolshell(args: string[], cwd: string, onStdout?: (soFar: string) => void, env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, DISPLAY: "", WAYLAND_DISPLAY: "", ...env } });
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

/** What a browser does with the authorization URL: approve (the fixture approves at once) and follow the redirect to the loopback listener. */
async function approve(url: string): Promise<void> {
  const res = await fetch(url, { redirect: "manual" });
  const done = await fetch(res.headers.get("location")!);
  assert.equal(done.status, 200);
}

test("toolshell auth: sign in, list, call, tokens never shown, sign out", async (t) => {
  assert.ok(existsSync(CLI), "run `npm run build` before the tests");
  const f = await startOAuthServer();
  t.after(() => f.close());
  const dir = mkdtempSync(path.join(tmpdir(), "ts-auth-"));
  writeFileSync(path.join(dir, "toolshell.config.json"), JSON.stringify({ mcpServers: { tracker: { url: f.url }, files: { command: "true", load: "on_demand" } } }));

  let approving: Promise<void> | undefined;
  const signedIn = await toolshell(["auth", "tracker", "--no-open"], dir, (out) => {
    const url = /^ {2}(http\S+)$/m.exec(out)?.[1];
    if (url && !approving) approving = approve(url);
  });
  await approving;
  assert.equal(signedIn.code, 0, signedIn.stderr);
  assert.match(signedIn.stdout, /^Sign in to tracker by opening:\n\n {2}http:\/\/127\.0\.0\.1:\d+\/authorize\?/);
  assert.match(signedIn.stdout, /^Signed in to tracker as alice; scopes: mcp:read; the access token expires at \S+ and is refreshed without asking\.$/m);

  const list = await toolshell(["auth", "--list"], dir);
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, /^SERVER +PRINCIPAL +STATE +WHO +EXPIRES AT +SCOPES\ntracker +default +signed_in +alice +\d{4}-\S+ +mcp:read\n$/);

  // A script calls the server as the signed-in user; a server that echoes the token gets it redacted.
  // Its JWT's signature alone too (a part of a secret learned while running); control: the header shows.
  const run = await toolshell(["exec", "tools tracker whoami | jq -r .user; tools tracker leak-token; tools tracker leak-token --part signature; tools tracker leak-token --part header"], dir);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /^alice\nyour token is \[REDACTED\]\nyour token is \[REDACTED\]\nyour token is eyJ[\w-]+\n$/);

  const db = new Database(path.join(dir, ".toolshell", "state.db"), { readonly: true });
  const creds = JSON.parse((db.prepare("SELECT data FROM oauth_credentials WHERE server = 'tracker' AND principal = 'default'").get() as { data: string }).data) as {
    tokens: { access_token: string; refresh_token: string };
  };
  const events = (db.prepare("SELECT data FROM events").all() as Array<{ data: string }>).map((r) => r.data).join("\n");
  db.close();
  assert.equal(statSync(path.join(dir, ".toolshell", "state.db")).mode & 0o777, 0o600, "the store file is private");
  const token = creds.tokens.access_token;
  assert.ok(events.includes("leak"), "the events were recorded");
  assert.equal(events.includes(token) || events.includes(token.split(".")[2]!), false, "no token or signature in events");
  const config = readFileSync(path.join(dir, "toolshell.config.json"), "utf8");
  const logs = readdirSync(path.join(dir, ".toolshell", "logs")).map((file) => readFileSync(path.join(dir, ".toolshell", "logs", file), "utf8")).join("\n");
  for (const [what, text] of [["config", config], ["logs", logs], ["stdout", signedIn.stdout + list.stdout + run.stdout + run.stderr]] as const) {
    assert.equal(text.includes(token) || text.includes(creds.tokens.refresh_token), false, `no token in the ${what}`);
  }

  const out = await toolshell(["auth", "tracker", "--logout"], dir);
  assert.equal(out.code, 0, out.stderr);
  assert.equal(out.stdout, "Signed out of tracker (principal \"default\"): its tokens are forgotten.\n");
  const after = await toolshell(["exec", "tools tracker whoami"], dir);
  assert.equal(after.code, 1);
  const line = JSON.parse(after.stderr.trim().split("\n").find((l) => l.startsWith('{"error"'))!) as { error: { code: string; message: string; retryable: boolean } };
  assert.equal(line.error.code, "connection_required");
  assert.equal(line.error.retryable, true);
  assert.match(line.error.message, /needs sign-in: open http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+ to sign in .*toolshell auth tracker/);
  const listed = await toolshell(["auth", "--list", "--json"], dir);
  assert.deepEqual(JSON.parse(listed.stdout), [{ server: "tracker", principal: "default", state: "signed_out" }]);
});

test("toolshell auth names what is wrong: an unknown server, a stdio server", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "ts-auth-"));
  writeFileSync(path.join(dir, "toolshell.config.json"), JSON.stringify({ mcpServers: { files: { command: "true", load: "on_demand" } } }));
  const unknown = await toolshell(["auth", "nope"], dir);
  assert.equal(unknown.code, 2);
  assert.equal(unknown.stderr, 'toolshell auth: no MCP server "nope" in the config (servers: files)\n');
  const stdio = await toolshell(["auth", "files"], dir);
  assert.equal(stdio.code, 1);
  assert.equal(stdio.stderr, 'toolshell auth: MCP server "files" runs over stdio: it has no sign-in\n');
  const list = await toolshell(["auth", "--list"], dir);
  assert.equal(list.stdout, "No configured MCP server signs in with OAuth.\n");
});

/** A config dir whose warm host lives in a private daemon folder, stopped after the test. */
function project(t: { after: (fn: () => Promise<unknown>) => void }, servers: Record<string, unknown>): { dir: string; env: NodeJS.ProcessEnv } {
  const dir = mkdtempSync(path.join(tmpdir(), "ts-auth-"));
  writeFileSync(path.join(dir, "toolshell.config.json"), JSON.stringify({ mcpServers: servers }));
  const env = { TOOLSHELL_DAEMON_DIR: mkdtempSync(path.join(tmpdir(), "ts-authd-")) };
  t.after(() => toolshell(["daemon", "stop"], dir, undefined, env));
  return { dir, env };
}

/** Signs in with `toolshell auth`, approving the printed URL as a browser would. */
async function signInCli(server: string, dir: string, env: NodeJS.ProcessEnv, extra: string[] = []): Promise<Run> {
  let approving: Promise<void> | undefined;
  const run = await toolshell(["auth", server, "--no-open", ...extra], dir, (out) => {
    const url = /^ {2}(http\S+)$/m.exec(out)?.[1];
    if (url && !approving) approving = approve(url);
  }, env);
  await approving;
  return run;
}

test("toolshell auth after a call already asked for sign-in (on the warm host, another redirect port): it signs in, and the call works", async (t) => {
  const f = await startOAuthServer();
  t.after(() => f.close());
  f.exactRedirectUris = true;
  const { dir, env } = project(t, { demo: { url: f.url } });
  const asked = await toolshell(["exec", "tools demo whoami"], dir, undefined, env);
  assert.equal(asked.code, 1, asked.stderr);
  assert.match(asked.stderr, /"code":"connection_required".*toolshell auth demo/);
  const signedIn = await signInCli("demo", dir, env);
  assert.equal(signedIn.code, 0, signedIn.stderr);
  assert.match(signedIn.stdout, /^Signed in to demo as alice/m);
  const again = await signInCli("demo", dir, env);
  assert.equal(again.code, 0, again.stderr);
  const run = await toolshell(["exec", "tools demo whoami | jq -r .user"], dir, undefined, env);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, "alice\n");
});

/** A port nothing listens on now. */
async function freePort(): Promise<number> {
  const { createServer } = await import("node:net");
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as import("node:net").AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

test("oauth.callbackPort held by the warm host: toolshell auth says to stop it, and works once it is stopped", async (t) => {
  const f = await startOAuthServer();
  t.after(() => f.close());
  const port = await freePort();
  const { dir, env } = project(t, { demo: { url: f.url, oauth: { callbackPort: port } } });
  // The first run works in-process and starts the warm host; the second runs there and leaves its
  // sign-in pending, the host listening on the redirect port.
  await toolshell(["exec", "tools demo whoami"], dir, undefined, env);
  const asked = await toolshell(["exec", "tools demo whoami"], dir, undefined, env);
  assert.match(asked.stderr, new RegExp(`"code":"connection_required".*127\\.0\\.0\\.1%3A${port}%2Fcallback`));
  const held = await toolshell(["auth", "demo", "--no-open"], dir, undefined, env);
  assert.equal(held.code, 1);
  assert.match(held.stderr, new RegExp(`^toolshell auth: the sign-in redirect port 127\\.0\\.0\\.1:${port} \\(oauth\\.callbackPort of "demo"\\) is held by this config's warm host \\(pid \\d+\\).*Stop it with \`toolshell daemon stop\`, then run \`toolshell auth demo\` again`));
  const stopped = await toolshell(["daemon", "stop"], dir, undefined, env);
  assert.equal(stopped.code, 0, stopped.stderr);
  const signedIn = await signInCli("demo", dir, env);
  assert.equal(signedIn.code, 0, signedIn.stderr);
  assert.match(signedIn.stdout, /^Signed in to demo as alice/m);
});

test("toolshell auth --wait that runs out says what to do next", async (t) => {
  const f = await startOAuthServer();
  t.after(() => f.close());
  const { dir, env } = project(t, { demo: { url: f.url } });
  const run = await toolshell(["auth", "demo", "--no-open", "--wait", "500"], dir, undefined, env);
  assert.equal(run.code, 1);
  assert.match(run.stdout, /^Sign in to demo by opening:/);
  assert.equal(
    run.stderr,
    "toolshell auth: no redirect from the authorization server within 500 ms (--wait 500), so the sign-in to demo was stopped. Run `toolshell auth demo` again, open the URL it prints and finish signing in within the wait (default 10 minutes; --wait MS sets it)\n",
  );
});
