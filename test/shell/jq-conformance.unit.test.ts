/**
 * jq conformance: every vector produced by the real jq must match our shell's
 * `jq` (stdout and exit status exactly, stderr by class), except the documented
 * deliberate differences in conformance/jq-differences.json (also in docs/shell.md).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { compareOutcome } from "./conformance/compare.js";
import { loadJqDifferences, loadJqVectors, runJqVector } from "./conformance/run-jq.js";

const vectors = loadJqVectors();
const differences = loadJqDifferences();

test("the corpus is large enough and every listed difference names a vector", () => {
  assert.ok(vectors.length >= 200, `only ${vectors.length} vectors`);
  const names = new Set(vectors.map((v) => v.name));
  for (const name of Object.keys(differences)) assert.ok(names.has(name), `unknown vector in jq-differences.json: ${name}`);
  for (const codes of [2, 3, 4, 5]) {
    assert.ok(vectors.some((v) => v.expected.exitCode === codes), `no vector exits ${codes}`);
  }
});

test("jq matches the real jq on every vector except the documented differences", { timeout: 120_000 }, async () => {
  const mismatches: string[] = [];
  const stale: string[] = [];
  for (const v of vectors) {
    const cmp = compareOutcome(v.expected, await runJqVector(v));
    if (differences[v.name] !== undefined) {
      if (cmp.ok) stale.push(v.name);
    } else if (!cmp.ok) {
      mismatches.push(`${v.name}: ${cmp.why}`);
    }
  }
  const rate = (vectors.length - mismatches.length - Object.keys(differences).length) / vectors.length;
  assert.deepEqual(mismatches, [], `match rate ${(rate * 100).toFixed(1)}%`);
  assert.deepEqual(stale, [], "listed as a difference but now matches: remove from jq-differences.json");
});
