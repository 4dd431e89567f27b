/**
 * The server log writer (src/mcp/log.ts): every text goes through the redactor before the file —
 * a secret split across two reads of stderr, a line not ended when the stream ends, the
 * stderr tail of a start failure cut at its bound — and a text the redactor fails on is written
 * as a fixed line, with nothing of it. Controls: the words around each secret are written.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { PassThrough } from "node:stream";
import { test } from "node:test";
import { createRedactor } from "../../src/call/index.js";
import { ServerLog, UNREDACTED_LINE, type LogRedactor } from "../../src/mcp/log.js";
import { tempDir } from "../fixtures/temp.js";

const SECRET = "sk-live-Zq81Pw55Xy20";

/** Writes `chunks` to a stderr attached to a fresh log, ends it, closes the log and returns the file's text. */
async function logged(t: { after(fn: () => void): void }, chunks: string[], redactor: LogRedactor = createRedactor([SECRET])): Promise<string> {
  const file = path.join(tempDir(t, "toolshell-log-"), "s.log");
  const log = new ServerLog(file, redactor);
  const stderr = new PassThrough();
  log.attach(stderr);
  for (const c of chunks) stderr.write(Buffer.from(c));
  await new Promise((resolve) => {
    stderr.on("end", resolve);
    stderr.end();
    stderr.resume();
  });
  log.line(`start failed: key ${SECRET} refused`);
  await log.close();
  return readFileSync(file, "utf8");
}

test("a secret split across two reads of stderr, and one in a last line without its end, is redacted in the log; control: the words around it are there", async (t) => {
  const text = await logged(t, [`connecting with key ${SECRET.slice(0, 9)}`, `${SECRET.slice(9)} as alice\nlast words ${SECRET.slice(0, 4)}`, `${SECRET.slice(4)} bye`]);
  assert.ok(!text.includes(SECRET.slice(6)), text);
  assert.match(text, /^connecting with key \[REDACTED\] as alice$/m);
  assert.match(text, /^last words \[REDACTED\] bye/m);
  assert.match(text, /toolshell: start failed: key \[REDACTED\] refused\n/, "toolshell's own line, redacted");
});

test("a text the redactor fails on is written as a fixed line with nothing of it; control: the next line is written", async (t) => {
  const real = createRedactor([SECRET]);
  const failing = {
    text: (s: string) => {
      if (s.includes("deep")) throw new RangeError(`Maximum call stack size exceeded near ${SECRET}`);
      return real.text(s);
    },
  };
  const text = await logged(t, [`deep value ${SECRET}\n`, "plain words\n"], failing);
  assert.ok(!text.includes(SECRET) && !text.includes("deep") && !text.includes("Maximum"), text);
  assert.ok(text.includes(`toolshell: ${UNREDACTED_LINE}\n`), text);
  assert.match(text, /^plain words$/m);
});

test("the stderr tail of a start failure never keeps part of a line its bound cut, so no piece of a secret escapes the redactor; control: the line after it is kept", async (t) => {
  const log = new ServerLog(path.join(tempDir(t, "toolshell-log-"), "s.log"), createRedactor([SECRET]));
  const stderr = new PassThrough();
  log.attach(stderr);
  // 2,000 characters are kept: the cut falls inside the secret of the first line (a line over
  // 300 characters, as the second, is never quoted; the lines around it are).
  const first = `key ${SECRET}\n`;
  const last = "Error: the database refused the key\n";
  const after = `${"x".repeat(2000 - last.length - (first.length - 14) - 1)}\n${last}`;
  const cutAt = first.length + after.length - 2000;
  assert.equal(cutAt, 14, "precondition: the bound cuts the secret");
  stderr.write(first + after);
  await new Promise((resolve) => setImmediate(resolve));
  const tail = log.tail();
  assert.ok(!tail.includes(SECRET.slice(cutAt - 4)), tail);
  assert.match(tail, /Error: the database refused the key/);
  await log.close();
});
