/**
 * What one shell call can print is bounded (config `maxOutputBytes`): a script that prints without
 * end — `yes … | head -c` of gigabytes, an endless `echo` loop — stops with exit code 126 and one
 * line on stderr saying so, its output up to the bound kept; the store holds no more of it; the
 * host lives on and the session's next call works. Controls: output exactly at the bound prints in
 * full with exit 0; a bound outside 64 KiB–256 MiB is refused naming the setting. Through the
 * library (`openHost` over a real SQLite file, read back with its own driver) and the built CLI
 * with `--no-daemon`. See docs/security.md ("Bounded output").
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { test, type TestContext } from "node:test";
import { createToolShell } from "../../src/index.js";
import { openHost } from "../../src/server/index.js";
import { openDatabase } from "../../src/store/index.js";
import { REPO_ROOT } from "../fixtures/mcp/index.js";
import { tempDir } from "../fixtures/temp.js";

const CLI = path.join(REPO_ROOT, "dist/cli/main.js");
const BOUND = 64 * 1024;
const LINE = `toolshell: output passed maxOutputBytes (${BOUND} bytes); the script was stopped\n`;
/** just-bash has no `yes`: the attacker's one-liner with `yes` written as a function. */
const YES = "yes() { while :; do echo \"${1:-y}\"; done; }; yes AAAAAAAAAAAAAAAA | head -c 10000000";
const ENDLESS = "while :; do echo xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx; done";

const bytes = (s: string) => Buffer.byteLength(s, "utf8");

/** A config file with the bound and a SQLite store in a fresh folder. */
function configDir(t: TestContext, extra: Record<string, unknown> = {}) {
  const dir = tempDir(t, "toolshell-output-bound-");
  const config = path.join(dir, "toolshell.config.json");
  const store = path.join(dir, "state.db");
  writeFileSync(config, JSON.stringify({ store, maxOutputBytes: BOUND, ...extra }));
  return { dir, config, store };
}

/** What the store holds of one shell call: its events' data and its step's result. */
function stored(storeFile: string, sessionId: string, toolCallId: string) {
  const db = openDatabase(storeFile);
  try {
    const events = db.prepare("SELECT type, data FROM events WHERE session_id = ? AND tool_call_id = ?").all(sessionId, toolCallId) as Array<{ type: string; data: string }>;
    const step = db.prepare("SELECT result FROM steps WHERE session_id = ? AND tool_call_id = ?").get(sessionId, toolCallId) as { result: string } | undefined;
    return { events, result: JSON.parse(step?.result ?? "null") as { stdout: string; stderr: string; exit_code: number } | null };
  } finally {
    db.close();
  }
}

test("library: yes | head -c 10 MB and an endless echo loop stop at the bound with exit 126; the store holds no more; the next call works", async (t) => {
  const { config, store } = configDir(t);
  const host = await openHost({ config });
  t.after(() => host.close());
  const session = host.session("flood");
  for (const script of [YES, ENDLESS]) {
    const r = await session.bash(script);
    assert.equal(r.exit_code, 126, `${script}: ${r.stderr.slice(-300)}`);
    assert.ok(r.stderr.endsWith(LINE), `${script}: the result says why in one line: ${JSON.stringify(r.stderr.slice(-300))}`);
    assert.equal(r.stderr.split("\n").filter((l) => l.includes("maxOutputBytes")).length, 1, "one line, once");
    const printed = bytes(r.stdout) + bytes(r.stderr) - bytes(LINE);
    assert.ok(printed <= BOUND, `${script}: ${printed} bytes kept, more than the bound`);
    assert.ok(printed > BOUND - 1024, `${script}: the output up to the bound is kept (${printed} bytes)`);
    // The store, read with its own driver: the step's result is the same bounded output, and the
    // call's events carry none of it.
    const rows = stored(store, "flood", r.tool_call_id);
    assert.ok(rows.result, "the step's result was recorded");
    assert.equal(rows.result.exit_code, 126);
    assert.ok(bytes(rows.result.stdout) + bytes(rows.result.stderr) <= BOUND + bytes(LINE), `${script}: the stored result holds more than the bound`);
    assert.deepEqual(rows.events.map((e) => e.type).sort(), ["shell_call.ended", "shell_call.started"]);
    assert.ok(rows.events.every((e) => bytes(e.data) < 1024), `${script}: an event carries the output: ${rows.events.map((e) => bytes(e.data)).join(", ")}`);
    const next = await session.bash("echo next; echo err >&2");
    assert.deepEqual([next.exit_code, next.stdout, next.stderr], [0, "next\n", "err\n"], "the host lives on and the session's next call works");
  }
});

