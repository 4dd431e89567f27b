/**
 * On the 2026-07-28 era every HTTP request names itself in headers (spec 2026-07-28 "Transports"
 * → Streamable HTTP: `Mcp-Method`, and `Mcp-Name` for the calls that name a tool, prompt or
 * resource; the SDK's transport derives them from the request's `_meta` envelope). A real
 * 2026-only server built on the SDK's v2 line records what each POST carried.
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { recordingServer } from "../fixtures/mcp/recording-server.js";
import { call, closeAll, sourceFor } from "./helpers.js";

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
