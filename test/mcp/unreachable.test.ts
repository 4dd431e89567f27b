/**
 * A remote MCP server that cannot be reached says so, with the network's reason (a refused
 * connection, an unknown host), instead of "no MCP protocol version was agreed" — the version
 * probe is only the first request that failed. Real fetches on 127.0.0.1 and to a `.invalid`
 * host (RFC 2606: never resolves). See docs/mcp.md.
 */
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { test } from "node:test";
import { createToolShell } from "../../src/index.js";

/** A port on 127.0.0.1 that nothing listens on: one the system gave out, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

test("an unreachable server's error names the reason: refused connection, unknown host", async (t) => {
  const port = await closedPort();
  const shell = await createToolShell({ config: { mcpServers: { refused: { url: `http://127.0.0.1:${port}/mcp` }, nowhere: { url: "http://toolshell-test.invalid/mcp" } } } });
  t.after(() => shell.close());
  const r = await shell.session().bash("tools refused x; tools nowhere x");
  const [refused, nowhere] = r.stderr.trim().split("\n").map((line) => JSON.parse(line).error as { code: string; message: string; retryable: boolean });
  assert.equal(refused.code, "unavailable");
  assert.match(refused.message, /MCP server "refused" could not be reached: .*ECONNREFUSED/);
  assert.equal(refused.retryable, true);
  assert.match(nowhere.message, /MCP server "nowhere" could not be reached: .*(ENOTFOUND|EAI_AGAIN) toolshell-test\.invalid/);
  assert.doesNotMatch(refused.message + nowhere.message, /no MCP protocol version was agreed/);
});
