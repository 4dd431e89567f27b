/**
 * Secrets in the encodings a server can wrap them in beyond URL and JSON encoding, as a class
 * (docs/security.md "Secrets"): hex in either case, run together or separated by colons, spaces,
 * line breaks or `\x`; hex and base64 of UTF-16 text; HTML character references (decimal, hex,
 * named); `\u` escapes outside JSON strings; base64 wrapped mid-line and base64url without
 * padding; the secret itself split by a line wrap. Each form, returned by a tool and raised in a
 * tool's error, reaches the script, the gateway's client, the AI SDK adapter and events only redacted, by the one
 * rule (src/call/redact/); each has a control: the same form of a harmless value passes unchanged.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { formsWorld, HARMLESS, SECRET } from "../fixtures/redaction-forms.js";

const hex = (v: string, enc: BufferEncoding = "utf8") => Buffer.from(v, enc).toString("hex");
const pairs = (h: string) => h.match(/../g)!;

/** The forms a value takes, by name. */
function formsOf(v: string): Record<string, string> {
  const b64 = Buffer.from(`admin:${v}`).toString("base64");
  return {
    "hex, lower-case": `digest: ${hex(v)} (sha)`,
    "hex, upper-case with colons": `fingerprint=${pairs(hex(v)).join(":").toUpperCase()}`,
    "hex with spaces, wrapped over lines": `dump:\n${pairs(hex(v)).map((p, i) => p + ((i + 1) % 8 ? " " : "\n")).join("")}end`,
    "hex as \\x escapes": `bytes b'${pairs(hex(v)).map((p) => "\\x" + p).join("")}'`,
    "hex of UTF-16LE": `wide ${hex(v, "utf16le")}`,
    "base64 of UTF-16LE text": `powershell -EncodedCommand ${Buffer.from(`echo ${v}`, "utf16le").toString("base64")}`,
    "HTML decimal references": `<input value="${[...v].map((c) => `&#${c.charCodeAt(0)};`).join("")}">`,
    "HTML hex references mixed with text": `<a title="${v.replace(/[_/+=]/g, (c) => `&#x${c.charCodeAt(0).toString(16).toUpperCase()};`)}">`,
    "HTML named references": `<p>${v.replace(/\//g, "&sol;").replace(/\+/g, "&plus;").replace(/=/g, "&equals;").replace(/_/g, "&lowbar;")}</p>`,
    "\\u escapes outside JSON strings": `key = ${[...v].map((c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0")).join("")};`,
    "base64 wrapped mid-line": `Authorization: Basic ${b64.slice(0, 13)}\n    ${b64.slice(13)}`,
    "base64url without padding": `token=${Buffer.from(`{"k":"${v}"}`).toString("base64url").replace(/=+$/, "")}`,
    "split by a line wrap": `The key you asked for is ${v.slice(0, 9)}\n${v.slice(9)} and it expires.`,
    "split by a wrap with indentation": `  key: ${v.slice(0, 5)}\r\n        ${v.slice(5)}`,
  };
}

/** The 12-character pieces of the secret's form that the harmless form lacks (line breaks removed). */
function secretPieces(form: string): string[] {
  const flat = (s: string) => s.replace(/\s*\r?\n\s*/g, "");
  const secret = flat(formsOf(SECRET)[form]!);
  const harmless = flat(formsOf(HARMLESS)[form]!);
  const pieces: string[] = [];
  for (let i = 0; i + 12 <= secret.length; i++) if (!harmless.includes(secret.slice(i, i + 12))) pieces.push(secret.slice(i, i + 12));
  assert.ok(pieces.length, form);
  return pieces;
}

function assertHidden(text: string, form: string, where: string): void {
  const flat = text.replace(/\\r\\n|\\n|\s*\r?\n\s*/g, "");
  const shown = secretPieces(form).find((p) => flat.includes(p) || flat.includes(JSON.stringify(p).slice(1, -1)));
  assert.equal(shown, undefined, `${form}, ${where}: ${text.slice(0, 2000)}`);
}

test("a secret in hex, UTF-16, HTML references, \\u escapes, wrapped base64 or split by a wrap is redacted in results and errors for the script, the gateway's client, the AI SDK adapter and events; control: the same forms of a harmless value pass unchanged", async (t) => {
  const { session, client, ai, events } = await formsWorld(t, "forms", formsOf);
  for (const form of Object.keys(formsOf(SECRET))) {
    for (const fail of [false, true]) {
      const cmd = `tools echo --form '${form}' --value secret${fail ? " --fail true" : ""}`;
      const r = await session.bash(cmd);
      assertHidden(r.stdout + r.stderr, form, `the script${fail ? " (error)" : ""}`);
      assert.match(r.stdout + r.stderr, /\[REDACTED\]|W1JFREFDVEVEXQ/, `${form}: something was redacted`);
      const gw = await client.callTool({ name: "bash", arguments: { command: cmd } });
      assertHidden(JSON.stringify(gw), form, `the gateway's client${fail ? " (error)" : ""}`);
      assertHidden(JSON.stringify(await ai(cmd)), form, `the AI SDK adapter${fail ? " (error)" : ""}`);
    }
    const ok = await session.bash(`tools echo --form '${form}' --value harmless`);
    assert.equal(ok.stdout.replace(/\n$/, ""), formsOf(HARMLESS)[form], `${form} (control)`);
  }
  for (const form of Object.keys(formsOf(SECRET))) assertHidden(JSON.stringify(events()), form, "events");
});
