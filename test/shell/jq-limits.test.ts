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
