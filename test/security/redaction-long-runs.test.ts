/**
 * A run of an encoded form far longer than one match takes (a word of millions of `&#65;`, `\u0041`,
 * `%41` or hex digits, as a minified file or an attacker's output has): the redactor matched each
 * run whole with one `(?:…|…)+` loop, and V8's backtrack stack overflowed ("Maximum call stack size
 * exceeded"), so the whole output failed closed. Runs are matched in bounded pieces put together
 * again (decoders.ts `replaceRuns`): the secret is found wherever it lies in the run, also across
 * the cut between two pieces. See docs/security.md ("Secrets").
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { createRedactor } from "../../src/call/index.js";

const SECRET = "sk_live_Zq81LongRunSecret";
const r = createRedactor([SECRET]);

/** Each form: how one character is written, and the filler unit around the secret. */
const FORMS: Array<{ name: string; unit: (c: string) => string }> = [
  { name: "HTML character references", unit: (c) => `&#${c.charCodeAt(0)};` },
  { name: "\\u escapes", unit: (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}` },
  { name: "percent-encoding", unit: (c) => `%${c.charCodeAt(0).toString(16).padStart(2, "0")}` },
  { name: "hex bytes", unit: (c) => c.charCodeAt(0).toString(16).padStart(2, "0") },
];

for (const form of FORMS) {
  test(`${form.name}: a run of millions of units is redacted whole wherever the secret lies, the cut between pieces too; control: a run without it is kept`, () => {
    const filler = (n: number) => form.unit("A").repeat(n);
    const secret = [...SECRET].map(form.unit).join("");
    // `<` and `>` end every form's run (a letter next to a hex run could be a hex digit of it).
    // 2.6 million units (the length that overflowed), the secret straddling the first piece's end (10,000 units).
    const long = `<${filler(9_995)}${secret}${filler(2_600_000)}>`;
    assert.equal(r.text(long), "<[REDACTED]>", `${form.name}: the secret across the first cut of a long run`);
    const plain = `<${filler(2_600_000)}>`;
    assert.equal(r.text(plain), plain, "control: a run holding no secret is kept as it is");
    // At the start and at the end of a run of three pieces.
    for (const [before, after] of [[0, 30_000], [30_000, 0]]) {
      assert.equal(r.text(`<${filler(before)}${secret}${filler(after)}>`), "<[REDACTED]>", `${form.name}: the secret after ${before} units`);
    }
  });
}
