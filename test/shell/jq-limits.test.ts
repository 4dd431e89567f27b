import assert from "node:assert/strict";
import { test } from "node:test";
import { createToolShell } from "../../src/index.js";

test("a runaway jq program ends with an output-limit error; the host process lives on", async () => {
  const ts = await createToolShell({ timeoutMs: 60_000 });
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
  const ts = await createToolShell({});
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
