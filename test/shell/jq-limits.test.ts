import assert from "node:assert/strict";
import { test } from "node:test";
import { createToolShell } from "../../src/index.js";
import { JqEngine } from "../../src/shell/commands/index.js";

// jq's own cap is tested here, under a shell bound above it: at the default bound (16 MiB, the
// same as jq's cap) a run that reaches the cap is stopped by the bound first, since jq's error
// line would pass it (docs/security.md "Bounded output").
const config = { maxOutputBytes: 32 * 1024 * 1024 };

test("a runaway jq program ends with an output-limit error; the host process lives on", async () => {
  const ts = await createToolShell({ config, timeoutMs: 60_000 });
  const s = ts.session();
  const deep = await s.bash(`jq -n 'reduce range(0;60) as $i (0; [.])' > /dev/null; echo "rc=$?"`);
  assert.match(deep.stdout, /^rc=[1-9]/);
  const big = await s.bash(`jq -n '[range(0;3000000)]' | wc -c`);
  assert.match(big.stderr, /jq: error: output limit exceeded \(16777216 bytes\)/);
  assert.ok(Number(big.stdout.trim()) <= 16 * 1024 * 1024);
  const after = await s.bash(`jq -n '1+1'`);
  assert.equal(after.stdout, "2\n", "jq still works afterwards");
  await ts.close();
});

test("the 16 MiB output limit counts bytes: many small results print in full up to it", async () => {
  const ts = await createToolShell({ config });
  const s = ts.session();
  // 2,000,000 lines, 14,888,890 bytes (the real jq 1.6 prints the same): under the cap, all kept.
  const many = await s.bash(`jq -n 'range(0;2000000)' | wc -lc`);
  assert.equal(many.stdout.trim().split(/\s+/).join(" "), "2000000 14888890", many.stderr);
  assert.equal(many.stderr, "");
  // Past the cap the run ends at 16 MiB with the limit error, exit 2.
  const over = await s.bash(`jq -n 'range(0;3000000)' | wc -c; echo "jq=\${PIPESTATUS[0]}"`);
  const [bytes, status] = over.stdout.trim().split("\n");
  assert.ok(Number(bytes) <= 16 * 1024 * 1024 && Number(bytes) > 16 * 1024 * 1024 - 16, bytes);
  assert.equal(status, "jq=2");
  assert.match(over.stderr, /output limit exceeded \(16777216 bytes\)/);
  await ts.close();
});

test("jq's memory is capped: a string doubled past the cap ends with a memory-limit error", async (t) => {
  const ts = await createToolShell({ timeoutMs: 60_000 });
  t.after(() => ts.close());
  const s = ts.session();
  const before = process.memoryUsage().rss;
  // 2^40 bytes if it could: jq's heap reaches the 256 MiB WebAssembly maximum long before.
  const r = await s.bash(`jq -n 'reduce range(0;40) as $i ("x"; . + .) | length'; echo "rc=$?"`);
  assert.match(r.stderr, /jq: error: memory limit exceeded \(256 MiB\)/);
  assert.equal(r.stdout, "rc=5\n");
  // The process grew by well under the old ~500 MiB (wasm memory is the jq instance's, now dropped).
  assert.ok(process.memoryUsage().rss - before < 320 * 1024 * 1024, "process grew past the cap");
  const after = await s.bash(`jq -n '"ab" * 3'`);
  assert.equal(after.stdout, '"ababab"\n', "jq still works afterwards");
});

test("the memory cap is the engine's WebAssembly maximum: a lower cap fails sooner, the same way", async (t) => {
  const engine = new JqEngine({ maxMemoryBytes: 32 * 1024 * 1024 });
  t.after(() => engine.close());
  const run = (program: string) =>
    engine.run({ argv: ["jq", "-n", program], cwd: "/", files: [], stdin: null, env: [], useEnv: false, maxOutput: 1 << 20, timeoutMs: 30_000 });
  const big = await run('[range(0;2000000)] | length');
  assert.equal(big.exitCode, 5);
  assert.match(new TextDecoder().decode(big.stderr), /memory limit exceeded \(32 MiB\)/);
  assert.ok((big.heapBytes ?? 0) <= 32 * 1024 * 1024, `heap ${big.heapBytes}`);
  const small = await run("[range(0;1000)] | length");
  assert.equal(new TextDecoder().decode(small.stdout), "1000\n");
});