test("library on the bashkit engine (TOOLSHELL_ENGINE=bashkit): the same bound, the same stop, the next call works", async (t) => {
  const before = process.env.TOOLSHELL_ENGINE;
  process.env.TOOLSHELL_ENGINE = "bashkit";
  t.after(() => (before === undefined ? delete process.env.TOOLSHELL_ENGINE : (process.env.TOOLSHELL_ENGINE = before)));
  const { config } = configDir(t);
  const host = await openHost({ config });
  t.after(() => host.close());
  const session = host.session("kit");
  // The third: bashkit streams only the group's "a" of it (bashkit 0.18.2), not seq's 588,895 bytes.
  for (const script of [YES, ENDLESS, "{ echo a; } | seq 1 100000"]) {
    const r = await session.bash(script);
    assert.equal(r.exit_code, 126, `${script}: ${r.stderr.slice(-300)}`);
    assert.ok(r.stderr.endsWith(LINE), `${script}: ${JSON.stringify(r.stderr.slice(-300))}`);
    const printed = bytes(r.stdout) + bytes(r.stderr) - bytes(LINE);
    assert.ok(printed <= BOUND && printed > BOUND - 1024, `${script}: ${printed} bytes kept`);
  }
  // Control (bashkit's printf takes widths up to 10,000 only): 60,000 bytes, all of them.
  const [a, b] = ["a".repeat(999), "b".repeat(999)];
  const control = await session.bash(`for i in $(seq 1 55); do echo ${a}; done; for i in $(seq 1 5); do echo ${b} >&2; done`);
  assert.equal(control.exit_code, 0, control.stderr.slice(-300));
  assert.ok(control.stdout === `${a}\n`.repeat(55) && control.stderr === `${b}\n`.repeat(5), `control: under the bound, all of it (${bytes(control.stdout)} + ${bytes(control.stderr)} bytes)`);
});

test("library control: output exactly at the bound, stdout and stderr together, prints in full with exit 0", async (t) => {
  const { config } = configDir(t);
  const host = await openHost({ config });
  t.after(() => host.close());
  const r = await host.session("control").bash(`printf '%${BOUND - 10_000}s' a; printf '%10000s' b >&2`);
  assert.equal(r.exit_code, 0, r.stderr.slice(-300));
  assert.ok(r.stdout === `${" ".repeat(BOUND - 10_001)}a` && r.stderr === `${" ".repeat(9_999)}b`, `all of it: ${bytes(r.stdout)} + ${bytes(r.stderr)} bytes`);
});

test("library: maxOutputBytes outside 64 KiB–256 MiB is refused with a message naming the setting", async () => {
  for (const maxOutputBytes of [BOUND - 1, 256 * 1024 * 1024 + 1, 100_000.5, "16MiB"]) {
    await assert.rejects(
      createToolShell({ config: { maxOutputBytes }, connect: false }),
      /maxOutputBytes: expected a whole number of bytes from 65536 \(64 KiB\) to 268435456 \(256 MiB\)/,
      `maxOutputBytes ${JSON.stringify(maxOutputBytes)}`,
    );
  }
  // Control: both ends of the range are taken.
  for (const maxOutputBytes of [BOUND, 256 * 1024 * 1024]) {
    const shell = await createToolShell({ config: { maxOutputBytes }, connect: false });
    assert.equal(shell.config.maxOutputBytes, maxOutputBytes);
    await shell.close();
  }
});

/** Runs the built CLI with `--no-daemon` in `dir`. */
function cli(dir: string, config: string, args: string[]) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [CLI, "--config", config, "--no-daemon", ...args], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += String(d)));
    child.stderr.on("data", (d: Buffer) => (stderr += String(d)));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

test("CLI --no-daemon: the same stop; a bound out of range is refused naming the setting", async (t) => {
  assert.ok(existsSync(CLI), "run `npm run build` first");
  const { dir, config } = configDir(t);
  const r = await cli(dir, config, ["exec", YES]);
  assert.equal(r.code, 126, r.stderr.slice(-300));
  assert.ok(r.stderr.endsWith(LINE), JSON.stringify(r.stderr.slice(-300)));
  assert.ok(bytes(r.stdout) <= BOUND && bytes(r.stdout) > BOUND - 1024, `${bytes(r.stdout)} bytes printed`);
  const bad = configDir(t, { maxOutputBytes: 1024 });
  const refused = await cli(bad.dir, bad.config, ["exec", "echo hi"]);
  assert.notEqual(refused.code, 0);
  assert.match(refused.stderr, /maxOutputBytes: expected a whole number of bytes from 65536/);
  assert.equal(refused.stdout, "");
});
