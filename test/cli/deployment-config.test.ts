/**
 * docs/deployment.md's config: `{ "store": "${TOOLSHELL_STORE}" }`, the API token only in the
 * environment of `toolshell serve`. Real CLI processes (node dist/cli/main.js, after `npm run
 * build`): commands that serve no HTTP run without TOOLSHELL_API_TOKEN; serve takes it from the
 * environment and refuses to start without one; a `${TOOLSHELL_API_TOKEN}` written in
 * `server.tokens` says how to do without it.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { REPO_ROOT } from "../fixtures/mcp/index.js";

const CLI = path.join(REPO_ROOT, "dist/cli/main.js");
const TOKEN = "deploy-token-0123456789abcdef";

test("the deployment config: CLI commands need no API token, serve takes it from its environment", async (t) => {
  assert.ok(existsSync(CLI), "run `npm run build` first");
  const dir = mkdtempSync(path.join(tmpdir(), "toolshell-deploy-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const doc = readFileSync(path.join(REPO_ROOT, "docs/deployment.md"), "utf8");
  const shown = /with, in `toolshell\.config\.json`:\n\n```json\n(.*)\n```/.exec(doc);
  assert.ok(shown, "the config docs/deployment.md shows");
  writeFileSync(path.join(dir, "toolshell.config.json"), shown[1]);
  const { TOOLSHELL_API_TOKEN: _a, TOOLSHELL_API_TOKENS: _b, ...base } = process.env;
  const env = { ...base, TOOLSHELL_STORE: path.join(dir, "state.db") };
  const cli = (args: string[]) => spawnSync(process.execPath, [CLI, "--no-daemon", ...args], { cwd: dir, env, encoding: "utf8", timeout: 60_000 });
  for (const args of [["exec", "echo hi"], ["events", "cli"], ["triggers", "list"], ["approvals"]]) {
    const r = cli(args);
    assert.equal(r.status, 0, `${args.join(" ")}: ${r.stderr}`);
  }
  assert.equal(existsSync(path.join(dir, "state.db")), true, "the store is the one the config names");

  const refused = spawnSync(process.execPath, [CLI, "serve", "--port", "0", "--no-triggers"], { cwd: dir, env, encoding: "utf8", timeout: 60_000 });
  assert.equal(refused.status, 2);
  assert.match(refused.stderr, /no API token: set server\.tokens in the config or TOOLSHELL_API_TOKEN in the environment/);

  const child = spawn(process.execPath, [CLI, "serve", "--port", "0", "--no-triggers"], { cwd: dir, env: { ...env, TOOLSHELL_API_TOKEN: TOKEN }, stdio: ["ignore", "ignore", "pipe"] });
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });
  let err = "";
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on("data", (d: Buffer) => {
      err += d;
      const m = /serving (http:\/\/\S+) /.exec(err);
      if (m) resolve(m[1]);
    });
    child.once("exit", (code) => reject(new Error(`serve exited (${code}):\n${err}`)));
  });
  assert.equal((await fetch(url + "/v1/sessions", { headers: { authorization: `Bearer ${TOKEN}` } })).status, 200);
  assert.equal((await fetch(url + "/v1/sessions", { headers: { authorization: "Bearer wrong-token-0123456789" } })).status, 401);
  // With the serve running and no token in this shell: `servers list` reads the file and says why
  // it could not ask the serve; a change is refused, as the serve would not hear it.
  const listed = cli(["servers", "list"]);
  assert.equal(listed.status, 0, listed.stderr);
  // One heading says what is shown and why, never "no serve runs" beside a serve it found.
  assert.match(listed.stdout, /^Servers of \S+, as (the file|its warm host \(pid \d+\)) has them \(a toolshell serve runs for this config at http:\/\/\S+ \(pid \d+\), but no API token is known here \(set TOOLSHELL_API_TOKEN to ask it\); servers added through the API or console are not listed\):\n/);
  assert.doesNotMatch(listed.stdout, /no toolshell serve/);
  const asJson = JSON.parse(cli(["servers", "list", "--json"]).stdout);
  assert.match(asJson.note, /no API token is known here/);
  const change = cli(["servers", "add", "more", "--", "node", "-e", "0"]);
  assert.equal(change.status, 2, change.stdout + change.stderr);
  assert.match(change.stderr, /no API token is known here: set TOOLSHELL_API_TOKEN/);
  const gone = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await gone;

  // The variable written in server.tokens: the message says what to do instead.
  writeFileSync(path.join(dir, "toolshell.config.json"), JSON.stringify({ store: "${TOOLSHELL_STORE}", server: { tokens: ["${TOOLSHELL_API_TOKEN}"] } }));
  const old = cli(["events", "cli"]);
  assert.equal(old.status, 2);
  assert.match(old.stderr, /server\.tokens\[0\]: environment variable TOOLSHELL_API_TOKEN is not set; toolshell serve reads TOOLSHELL_API_TOKEN and TOOLSHELL_API_TOKENS from the environment itself, so leave server\.tokens out/);
});
