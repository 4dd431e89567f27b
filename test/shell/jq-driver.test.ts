/**
 * The libjq driver against jq's own `main` (docs/shell.md, "How it runs"): every vector of the
 * jq conformance corpus, run once through the driver (the default) and once through `main` in the
 * same WebAssembly build, must print the same stdout and stderr byte for byte and exit the same;
 * and a compiled program kept for later runs must not leak one run's state into the next.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Bash, InMemoryFs } from "just-bash";
import { createJqCommand, planJqArgv } from "../../src/shell/commands/index.js";
import { HOME, makeShell, shq, writeFiles } from "./harness.js";
import { loadJqVectors } from "./conformance/run-jq.js";

function mainShell(): Bash {
  return new Bash({ fs: new InMemoryFs(), cwd: HOME, customCommands: [createJqCommand(undefined, { driver: "main" })], executionLimits: { maxExecutionTimeMs: 30_000 } });
}

test("the driver prints what jq's main prints, byte for byte, on the whole corpus", { timeout: 240_000 }, async () => {
  const differ: string[] = [];
  let planned = 0;
  for (const v of loadJqVectors()) {
    if (planJqArgv(v.args.length ? v.args : ["."])) planned++;
    const outcomes = [];
    for (const bash of [makeShell(), mainShell()]) {
      await writeFiles(bash, v.files ?? {});
      const exports = Object.entries(v.env ?? {}).map(([k, val]) => `export ${k}=${shq(val)}; `).join("");
      const r = await bash.exec(`${exports}jq ${v.args.map(shq).join(" ")}`, { stdin: v.stdin ?? "", rawScript: true });
      outcomes.push({ stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode });
    }
    if (JSON.stringify(outcomes[0]) !== JSON.stringify(outcomes[1])) differ.push(`${v.name}: driver ${JSON.stringify(outcomes[0])} main ${JSON.stringify(outcomes[1])}`);
  }
  assert.deepEqual(differ, []);
  assert.ok(planned > 500, `only ${planned} vectors go through the driver`);
});

test("a kept program starts clean on every run: halts, errors, inputs, $__loc__ and limits", async () => {
  const bash = makeShell();
  await writeFiles(bash, { "a.json": '{"a":1}\n{"a":2}\n', "bad.json": '{"a":', "s.txt": "one\ntwo\n" });
  const script = [
    `jq -c '{a, f: input_filename, l: $__loc__.line}' a.json`,
    `jq -n 'halt_error'; echo "rc=$?"`,
    `jq -n '"bye\\n" | halt_error(3)'; echo "rc=$?"`,
    `jq -n '"bye\\n" | halt_error(3)'; echo "rc=$?"`,
    `jq -c '[., input]' a.json`,
    `jq .a bad.json; echo "rc=$?"`,
    `jq -c '{a, f: input_filename, l: $__loc__.line}' a.json`,
    `jq -R . s.txt`,
    `jq -e '.a == 3' a.json; echo "rc=$?"`,
    `jq -n 'first(inputs)' a.json -c`,
  ].join("\n");
  const first = await bash.exec(script);
  const again = await bash.exec(script);
  const reference = await (async () => {
    const m = mainShell();
    await writeFiles(m, { "a.json": '{"a":1}\n{"a":2}\n', "bad.json": '{"a":', "s.txt": "one\ntwo\n" });
    return m.exec(script);
  })();
  for (const r of [first, again]) {
    assert.equal(r.stdout, reference.stdout);
    assert.equal(r.stderr, reference.stderr);
  }
  assert.match(reference.stdout, /rc=3/);
});

test("arguments of any size go to the driver whole: no argv on jq's stack", async () => {
  const bash = makeShell();
  const big = "x".repeat(100_000);
  const r = await bash.exec(`v=${big}; jq -n --arg v "$v" --argjson n '[${"1,".repeat(20_000)}1]' '[($v|length), ($n|length)]' -c`);
  assert.equal(r.stdout, "[100000,20001]\n", r.stderr);
});
