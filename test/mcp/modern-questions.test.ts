/**
 * A 2026-07-28 server's questions (`input_required` results, MCP spec 2026-07-28 "Multi
 * Round-Trip Requests") reach the person behind the call, over stdio and Streamable HTTP, against
 * a real server built on the SDK's v2 line that speaks 2026-07-28 only
 * (test/fixtures/mcp/modern-server.ts): a form answered gives the tool's result (retried with the
 * answer and the server's `requestState`), a declined one the tool's answer to that; a URL-mode
 * question shows its address to the person only, and an unsafe address is refused before anyone
 * is asked.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { describeQuestion } from "../../src/call/index.js";
import type { InvokeContext, Question, QuestionAnswer } from "../../src/tool/index.js";
import { tsxCommand } from "../fixtures/mcp/index.js";
import { call, closeAll, ctx, sourceFor } from "./helpers.js";

const MODERN_SERVER = path.join(path.dirname(fileURLToPath(import.meta.url)), "../fixtures/mcp/modern-server.ts");
const stops: Array<() => void> = [];
after(async () => {
  await closeAll();
  for (const stop of stops) stop();
});

async function httpUrl(): Promise<string> {
  const cmd = tsxCommand(MODERN_SERVER, ["--http"]);
  const child = spawn(cmd.command, cmd.args, { stdio: ["ignore", "pipe", "inherit"] });
  stops.push(() => child.kill());
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`modern server exited ${code}`)));
    child.stdout.on("data", (d: Buffer) => {
      const m = /listening (\S+)/.exec(String(d));
      if (m) resolve(m[1]);
    });
  });
}

/** A context whose person answers every question with `answer`, keeping what they were asked. */
function person(answer: QuestionAnswer): { context: InvokeContext; asked: Question[] } {
  const asked: Question[] = [];
  return { asked, context: { ...ctx(), ask: async (q) => (asked.push(q), answer) } };
}

for (const transport of ["stdio", "http"] as const) {
  const entry = async () => (transport === "stdio" ? tsxCommand(MODERN_SERVER) : { url: await httpUrl() });

  test(`${transport}: a 2026 server's form question is answered by the person and the call retried with the answer and requestState`, async () => {
    const source = sourceFor(`q-${transport}`, await entry());
    await source.load();
    const { context, asked } = person({ action: "accept", content: { name: "Ada" } });
    assert.equal((await call(source, "greet", {}, context)).text, "hello Ada (state round-1)");
    assert.equal(asked.length, 1);
    assert.equal(asked[0].message, "What is your name?");
    assert.equal(asked[0].url, undefined);
  });

  test(`${transport}: a declined form question gives the tool's own answer`, async () => {
    const source = sourceFor(`d-${transport}`, await entry());
    await source.load();
    const { context } = person({ action: "decline" });
    assert.equal((await call(source, "greet", {}, context)).text, "no name given (decline)");
  });

  test(`${transport}: a URL-mode question shows its address to the person, and not in the call's output`, async () => {
    const source = sourceFor(`u-${transport}`, await entry());
    await source.load();
    const link = "https://pay.example.com/confirm?order=7";
    const { context, asked } = person({ action: "accept" });
    const out = await call(source, "open_link", { url: link }, context);
    assert.equal(out.text, "opened");
    assert.equal(asked.length, 1);
    assert.equal(asked[0].url, link);
    assert.deepEqual(asked[0].requestedSchema, { type: "object", properties: {} });
    const shown = describeQuestion(asked[0]).text;
    assert.ok(shown.includes(link), shown);
    assert.match(shown, /domain: pay\.example\.com/);
    assert.ok(!JSON.stringify(out).includes("pay.example.com"), "the address stays out of the output");
  });
}

for (const unsafe of ["javascript:alert(1)", "file:///etc/passwd", "http://pay.example.com/confirm", "https://user:pw@pay.example.com/"]) {
  test(`stdio: a URL-mode question with the unsafe address ${unsafe} is refused before anyone is asked`, async () => {
    const source = sourceFor("unsafe", tsxCommand(MODERN_SERVER));
    await source.load();
    const { context, asked } = person({ action: "accept" });
    const out = await call(source, "open_link", { url: unsafe }, context);
    assert.equal(out.text, "not opened (decline)");
    assert.equal(asked.length, 0);
    // The log file is written asynchronously: wait for the line.
    const refused = /elicitation declined: the server's URL-mode question gives an address that (uses|is not)/;
    for (let i = 0; i < 200 && !refused.test(readFileSync(source.logFile, "utf8")); i++) await new Promise((r) => setTimeout(r, 50));
    assert.match(readFileSync(source.logFile, "utf8"), refused);
  });
}

test("http on this machine is an address a person may be sent to", async () => {
  const source = sourceFor("loopback", tsxCommand(MODERN_SERVER));
  await source.load();
  const { context, asked } = person({ action: "decline" });
  assert.equal((await call(source, "open_link", { url: "http://127.0.0.1:8080/pay" }, context)).text, "not opened (decline)");
  assert.equal(asked[0]?.url, "http://127.0.0.1:8080/pay");
});
