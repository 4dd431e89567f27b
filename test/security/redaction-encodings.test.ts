/**
 * Secrets in the encodings a server (or a script) can wrap them in beyond the plain forms:
 * percent-encoding in lower-case hex, with every byte encoded, or encoded twice; a JSON string
 * written with escapes inside text (`\u0073k_…`, `\/`); base64 wrapped over lines as MIME does.
 * Each form, returned by a tool and raised in a tool's error, reaches the script, the gateway's
 * client, the AI SDK adapter and events only redacted, by the one redaction rule
 * (src/call/redact.ts); each has a harmless control that passes unchanged. See docs/security.md
 * ("Secrets").
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { formsWorld, HARMLESS, SECRET } from "../fixtures/redaction-forms.js";

/** The forms a value takes, by name. */
function formsOf(v: string): Record<string, string> {
  const pct = encodeURIComponent(v);
  return {
    "lower-case percent-encoding": `https://api.example/cb?k=${pct.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase())}&x=1`,
    "every byte percent-encoded": `k=${[...Buffer.from(v)].map((b) => "%" + b.toString(16).toUpperCase().padStart(2, "0")).join("")}`,
    "percent-encoded twice": `next=${encodeURIComponent(`https://a.example/?key=${pct}`)}`,
    "a JSON string with \\u escapes in text": `got {"key":${JSON.stringify(v).replace(/s/g, "\\u0073").replace(/_/g, "\\u005f")}}`,
    "a JSON string with \\/ in text": `got {"key":${JSON.stringify(v).replace(/\//g, "\\/")}}`,
    "base64 wrapped at 76 columns": Buffer.from(`From: a@example\r\n\r\nYour key is ${v}; keep it safe and never share it with anyone at all.`).toString("base64").replace(/(.{76})/g, "$1\r\n"),
  };
}

/** The secret in `text` in any of the forms, decoded as a reader would. */
function leaks(text: string): boolean {
  if (text.includes(SECRET)) return true;
  const decoded = [text, decodeURIComponent(text.replace(/%(?![0-9a-f]{2})/gi, "%25")), text.replace(/\\u([0-9a-f]{4})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16))).replace(/\\\//g, "/")];
  for (const run of text.replace(/\\r\\n|\r\n|\\n|\n/g, "").match(/[A-Za-z0-9+/]{40,}={0,2}/g) ?? []) decoded.push(Buffer.from(run, "base64").toString("latin1"));
  return decoded.some((d) => d.includes(SECRET) || decodeURIComponent(d.replace(/%(?![0-9a-f]{2})/gi, "%25")).includes(SECRET));
}

test("a secret percent-encoded in lower case, byte by byte or twice, JSON-escaped in text, or in base64 wrapped over lines is redacted in results and errors on every surface; control: the same forms of a harmless value pass unchanged", async (t) => {
  const { session, client, ai, events } = await formsWorld(t, "enc", formsOf);
  for (const form of Object.keys(formsOf(SECRET))) {
    for (const fail of [false, true]) {
      const cmd = `tools echo --form '${form}' --value secret${fail ? " --fail true" : ""}`;
      const r = await session.bash(cmd);
      assert.ok(!leaks(r.stdout + r.stderr), `${form}${fail ? " (error)" : ""}, the script: ${r.stdout}${r.stderr}`);
      assert.match(r.stdout + r.stderr, /\[REDACTED\]|W1JFREFDVEVEXQ/, `${form}: something was redacted`);
      const gw = await client.callTool({ name: "bash", arguments: { command: cmd } });
      assert.ok(!leaks(JSON.stringify(gw)), `${form}${fail ? " (error)" : ""}, the gateway's client: ${JSON.stringify(gw)}`);
      const out = await ai(cmd);
      assert.ok(!leaks(JSON.stringify(out)), `${form}${fail ? " (error)" : ""}, the AI SDK adapter: ${JSON.stringify(out)}`);
    }
    // Control: the harmless value's form passes unchanged.
    const ok = await session.bash(`tools echo --form '${form}' --value harmless`);
    assert.equal(ok.stdout.replace(/\n$/, ""), formsOf(HARMLESS)[form], `${form} (control)`);
  }
  const all = JSON.stringify(events());
  assert.ok(!leaks(all), `events: ${all.slice(0, 3000)}`);
});
