/**
 * Who acts for whom, on this machine: every local door and file is its owner's only. A
 * token-less `toolshell mcp --http` on 127.0.0.1 does not let another local user (any process
 * without the owner's token) open a session, run a call or answer an approval: it makes a token,
 * keeps it 0600, and asks for it. The serve files, the default state folder, the gateway's token
 * file and the store are narrowed to 0700 / 0600 when an older version (or a looser umask) left
 * them open. Each attack has a control: the owner, with the token, is served.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test, type TestContext } from "node:test";
import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { tsxCommand } from "../fixtures/mcp/index.js";

const MAIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../src/cli/main.ts");
const mode = (p: string) => statSync(p).mode & 0o777;

function project(t: TestContext): string {
  const dir = mkdtempSync(path.join(tmpdir(), "ts-doors-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(path.join(dir, "toolshell.config.json"), JSON.stringify({ mcpServers: {}, approval: { mode: "protective" } }));
  return dir;
}

/** Starts `toolshell mcp --http 0` in `cwd` with no API token in its environment; resolves with its URL and stderr. */
async function gateway(t: TestContext, cwd: string): Promise<{ url: string; stderr: string; child: ChildProcess }> {
  const env = { ...process.env };
  delete env.TOOLSHELL_API_TOKEN;
  delete env.TOOLSHELL_API_TOKENS;
  const cmd = tsxCommand(MAIN, ["mcp", "--http", "0"]);
  const child = spawn(cmd.command, cmd.args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  t.after(async () => {
    if (child.exitCode === null) {
      child.kill("SIGTERM");
      await new Promise((resolve) => child.once("exit", resolve));
    }
  });
  let stderr = "";
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on("data", (d: Buffer) => {
      stderr += d.toString();
      const m = /serving Streamable HTTP at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr);
      if (m) resolve(m[1]!);
    });
    child.once("exit", (code) => reject(new Error(`exited ${code}: ${stderr}`)));
  });
  return { url, stderr, child };
}

async function connect(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "local-user", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

test("a token-less `toolshell mcp --http` on 127.0.0.1 makes a token and serves no client without it; control: the owner's client with it runs calls", async (t) => {
  const cwd = project(t);
  const { url, stderr, child } = await gateway(t, cwd);
  const file = path.join(cwd, ".toolshell", "mcp-http.token");
  assert.match(stderr, /Authorization: Bearer <the token in .*mcp-http\.token, readable by you only, made now>/, stderr);
  const token = readFileSync(file, "utf8").trim();
  assert.ok(token.length >= 32, "a long random token");
  assert.ok(!stderr.includes(token), "the token itself is not printed (a log of stderr would hold it)");
  assert.equal(mode(file), 0o600, "the token file");
  assert.equal(mode(path.dirname(file)), 0o700, "its folder");
  // The attacks: another local process, with no token, a wrong one, or the token as a query.
  const attempts: Array<Record<string, string>> = [{}, { authorization: "Bearer wrong-token-0123456789abcdef" }, { authorization: `Basic ${Buffer.from(`x:${token}`).toString("base64")}` }];
  for (const headers of attempts) {
    await assert.rejects(connect(url, headers), /401|unauthorized/i, JSON.stringify(headers));
  }
  await assert.rejects(connect(`${url}?token=${token}`), /401|unauthorized/i);
  const raw = await fetch(url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "toolshell_approve", arguments: { request_id: "apr_x", decision: "allow_always" } } }) });
  assert.equal(raw.status, 401);
  // Control: the owner's client, with the token from the file, runs a call.
  const owner = await connect(url, { authorization: `Bearer ${token}` });
  const r = (await owner.callTool({ name: "bash", arguments: { command: "echo hi" } })) as { structuredContent?: { stdout: string } };
  assert.equal(r.structuredContent?.stdout, "hi\n");
  await owner.close();
  child.kill("SIGTERM");
  await new Promise((resolve) => child.once("exit", resolve));
  // The same token at the next start: a client is configured once.
  const second = await gateway(t, cwd);
  assert.match(second.stderr, /readable by you only>/);
  assert.doesNotMatch(second.stderr, /made now/);
  assert.equal(readFileSync(file, "utf8").trim(), token);
});

test("a gateway token file another user could read (or write) is not used: a new one replaces it, owner-only; control: the new token works", async (t) => {
  const cwd = project(t);
  const file = path.join(cwd, ".toolshell", "mcp-http.token");
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o755 });
  chmodSync(path.dirname(file), 0o755);
  const planted = "planted-token-0123456789abcdef-known";
  writeFileSync(file, planted + "\n", { mode: 0o644 });
  chmodSync(file, 0o644);
  const { url, stderr } = await gateway(t, cwd);
  assert.match(stderr, /made now/);
  const token = readFileSync(file, "utf8").trim();
  assert.notEqual(token, planted);
  assert.equal(mode(file), 0o600);
  assert.equal(mode(path.dirname(file)), 0o700);
  await assert.rejects(connect(url, { authorization: `Bearer ${planted}` }), /401|unauthorized/i);
  const owner = await connect(url, { authorization: `Bearer ${token}` });
  await owner.close();
});

test("the serve files and the default state folder are narrowed to owner-only; control: they are written and read back", async (t) => {
  const cwd = project(t);
  const state = path.join(cwd, ".toolshell");
  mkdirSync(state, { recursive: true, mode: 0o755 });
  chmodSync(state, 0o755);
  const { announceServe, serveFile, servingProcesses } = await import("../../src/cli/running.js");
  const config = path.join(cwd, "toolshell.config.json");
  writeFileSync(serveFile(config), "{}\n", { mode: 0o644 });
  chmodSync(serveFile(config), 0o644);
  const stop = announceServe(config, "http://127.0.0.1:1");
  t.after(stop);
  assert.equal(mode(state), 0o700, "the state folder");
  assert.equal(mode(serveFile(config)), 0o600, "the serve file");
  assert.equal(mode(serveFile(config).replace(/\.json$/, `.${process.pid}.json`)), 0o600, "this process's serve file");
  assert.deepEqual(servingProcesses(config).map((p) => p.url), ["http://127.0.0.1:1"], "control: it is found");
  // The default store beside the config: its folder narrowed, its file 0600.
  chmodSync(state, 0o755);
  const { openHost } = await import("../../src/server/index.js");
  const host = await openHost({ config });
  t.after(() => host.close());
  assert.equal(mode(state), 0o700, "the state folder, when the store opens");
  assert.equal(mode(path.join(state, "state.db")), 0o600, "the store");
  const s = host.session("files");
  assert.equal((await s.bash("echo kept")).stdout, "kept\n", "control: the store works");
});
