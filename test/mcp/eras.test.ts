/**
 * The client face speaks both protocol eras: against real servers built on the SDK's v2 line
 * (test/fixtures/mcp/era-server.ts) that speak 2026-07-28 only, both eras, or the 2025 era only,
 * over stdio and Streamable HTTP, each call comes under the newest era the server speaks; a
 * server that refuses the version it was asked in says so (no fallback to HTTP+SSE hides it).
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import path from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { ToolCallError } from "../../src/tool/types.js";
import { toCallError } from "../../src/mcp/errors.js";
import { tsxCommand } from "../fixtures/mcp/index.js";
import { call, closeAll, sourceFor } from "./helpers.js";

const ERA_SERVER = path.join(path.dirname(fileURLToPath(import.meta.url)), "../fixtures/mcp/era-server.ts");
const stops: Array<() => void> = [];
after(async () => {
  await closeAll();
  for (const stop of stops) stop();
});

/** Starts the era server over Streamable HTTP; resolves with its URL. */
async function httpServer(era: string): Promise<string> {
  const cmd = tsxCommand(ERA_SERVER, [era, "--http"]);
  const child = spawn(cmd.command, cmd.args, { stdio: ["ignore", "pipe", "inherit"] });
  stops.push(() => child.kill());
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`era server exited ${code}`)));
    child.stdout.on("data", (d: Buffer) => {
      const m = /listening (\S+)/.exec(String(d));
      if (m) resolve(m[1]);
    });
  });
}

const expected: Record<string, string> = { "2026": "2026-07-28", both: "2026-07-28", "2025": "2025" };

for (const era of ["2026", "both", "2025"]) {
  test(`stdio, a server that speaks ${era}: listed and called under ${expected[era]}`, async () => {
    const source = sourceFor(`s${era}`, tsxCommand(ERA_SERVER, [era]));
    await source.load();
    assert.equal(source.state(), "ready");
    const out = JSON.parse((await call(source, "era", { note: "x" })).text ?? "") as { era: string; note: string };
    assert.deepEqual(out, { era: expected[era], note: "x" });
  });

  test(`Streamable HTTP, a server that speaks ${era}: listed and called under ${expected[era]}`, async () => {
    const url = await httpServer(era);
    const source = sourceFor(`h${era}`, { url });
    await source.load();
    const out = JSON.parse((await call(source, "era")).text ?? "") as { era: string };
    assert.equal(out.era, expected[era]);
  });
}

test("a version error names itself: a 2025-only client meeting a 2026-only HTTP server gets -32022 named, retryable false", async () => {
  const url = await httpServer("2026");
  const client = new Client({ name: "legacy-only", version: "1" });
  const error = await client.connect(new StreamableHTTPClientTransport(new URL(url))).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(error, "a 2025-only client cannot connect");
  const mapped = toCallError(error, { server: "modern", phase: "connect", timeoutMs: 1000 });
  assert.ok(mapped instanceof ToolCallError);
  assert.equal(mapped.code, "unavailable");
  assert.equal(mapped.retryable, false);
  assert.match(mapped.message, /refused the MCP protocol version \(asked in 2025-11-25\): it speaks 2026-07-28/);
  assert.doesNotMatch(mapped.message, /SSE/);
});
