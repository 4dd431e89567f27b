/**
 * A secret encoded twice (docs/security.md "Every form"): base64 of base64, base64 of hex, hex of
 * base64, base64 of a percent-encoding, in text around other words — each is redacted whole, and
 * text that only looks like such a run (long words, hex ids, base64 of harmless text) stays.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { createRedactor, REDACTED } from "../../src/call/redact/index.js";

const SECRET = "sk_live_TwiceEncoded77";
const b64 = (s: string) => Buffer.from(s).toString("base64");
const hex = (s: string) => Buffer.from(s).toString("hex");

test("a secret encoded twice, in any pair of base64, hex and percent-encoding, is redacted; control: harmless runs of the same shapes stay", () => {
  const r = createRedactor([SECRET]);
  const forms: Record<string, string> = {
    "base64 of base64": b64(b64(SECRET)),
    "base64 of hex": b64(hex(SECRET)),
    "hex of base64": hex(b64(SECRET)),
    "base64 of percent": b64(encodeURIComponent(SECRET).replace(/_/g, "%5F")),
    "base64url of base64": Buffer.from(b64(SECRET)).toString("base64url"),
  };
  for (const [name, form] of Object.entries(forms)) {
    // Words of letters that are not hex digits around it (a hex run takes the hex words it touches).
    const out = r.text(`quiz ${form} quiz`);
    assert.equal(out, `quiz ${REDACTED} quiz`, name);
  }
  // Controls: ordinary words, identifiers, hex ids and base64 of harmless text are left alone.
  for (const text of [
    "create-entities-and-relations-between-nodes",
    "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    `payload ${b64("hello world, nothing to see here")} end`,
    `twice ${b64(b64("just a harmless sentence"))} end`,
  ]) {
    assert.equal(r.text(text), text, text);
  }
});
