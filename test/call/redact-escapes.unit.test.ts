/**
 * Escape forms a server may echo its secret in, each found and redacted (docs/security.md
 * "Secrets"): Python's and C's 8-digit `\U` escapes, the `%uXXXX` form of JavaScript's old
 * `escape()`, CSS escapes (`\73 \6b`), and base64 of the secret's UTF-16 big-endian bytes.
 * Control: text of the same shape that spells no secret is kept as written.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { createRedactor } from "../../src/call/index.js";

const SECRET = "sk_live_9fQ2xLm7Zp4RtY";
const r = createRedactor([SECRET]);
const hex = (c: string, n: number) => c.charCodeAt(0).toString(16).padStart(n, "0");
const FORMS: Record<string, (s: string) => string> = {
  "\\U escapes": (s) => [...s].map((c) => `\\U${hex(c, 8)}`).join(""),
  "%u escapes": (s) => [...s].map((c) => `%u${hex(c, 4)}`).join(""),
  "CSS escapes, a space after each": (s) => [...s].map((c) => `\\${hex(c, 2)} `).join("").trim(),
  "CSS escapes, six digits each": (s) => [...s].map((c) => `\\${hex(c, 6)}`).join(""),
  "base64 of UTF-16BE": (s) => Buffer.from(s, "utf16le").swap16().toString("base64"),
};

for (const [name, form] of Object.entries(FORMS)) {
  test(`${name}: a secret written so is redacted, in text and in a JSON value; control: another string so written is kept`, () => {
    const text = `key=${form(SECRET)} end`;
    const out = r.text(text);
    assert.ok(!out.includes(form(SECRET)), `${name}: ${out}`);
    assert.match(out, /\[REDACTED\]/);
    assert.notEqual(r.value({ k: form(SECRET) }).k, form(SECRET));
    const other = `key=${form("not_a_secret_value_at_all")} end`;
    assert.equal(r.text(other), other, `control: ${name} of another value`);
  });
}
