/**
 * A stdio server leads its own process group: `close()` and the end of the process end every
 * process the server started (a wrapper script like `npx`, and a child of the server itself).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { WILD_SERVER, tsxCommand } from "../fixtures/mcp/index.js";
import { sourceFor, tempDir } from "./helpers.js";

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function gone(pid: number, ms = 8000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; ) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !alive(pid);
}

/** A shell script that starts the server as its child (not exec), as `npx` does. */
function wrapper(dir: string, pidFile: string): string {
  const { command, args } = tsxCommand(WILD_SERVER);
  const script = path.join(dir, "launch.sh");
  writeFileSync(script, `#!/bin/sh\nFIXTURE_CHILD_PID_FILE='${pidFile}' '${command}' ${args.map((a) => `'${a}'`).join(" ")}\n`);
  chmodSync(script, 0o755);
  return script;
}

test("close() ends the wrapper, the server and the server's own child", async (t) => {
  const dir = tempDir("toolshell-pgroup-");
  const pidFile = path.join(dir, "child.pid");
  const source = sourceFor("wrapped", { command: wrapper(dir, pidFile) });
  t.after(() => source.close());
  await source.load();
  assert.equal(source.state(), "ready");
  const leader = source.pid()!;
  const grandchild = Number(readFileSync(pidFile, "utf8"));
  assert.ok(alive(leader) && alive(grandchild), "the server and its child run");
  await source.close();
  assert.ok(await gone(leader), "the wrapper is gone");
  assert.ok(await gone(grandchild), "the server's child is gone too");
});

test("a process that exits without close() leaves no server process behind", async () => {
  const dir = tempDir("toolshell-pgroup-");
  const pidFile = path.join(dir, "child.pid");
  const launcher = wrapper(dir, pidFile);
  const helpers = path.resolve(import.meta.dirname, "helpers.ts");
  const code = `
    import { sourceFor } from ${JSON.stringify(helpers)};
    const source = sourceFor("wrapped", { command: ${JSON.stringify(launcher)} });
    await source.load();
    console.log(source.pid());
    process.exit(0);`;
  const run = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", code], { encoding: "utf8", timeout: 30_000 });
  assert.equal(run.status, 0, run.stderr);
  const leader = Number(run.stdout.trim());
  const grandchild = Number(readFileSync(pidFile, "utf8"));
  assert.ok(leader > 0 && grandchild > 0);
  assert.ok(await gone(leader), "the wrapper is gone");
  assert.ok(await gone(grandchild), "the server's child is gone");
});
