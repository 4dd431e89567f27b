/**
 * McpServerSource over HTTP: Streamable HTTP with configured headers, the HTTP+SSE fallback,
 * 401/403 → connection_required, a refused connection → unavailable.
 */
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { after, test } from "node:test";
import { ToolCallError } from "../../src/tool/types.js";
import { startSseOnlyServer, startStatusServer, startStreamableHttpServer, type RunningServer } from "../fixtures/mcp/index.js";
import { call, closeAll, rejection, sourceFor, tool } from "./helpers.js";

const servers: RunningServer[] = [];
after(async () => {
  await closeAll();
  await Promise.all(servers.map((s) => s.close()));
});
async function started(server: Promise<RunningServer>): Promise<RunningServer> {
  const running = await server;
  servers.push(running);
  return running;
}

test("Streamable HTTP: lists and calls, sending the configured headers", async () => {
  const http = await started(startStreamableHttpServer());
  const source = sourceFor("web", { url: http.url, headers: { "X-Api-Key": "k-123" } });
  await source.load();
  assert.equal(source.state(), "ready");
  assert.equal(source.pid(), undefined);
  assert.deepEqual(tool(source, "echo").hints, { readOnly: true });
  assert.equal((await call(source, "echo", { text: "over http" })).text, "echo: over http");
  const posts = http.requests.filter((r) => r.method === "POST");
  assert.ok(posts.length >= 3);
  for (const post of posts) assert.equal(post.headers["x-api-key"], "k-123");
});

test("an HTTP+SSE-only server is reached through the fallback", async () => {
  const sse = await started(startSseOnlyServer());
  const source = sourceFor("old", { url: sse.url });
  await source.load();
  assert.equal((await call(source, "echo", { text: "over sse" })).text, "echo: over sse");
  assert.ok(sse.requests.some((r) => r.method === "POST" && r.path === "/sse"), "Streamable HTTP was tried first");
  assert.ok(sse.requests.some((r) => r.method === "GET" && r.path === "/sse"), "then the SSE stream was opened");
});

test('type "sse" goes straight to HTTP+SSE', async () => {
  const sse = await started(startSseOnlyServer());
  const source = sourceFor("old", { type: "sse", url: sse.url });
  await source.load();
  assert.equal((await call(source, "echo", { text: "direct" })).text, "echo: direct");
  assert.equal(sse.requests.some((r) => r.method === "POST" && r.path === "/sse"), false);
});

for (const status of [401, 403]) {
  test(`HTTP ${status} answers connection_required naming the server`, async () => {
    const http = await started(startStatusServer(status));
    const source = sourceFor("github", { url: http.url });
    const error = await rejection(() => source.load());
    assert.ok(error instanceof ToolCallError);
    assert.equal(error.code, "connection_required");
    assert.equal(error.retryable, false);
    assert.match(error.message, new RegExp(`"github".*HTTP ${status}`));
    assert.equal(source.state(), "failed");
    assert.equal(source.failure(), error);
  });
}

test("a refused connection answers unavailable, retryable", async () => {
  const port = await freePort();
  const source = sourceFor("down", { url: `http://127.0.0.1:${port}/mcp` });
  const error = await rejection(() => source.load());
  assert.ok(error instanceof ToolCallError);
  assert.equal(error.code, "unavailable");
  assert.equal(error.retryable, true);
  assert.match(error.message, /"down"/);
});

/** A port nothing listens on (bound, then released). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
