/**
 * The redactor's memo of short strings it scanned (src/call/redact/index.ts) keeps copies of its
 * own: a short string cut from a large one (a slice of a server's stderr chunk, a regex match)
 * must not keep the large one alive while it is remembered.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { createRedactor } from "../../src/call/redact/index.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

test("short strings cut from large ones are remembered without their large strings: 100 slices of 2 MB texts keep well under 100 MB", () => {
  const r = createRedactor(["config-secret-xyz-0123"]);
  gc();
  const before = process.memoryUsage().heapUsed;
  const kept: string[] = [];
  for (let i = 0; i < 100; i++) {
    const big = `${String(i).padStart(6, "0")}${"x".repeat(100)}\n`.repeat(20_000);
    const short = big.slice(7, 207);
    kept.push(r.text(short));
  }
  gc();
  const grown = (process.memoryUsage().heapUsed - before) / 2 ** 20;
  assert.ok(grown < 100, `heap grew ${grown.toFixed(1)} MB`);
  // Control: what the memo answers is what a scan answers, and a secret is still found.
  assert.equal(kept[0], "x".repeat(99) + "\n" + "000000" + "x".repeat(94));
  assert.equal(r.text("key config-secret-xyz-0123"), "key [REDACTED]");
});
