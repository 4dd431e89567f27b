/**
 * The CLI and a `toolshell serve` with its own certificate (docs/deployment.md "TLS and the
 * console"): a real serve process (node dist/cli/main.js, after `npm run build`) bound to 0.0.0.0
 * over HTTPS with a self-signed certificate made here by `openssl` for a name that is not
 * 127.0.0.1. Its serve file and `serve.started` line record a loopback URL (not 0.0.0.0) and the
 * certificate; `toolshell servers list` asks it through that pinned certificate; without the
 * certificate recorded, the CLI says why it cannot trust the serve and what to do.
 */
import assert from "node:assert/strict";
import { execFile, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test, type TestContext } from "node:test";
import { promisify } from "node:util";
import { REPO_ROOT } from "../fixtures/mcp/index.js";
import { stopChild } from "../fixtures/child.js";

const run = promisify(execFile);
const CLI = path.join(REPO_ROOT, "dist/cli/main.js");
const TOKEN = "tls-cli-token-0123456789";

async function serveTls(t: TestContext): Promise<{ dir: string; config: string; banner: () => string; logLines: () => Array<Record<string, unknown>> }> {
  assert.ok(existsSync(CLI), "run `npm run build` first");
  const dir = mkdtempSync(path.join(tmpdir(), "toolshell-tls-cli-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const config = path.join(dir, "toolshell.config.json");
  writeFileSync(config, JSON.stringify({ store: path.join(dir, "state.db"), server: { tokens: [TOKEN] } }));
  // Self-signed, for a name only: trusted by nothing but the pin.
  execFileSync("openssl", [
    "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
    "-keyout", path.join(dir, "key.pem"), "-out", path.join(dir, "cert.pem"), "-subj", "/CN=toolshell.example",
    "-addext", "subjectAltName=DNS:toolshell.example",
  ], { stdio: "ignore" });
  const child = spawn(process.execPath, [CLI, "serve", "--no-triggers", "--host", "0.0.0.0", "--port", "0", "--tls-cert", "cert.pem", "--tls-key", "key.pem", "--config", config], {
    cwd: dir,
    stdio: ["ignore", "pipe", "pipe"],
  });
  t.after(() => stopChild(child));
  let err = "";
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d));
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on("data", (d: Buffer) => {
      err += d;
      if (/console at .*\n/.test(err) && existsSync(path.join(dir, ".toolshell", "serve.toolshell.config.json.json"))) resolve();
    });
    child.once("exit", (code) => reject(new Error(`serve exited (${code}):\n${err}`)));
  });
  const logLines = () => out.split("\n").filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
  return { dir, config, banner: () => err, logLines };
}

test("a serve on 0.0.0.0 with a self-signed certificate: loopback URL recorded, the CLI pins its certificate", async (t) => {
  const s = await serveTls(t);
  const file = path.join(s.dir, ".toolshell", "serve.toolshell.config.json.json");
  const announced = JSON.parse(readFileSync(file, "utf8")) as { url: string; cert?: string };
  assert.match(announced.url, /^https:\/\/127\.0\.0\.1:\d+$/);
  assert.equal(announced.cert, path.join(s.dir, "cert.pem"));
  const started = s.logLines().find((l) => l.event === "serve.started");
  assert.equal(started?.url, announced.url);
  assert.doesNotMatch(s.banner(), /console at https:\/\/0\.0\.0\.0/);

  const env = { ...process.env, TOOLSHELL_API_TOKEN: TOKEN };
  const listed = await run(process.execPath, [CLI, "servers", "list", "--json", "--config", s.config], { cwd: s.dir, env });
  const replicas = (JSON.parse(listed.stdout) as { replicas?: Array<{ url: string }> }).replicas ?? [];
  assert.ok(replicas.length >= 1, listed.stdout);

  // Without the certificate recorded, the CLI says what is wrong and how to pass it.
  const { cert: _c, ...bare } = announced;
  writeFileSync(file, JSON.stringify(bare));
  const failed = await run(process.execPath, [CLI, "servers", "list", "--config", s.config], { cwd: s.dir, env }).then(
    () => assert.fail("servers list should fail without the certificate"),
    (e: { stderr: string; code: number }) => e,
  );
  assert.match(failed.stderr, /TLS certificate is not trusted here/);
  assert.match(failed.stderr, /NODE_EXTRA_CA_CERTS=/);
  assert.doesNotMatch(failed.stderr, /: fetch failed$/m);
});
