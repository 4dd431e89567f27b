/**
 * bash conformance: scripts whose expected stdout, stderr class and exit status
 * come from the real bash 5.2. At least 98% must match, and every mismatch must be a
 * listed known gap (conformance/bash-known-gaps.json, docs/shell.md, SHELL_NOTES).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { compareOutcome } from "./conformance/compare.js";
import { loadBashGaps, loadBashVectors, runBashVector } from "./conformance/run-bash.js";

const vectors = loadBashVectors();
const gaps = loadBashGaps();

test("the corpus is large enough and every known gap names a vector", () => {
  assert.ok(vectors.length >= 150, `only ${vectors.length} vectors`);
  const names = new Set(vectors.map((v) => v.name));
  for (const name of Object.keys(gaps)) assert.ok(names.has(name), `unknown vector in bash-known-gaps.json: ${name}`);
});

test("bash matches the real bash on ≥ 98% of scripts and every gap is listed", { timeout: 120_000 }, async () => {
  const unlisted: string[] = [];
  const fixed: string[] = [];
  let matched = 0;
  for (const v of vectors) {
    const cmp = compareOutcome(v.expected, await runBashVector(v));
    if (cmp.ok) matched++;
    if (gaps[v.name] !== undefined) {
      if (cmp.ok) fixed.push(v.name);
    } else if (!cmp.ok) {
      unlisted.push(`${v.name}: ${cmp.why}`);
    }
  }
  const rate = matched / vectors.length;
  assert.ok(rate >= 0.98, `match rate ${(rate * 100).toFixed(1)}% < 98%`);
  assert.deepEqual(unlisted, [], "mismatches that are not listed known gaps");
  assert.deepEqual(fixed, [], "listed as a gap but now matches: remove from bash-known-gaps.json");
});
