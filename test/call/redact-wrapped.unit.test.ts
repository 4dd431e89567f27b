/**
 * Base64 wrapped over lines (RFC 2045 §6.8) is read wherever it sits: after text on its first
 * line, at any wrap width, with CRLF or LF and indentation, decoded as one block; megabytes of it
 * are scanned in one pass without overflowing the stack (docs/security.md "Secrets").
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { createRedactor, REDACTED } from "../../src/runtime/index.js";
import { wrappedBase64 } from "../../src/call/redact/decoders.js";

const SECRET = "sk_live_Zq9xW2vB7nM4";
const wrap = (b64: string, width: number, eol: string, indent = ""): string => b64.match(new RegExp(`.{1,${width}}`, "g"))!.map((l) => indent + l).join(eol);
/** Whether `out`, its non-base64 characters dropped, decodes (at any of the four alignments) to bytes holding `secret`. */
const decodes = (out: string, secret: string): boolean => {
  const compact = out.replace(/[^A-Za-z0-9+/]/g, "");
  return [0, 1, 2, 3].some((k) => Buffer.from(compact.slice(k), "base64").toString("latin1").includes(secret));
};

test("the scanner finds a wrapped block after text on its first line, indented, padded, with text after it; control: single lines are no block", () => {
  const s = "body: QUJDREVGR0hJSktM\r\nTU5PUFFSU1RV\r\nVg==\r\nmore.\n  QUJD\n  REVG\n  Rw== tail";
  assert.deepEqual(
    wrappedBase64(s).map(([a, z]) => s.slice(a, z)),
    ["QUJDREVGR0hJSktM\r\nTU5PUFFSU1RV\r\nVg==", "QUJD\n  REVG\n  Rw=="],
  );
  assert.deepEqual(wrappedBase64("one line QUJDREVG\n\nQUJDREVG"), []);
});

test("a secret in text base64'd and wrapped after a prefix is redacted at any width, CRLF or LF, indented; control: the other text stays", () => {
  const red = createRedactor([SECRET]);
  const b64 = Buffer.from(`a config file\nkey=${SECRET}\nend of it, and some more text to wrap\n`).toString("base64");
  for (const [width, eol, indent, prefix] of [[76, "\r\n", "", "body: "], [64, "\n", "", "x"], [20, "\n", "    ", "data:"], [7, "\r\n", "\t", ""]] as const) {
    const input = `${prefix}${wrap(b64, width, eol, indent)}${eol}after`;
    assert.ok(decodes(input, SECRET), "the input holds the secret");
    const out = red.text(input);
    assert.ok(out.startsWith(prefix));
    assert.ok(!decodes(out, SECRET), `width ${width}: ${out}`);
    assert.ok(out.endsWith(`${eol}after`));
  }
  const harmless = `body: ${wrap(Buffer.from("nothing secret here at all, just text").toString("base64"), 16, "\n")}`;
  assert.equal(red.text(harmless), harmless);
});

test("a 100-character secret base64'd and wrapped is redacted however many characters precede it", () => {
  const long = "A1b2C3d4E5".repeat(10);
  const red = createRedactor([long]);
  for (const prefix of ["", "x", "xy", "xyz", "> "]) {
    const input = prefix + wrap(Buffer.from(long).toString("base64"), 76, "\n");
    assert.notEqual(red.text(input), input, prefix);
    assert.ok(decodes(input, long) && !decodes(red.text(input), long));
  }
});

test("7.7 MB of MIME base64 is scanned without overflowing the stack and comes back exactly as it was; a secret after it is still redacted", () => {
  const red = createRedactor([SECRET]);
  const line = "QUJD".repeat(19) + "\r\n";
  const big = line.repeat(100_000);
  const out = red.text(`${big}then ${SECRET}`);
  assert.equal(out, `${big}then ${REDACTED}`);
  assert.equal(wrappedBase64(big).length, 1);
  const one = "QUJD".repeat(2_000_000);
  assert.equal(red.text(one), one);
});

test("a secret split by any form of line break is replaced whole: bare CR, U+2028/2029, NEL, a quoted reply's '> ', a hyphenated wrap, an escaped \\n inside a JSON string, <br>; control: the same breaks in harmless text stay", () => {
  const secret = "sk_live_Zq81XvPl0aT7mNc3";
  const red = createRedactor([secret]);
  const [a, b] = [secret.slice(0, 10), secret.slice(10)];
  const forms: Record<string, string> = {
    "bare CR": `${a}\r${b}`,
    "LF": `${a}\n${b}`,
    "U+2028": `${a}\u2028${b}`,
    "U+2029": `${a}\u2029${b}`,
    NEL: `${a}\u0085${b}`,
    "quoted reply": `> ${a}\n> ${b}`,
    "nested quote": `>> ${a}\n>> ${b}`,
    "hyphenated wrap": `${a}-\n${b}`,
    "escaped \\n in a JSON string": JSON.stringify({ v: `${a}\n${b}` }),
    "escaped \\r\\n": JSON.stringify(`${a}\r\n${b}`),
    "<br>": `${a}<br>${b}`,
    "<br />": `${a}<BR />${b}`,
  };
  for (const [name, text] of Object.entries(forms)) {
    const out = red.text(`before ${text} after`);
    assert.ok(!out.includes(b) && !out.includes(a), `${name}: ${JSON.stringify(out)}`);
    assert.match(out, /^before .*\[REDACTED\].* after$/s, `${name}: the text around it stays: ${JSON.stringify(out)}`);
  }
  // Controls: the same breaks between harmless words, and a secret's halves far apart, stay.
  for (const text of ["first\rsecond", "one\u2028two", "> quoted\n> reply", "co-\noperate", JSON.stringify({ v: "x\ny" }), "a<br>b", `${a} and then some other words`]) {
    assert.equal(red.text(text), text);
  }
});
