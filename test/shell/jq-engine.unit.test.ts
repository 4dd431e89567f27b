/**
 * The jq engine's contract: files come from the session's virtual filesystem,
 * never the host's; concurrent callers get their own answers; a runaway program is ended
 * at the shell's time budget; the environment is the shell's; time is UTC; memory stays
 * bounded. No timing assertions (benchmarks live in bench/jq.bench.ts).
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { Bash, InMemoryFs } from "just-bash";
import { compatCommands, JqEngine, scanJqArgv } from "../../src/shell/commands/index.js";
import { makeShell, writeFiles } from "./harness.js";

const hostDir = mkdtempSync(path.join(tmpdir(), "jq-host-"));
after(() => rmSync(hostDir, { recursive: true, force: true }));

test("file operands are read from the virtual filesystem, never the host's", async () => {
  const hostFile = path.join(hostDir, "secret.json");
  writeFileSync(hostFile, '{"secret":true}');
  const bash = makeShell();
  await writeFiles(bash, { "in.json": '{"a":1}', "lib/m.jq": "def two: 2;", "raw.txt": "hi" });
  const host = await bash.exec(`jq . ${hostFile}`);
  assert.notEqual(host.exitCode, 0);
  assert.match(host.stderr, /Could not open/);
  assert.equal(host.stdout, "");
  for (const flag of ["--slurpfile", "--rawfile"]) {
    const r = await bash.exec(`jq -n '$x' ${flag} x ${hostFile}`);
    assert.equal(r.exitCode, 2, `${flag}: ${r.stderr}`);
  }
  const ok = await bash.exec(
    `jq -c --slurpfile s in.json --rawfile r raw.txt -L lib 'import "m" as m; [., $s, $r, m::two]' /home/user/in.json`,
  );
  assert.equal(ok.stdout, '[{"a":1},[{"a":1}],"hi",2]\n', ok.stderr);
});

test("concurrent shells and calls made while another is in flight get their own answers", async () => {
  const shells = [makeShell(), makeShell(), makeShell()];
  const runs = shells.map((b, i) =>
    b.exec(`for n in 1 2 3 4 5 6 7 8 9 10; do echo '{"v":${i}}' | jq -c "[.v, $n]"; done`),
  );
  const slow = makeShell().exec(`jq -n '[range(200000)] | length'`);
  const results = await Promise.all(runs);
  results.forEach((r, i) => {
    const expected = Array.from({ length: 10 }, (_, n) => `[${i},${n + 1}]`).join("\n") + "\n";
    assert.equal(r.stdout, expected, r.stderr);
  });
  assert.equal((await slow).stdout, "200000\n");
});

test("a runaway program is ended at the time budget and the next call works", async () => {
  const bash = new Bash({ fs: new InMemoryFs(), cwd: "/", customCommands: compatCommands(), executionLimits: { maxExecutionTimeMs: 1500 } });
  const r = await bash.exec(`jq -n 'def f: f; f'; echo "rc=$?"`);
  // The shell's own deadline stops the script (124); the jq worker is ended with it.
  assert.equal(r.exitCode, 124);
  assert.match(r.stderr, /deadline|time limit/);
  const next = await makeShell().exec(`jq -n '1+1'`);
  assert.equal(next.stdout, "2\n");
});

test("env and $ENV are the shell's exported variables; time is UTC", async () => {
  process.env.TOOLSHELL_HOST_ONLY = "leak";
  try {
    const r = await makeShell().exec(
      `export GREETING=grüß; LOCAL=x; jq -nc '[env.GREETING, $ENV.GREETING, env.TOOLSHELL_HOST_ONLY, env.LOCAL]'`,
    );
    assert.equal(r.stdout, '["grüß","grüß",null,null]\n', r.stderr);
  } finally {
    delete process.env.TOOLSHELL_HOST_ONLY;
  }
  const t = await makeShell().exec(`jq -nc '[0 | localtime | mktime, (0 | strftime("%H:%M %Z")), (0 | todate)]'`);
  assert.equal(t.stdout, '[0,"00:00 UTC","1970-01-01T00:00:00Z"]\n', t.stderr);
});

test("exit statuses 2, 3, 4, 5 and -e come through unchanged", async () => {
  const bash = makeShell();
  const cases: Array<[string, number]> = [
    [`jq . nope.json`, 2],
    [`jq -n '1 +'`, 3],
    [`jq -en 'null'`, 1],
    [`jq -en 'empty'`, 4],
    [`jq -n 'error("x")'`, 5],
    [`jq -n '"bye" | halt_error(7)'`, 7],
  ];
  for (const [cmd, code] of cases) assert.equal((await bash.exec(cmd)).exitCode, code, cmd);
});

test("the wasm heap stays bounded over many calls", async () => {
  const engine = new JqEngine({ maxCallsPerInstance: 100 });
  let heap = 0;
  for (let i = 0; i < 300; i++) {
    const r = await engine.run({
      argv: ["jq", "-c", "map(. * 2)", "/in"],
      cwd: "/",
      files: [{ path: "/in", data: new TextEncoder().encode(JSON.stringify(Array.from({ length: 200 }, (_, k) => k))) }],
      stdin: null,
      env: [],
      useEnv: false,
      maxOutput: 1 << 20,
      timeoutMs: 10_000,
    });
    assert.equal(r.exitCode, 0);
    heap = Math.max(heap, r.heapBytes ?? 0);
  }
  await engine.close();
  assert.ok(heap <= 64 * 1024 * 1024, `wasm heap grew to ${heap}`);
});

test("argv scanning follows jq's main: files, operands, -L, --args", () => {
  const s = scanJqArgv(["-c", "--arg", "a", "b", ".", "x.json", "--slurpfile", "s", "f.json", "-Llib", "--args", "p"]);
  assert.equal(s.programIndex, 4);
  assert.deepEqual(s.inputFileIndexes, [5]);
  assert.deepEqual(s.operandFileIndexes, [8]);
  assert.deepEqual(s.libDirs, ["lib"]);
  assert.equal(s.endsInArgsMode, true);
  assert.equal(scanJqArgv(["--arg", "x"]).incomplete, true);
});
