/**
 * On the 2026-07-28 era every HTTP request names itself in headers (spec 2026-07-28 "Transports"
 * → Streamable HTTP: `Mcp-Method`, and `Mcp-Name` for the calls that name a tool, prompt or
 * resource; the SDK's transport derives them from the request's `_meta` envelope). A real
 * 2026-only server built on the SDK's v2 line records what each POST carried.
 */
import assert from "node:assert/strict";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { after, test } from "node:test";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { toNodeHandler } from "@modelcontextprotocol/node";
import { z } from "zod";
import { call, closeAll, sourceFor } from "./helpers.js";

interface Seen {
  method: string;
  headers: IncomingHttpHeaders;
}

/** A 2026-only Streamable HTTP server with one tool, `echo {text}`; `seen` holds each POST's JSON-RPC method and headers. */
async function recordingServer(): Promise<{ url: string; seen: Seen[]; close: () => Promise<void> }> {
  const seen: Seen[] = [];
  const build = () => {
    const server = new McpServer({ name: "headers", version: "1.0.0" }, { capabilities: { tools: {} } });
    server.registerTool("echo", { description: "Echoes", inputSchema: z.object({ text: z.string() }) }, ({ text }) => ({ content: [{ type: "text", text: `echo: ${text}` }] }));
    return server;
  };
  const listener = toNodeHandler(createMcpHandler(build, { legacy: "reject" }));
  const http = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { method?: string };
        if (typeof body.method === "string") seen.push({ method: body.method, headers: req.headers });
      } catch {
        // not a JSON body (a GET): nothing to record
      }
    });
    void Promise.resolve(listener(req as never, res as never)).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

const server = await recordingServer();
after(async () => {
  await closeAll();
  await server.close();
});

test("2026 era over HTTP: each request carries Mcp-Method, and a tools/call its tool in Mcp-Name", async () => {
  const source = sourceFor("hdr", { url: server.url });
  await source.load();
  assert.equal((await call(source, "echo", { text: "hi" })).text, "echo: hi");
  const methods = server.seen.map((s) => s.method);
  assert.ok(methods.includes("server/discover"), `methods seen: ${methods.join(", ")}`);
  assert.ok(!methods.includes("initialize"), "a 2026 server is not sent initialize");
  for (const request of server.seen) {
    assert.equal(request.headers["mcp-method"], request.method, `Mcp-Method of ${request.method}`);
    assert.equal(request.headers["mcp-protocol-version"], "2026-07-28", `MCP-Protocol-Version of ${request.method}`);
    assert.equal(request.headers["mcp-session-id"], undefined, "no session id on the 2026 era");
  }
  const toolCall = server.seen.find((s) => s.method === "tools/call");
  assert.ok(toolCall, `methods seen: ${methods.join(", ")}`);
  assert.equal(toolCall.headers["mcp-name"], "echo");
  const list = server.seen.find((s) => s.method === "tools/list");
  assert.ok(list);
  assert.equal(list.headers["mcp-name"], undefined, "tools/list names nothing");
});
