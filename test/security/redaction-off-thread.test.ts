/**
 * Large outputs are redacted in a worker thread (src/call/redact/off-thread.ts): scanning 16 MiB
 * for every form of every secret held the whole process for seconds (every session, the HTTP API).
 * What the worker gives back is what the main thread's redactor gives (the same secrets, the same
 * forms); a timer set as the script ends fires before its redacted result comes back.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { z } from "zod";
import { createToolShell, defineTool } from "../../src/index.js";
import { createRedactor } from "../../src/call/index.js";
import { OFF_THREAD_CHARS, redactOutput, redactValue } from "../../src/call/redact/off-thread.js";

const SECRET = "sk_live_Zq9XwV7tR3mN5pL8";
const FORMS = [SECRET, Buffer.from(SECRET).toString("base64"), encodeURIComponent(encodeURIComponent(SECRET).replace(/_/g, "%5F")), [...SECRET].map((c) => `&#${c.charCodeAt(0)};`).join("")];

test("a large value and a large tool output are redacted off the main thread exactly as on it, in every form; control: small ones the same", async () => {
  const r = createRedactor([SECRET]);
  const filler = "%2541&#65;QUJD ".repeat(Math.ceil((OFF_THREAD_CHARS + 1000) / 15));
  const text = `${filler}\n${FORMS.join("\n")}\n`;
  const result = { stdout: text, stderr: `err ${SECRET}`, exit_code: 0 };
  const off = await redactValue(r, result, text.length);
  assert.deepEqual(off, r.value(result));
  assert.doesNotMatch(off.stdout.slice(filler.length), /sk_live|c2tfbGl2Z/);
  assert.equal(off.stderr, "err [REDACTED]");
  const output = { kind: "json" as const, text, value: { k: SECRET, n: text.length }, json: JSON.stringify({ k: SECRET, n: text.length }) };
  assert.deepEqual(await redactOutput(r, output), r.output(output));
  const small = { stdout: `a ${SECRET}`, stderr: "" };
  assert.deepEqual(await redactValue(r, small, 10), { stdout: "a [REDACTED]", stderr: "" });
});

test("a shell call printing megabytes: a timer set as its script ends fires before its redacted result comes back (the redaction does not hold the process)", async (t) => {
  const order: string[] = [];
  const ts = await createToolShell({
    config: { mcpServers: { s: { command: process.execPath, args: ["-e", "0"], env: { KEY: SECRET }, load: "on_demand" } } },
    tools: { mark: defineTool({ description: "Sets a timer.", inputSchema: z.object({}), hints: { readOnly: true }, execute: () => (setTimeout(() => order.push("timer"), 0), "marked") }) },
  });
  t.after(() => ts.close());
  const r = await ts.session().bash(`s='%2541&#65;QUJD '; for i in $(seq 17); do s=$s$s; done; echo "$s"; echo ${SECRET}; tools mark >/dev/null`);
  order.push("result");
  assert.equal(r.exit_code, 0, r.stderr);
  assert.ok(r.stdout.length > OFF_THREAD_CHARS);
  assert.match(r.stdout, /\n\[REDACTED\]\n$/);
  assert.deepEqual(order, ["timer", "result"]);
});

test("a tool answering an object of megabytes (no text of its own): its value is redacted off the main thread, every form; a timer set as it returns fires before the call's event", async (t) => {
  const order: string[] = [];
  const blob = "%2541&#65;QUJD ".repeat(Math.ceil((OFF_THREAD_CHARS + 1000) / 15));
  const ts = await createToolShell({
    config: { mcpServers: { s: { command: process.execPath, args: ["-e", "0"], env: { KEY: SECRET }, load: "on_demand" } } },
    tools: {
      dump: defineTool({ description: "Answers a large object.", inputSchema: z.object({}), hints: { readOnly: true }, execute: () => (setTimeout(() => order.push("timer"), 0), { blob, forms: FORMS }) }),
    },
    // The call's event follows its redaction: a timer set as the tool returned fires first only
    // when the redaction let the event loop go.
    onEvent: (e) => void (e.type === "tool.nested_call" && order.push("event")),
  });
  t.after(() => ts.close());
  const r = await ts.session().bash("tools dump | jq -c '.forms'");
  assert.equal(r.exit_code, 0, r.stderr);
  // As on the main thread: each form redacted (the base64 one as base64 of "[REDACTED]").
  assert.equal(r.stdout, `${JSON.stringify(createRedactor([SECRET]).value(FORMS))}\n`);
  assert.doesNotMatch(r.stdout, /sk_live|c2tfbGl2Z|%73|&#115;/);
  assert.deepEqual(order, ["timer", "event"]);
});
