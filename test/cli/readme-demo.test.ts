/**
 * README "Console": the demo starts `toolshell serve` in the background and stops it with
 * `kill $SERVE`. This runs the README's own serve line (node dist/cli/main.js, after `npm run
 * build`) on a free port, has it start an MCP server, sends SIGTERM to the pid `$!` would hold,
 * and checks that serve, its MCP server and its port are all gone.
 */
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { REPO_ROOT } from "../fixtures/mcp/index.js";

const TOKEN = "demo-token-0123456789abcdef";

/** The pids whose parent is `pid` (ps --ppid). */
function childrenOf(pid: number): number[] {
  return execFileSync("ps", ["-o", "pid=", "--ppid", String(pid)], { encoding: "utf8" })
    .split("\n")
    .map((s) => Number(s.trim()))
    .filter((n) => n > 0);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test("README Console demo: the serve it starts in the background is the pid `kill $SERVE` ends, MCP servers and port with it", async (t) => {
  assert.ok(existsSync(path.join(REPO_ROOT, "dist/cli/main.js")), "run `npm run build` first");
  const readme = readFileSync(path.join(REPO_ROOT, "README.md"), "utf8");
  const line = readme.split("\n").find((l) => / serve --config examples\/toolshell\.config\.json .*&$/.test(l));
  assert.ok(line, "the demo's serve line");
  assert.match(readme, /\nSERVE=\$!/);
  assert.match(readme, /\nkill \$SERVE/);
  const [command, ...args] = line.replace(/ &$/, "").split(" ");
  assert.equal(command, "node", "the demo runs node itself, so $! is serve's pid");
  const dir = mkdtempSync(path.join(tmpdir(), "toolshell-demo-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const store = args.indexOf("--store");
  args[store + 1] = path.join(dir, "demo.db");
  const child = spawn(process.execPath, [...args, "--port", "0"], { cwd: REPO_ROOT, stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, TOOLSHELL_API_TOKEN: TOKEN } });
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
  const api = (p: string, body: unknown) =>
    fetch(url + p, { method: "POST", headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" }, body: JSON.stringify(body) });
  assert.equal((await api("/v1/sessions", { id: "demo" })).status, 201);
  const ran = (await (await api("/v1/sessions/demo/bash", { script: "tools memory read-graph | jq '.entities | length'" })).json()) as { exit_code: number; stdout: string };
  assert.equal(ran.exit_code, 0, JSON.stringify(ran));
  const mcp = childrenOf(child.pid!);
  assert.ok(mcp.length > 0, "the memory MCP server runs under serve");

  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  process.kill(child.pid!, "SIGTERM"); // kill $SERVE
  assert.equal(await exited, 0);
  assert.deepEqual(mcp.filter(alive), [], "no MCP server of serve is left running");
  await assert.rejects(fetch(url + "/openapi.json"), "the port is free");
});
