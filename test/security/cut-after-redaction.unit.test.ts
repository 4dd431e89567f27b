/**
 * Text is cut only once redacted: a secret that straddles the place a preview or a kept result is
 * cut shows none of itself — not the script's preview in `shell_call.started` (400 characters),
 * not a call's input preview (400), not a result kept in the shell call's report's `done` list
 * (2,000). (A server's start failure cut in the `tools` listing: test/security/server-logs.test.ts.) Before, the part before the cut showed,
 * which the redactor no longer knew as the secret. Control: text around the secret is kept.
 * See docs/security.md ("Secrets").
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { createToolShell, defineTool, never } from "../../src/index.js";

const SECRET = "cut-Secret-0123456789abcdefghijKLMNOPQRST";
const HALF = SECRET.slice(0, 14);

test("a secret straddling a cut shows none of itself in events or the shell call's report; control: the text before it is kept", async (t) => {
  const shell = await createToolShell({
    config: {},
    tools: {
      write: defineTool({ description: "Writes a note and answers it back.", inputSchema: { type: "object", properties: { note: { type: "string" } } }, approval: never(), execute: (input) => (input as { note: string }).note }),
    },
  });
  t.after(() => shell.close());
  shell.redactor.add(SECRET); // as the host learns a token
  const s = shell.session("cut");
  // The script's 400th character falls inside the secret; so does the input preview's.
  const pad = (n: number) => "p".repeat(n);
  const script = `echo ${pad(380)} ${SECRET}\ntools write note='${pad(370)}${SECRET}'\nnote=$(printf '%s' "$(tools write note='${pad(1990)}${SECRET}')")\ntools write bad=1`;
  const r = await s.bash(script);
  const report = JSON.stringify(r.tools);
  // The last call fails (an unknown field): the shell call's report lists what was done.
  assert.match(r.stderr, /invalid_input/, r.stderr);
  const events = JSON.stringify(s.events);
  for (const [where, text] of [["the events", events], ["the report", report], ["the output", r.stdout + r.stderr]] as const) {
    assert.ok(!text.includes(HALF), `${where} show the secret's first half: ${text.slice(0, 200)}…`);
  }
  assert.match(events, new RegExp(`"script_preview":"echo p{380} \\[REDACTED\\]`), "the script's preview, redacted, then cut");
  assert.match(events, new RegExp(`"input_preview":"\\{\\\\"note\\\\":\\\\"p{370}\\[REDACTED\\]`), "the input preview, redacted, then cut");
  assert.match(report, /"result":"p{1990}\[REDACTED\]/, "the kept result, redacted, then cut");
});
