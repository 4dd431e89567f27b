/**
 * The one JSON tokenizer of redaction (src/call/redact/tokenizer.ts): a server's raw JSON text and
 * JSON strings written with escapes inside text are read in one pass, so a megabyte of quotes
 * that never pair up is read once and the secrets after it are still found. Numbers stay numbers
 * unless they spell a secret (docs/mcp.md "Integers beyond 2^53", docs/security.md "Secrets").
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { createRedactor, REDACTED } from "../../src/runtime/index.js";
import { rewriteJsonTokens } from "../../src/call/redact/tokenizer.js";

const SECRET = "sk_live_Zq9xW2vB7nM4";
const NUMERIC = "12345678901234567890";
/** About a megabyte of quotes and backslashes: every quote escaped, none closing (the old scanner's quadratic case). */
const OPEN = '"' + '\\"'.repeat(520_000);
const R = JSON.stringify(REDACTED);

test("a megabyte of unclosed, escaped quotes in a server's JSON text is read once: the secret string before it and the secret numbers after it are redacted, the rest is unchanged; control: other numbers stay", () => {
  const red = createRedactor([SECRET, NUMERIC]);
  // No quote closes after OPEN: the old pattern scanned to the end again from each of its quotes.
  const json = `{"key":"${SECRET}","m":-1.5e3,"s":"${NUMERIC}x"}\n${OPEN}\n[${NUMERIC}, 12345678901234567000, 42, -7]`;
  const out = red.output({ kind: "json", json }).json!;
  assert.equal(out, `{"key":${R},"m":-1.5e3,"s":"${REDACTED}x"}\n${OPEN}\n[${R}, ${R}, 42, -7]`);
});

test("a megabyte of unclosed quotes in text is read once: a JSON string spelling the secret with escapes after it is redacted; control: an escaped harmless string stays", () => {
  const red = createRedactor([SECRET]);
  const escaped = JSON.stringify(SECRET).replace(/s/g, "\\u0073");
  const harmless = JSON.stringify("pk_test_Aa1bB2cC3dD4").replace(/t/g, "\\u0074");
  const out = red.text(`${OPEN}\ngot {"key":${escaped},"other":${harmless}}`);
  assert.equal(out, `${OPEN}\ngot {"key":${R},"other":${harmless}}`);
});

test("the tokenizer hands over string and number tokens only, each once, in order", () => {
  const seen: string[] = [];
  const src = '{"a":"x\\"y","b":[1,-2.5,3e4],"c":"7"} 8 "open\n"z"';
  const same = rewriteJsonTokens(src, (t) => void seen.push(t), true);
  assert.equal(same, src);
  assert.deepEqual(seen, ['"a"', '"x\\"y"', '"b"', "1", "-2.5", "3e4", '"c"', '"7"', "8", '"z"']);
  assert.equal(rewriteJsonTokens(src, (t) => (t === "8" ? "9" : undefined), true), src.replace(" 8 ", " 9 "));
  const strings: string[] = [];
  rewriteJsonTokens(src, (t) => void strings.push(t));
  assert.deepEqual(strings, ['"a"', '"x\\"y"', '"b"', '"c"', '"7"', '"z"']);
});

test("a megabyte of hex-looking words, character references, escapes and line breaks is read in runs: the secret in hex at its end is redacted; control: the rest is unchanged", () => {
  const red = createRedactor([SECRET]);
  const noise = "de ad be ef &#65;&amp;\\u0041\\x41 0x7f:\n".repeat(25_000);
  const hex = Buffer.from(SECRET).toString("hex");
  assert.equal(red.text(`${noise}key ${hex} ok`), `${noise}key ${REDACTED} ok`);
  assert.equal(red.text(noise), noise);
});

test("a string scanned before a secret was learned is redacted once the secret is added (the redactor's memory of scanned strings starts over); control: a long string and a JSON value follow the same rule", () => {
  const red = createRedactor([SECRET]);
  const token = "tok_learned_later_9f8e7d6c";
  const event = { type: "tool.progress", message: `got ${token}` };
  assert.equal(red.text(token), token);
  assert.equal(red.value(event), event, "nothing to redact yet: the value itself");
  red.add(token);
  assert.equal(red.text(token), REDACTED);
  assert.deepEqual(red.value(event), { type: "tool.progress", message: `got ${REDACTED}` });
  const long = `${"x".repeat(300)} ${token}`;
  assert.equal(red.text(long), `${"x".repeat(300)} ${REDACTED}`);
  assert.equal(red.text(`${SECRET} again`), `${REDACTED} again`);
});

test("a hex secret is redacted in either case (a digest or key printed upper-case); control: another hex value of that length stays", () => {
  const hex = "9f86d081884c7d659a2feaa0c55ad015";
  const red = createRedactor([hex]);
  assert.equal(red.text(`key ${hex.toUpperCase()} and ${hex}`), `key ${REDACTED} and ${REDACTED}`);
  assert.equal(red.text("other 0123456789ABCDEF0123456789ABCDEF"), "other 0123456789ABCDEF0123456789ABCDEF");
});
