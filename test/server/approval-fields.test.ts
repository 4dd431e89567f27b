/**
 * The API's pending approval entries list the fields of the OpenAPI document's `ApprovalRequest`
 * (README → The HTTP API): the internal `subject` (a server tool's command bound to its server's
 * identity, with a NUL between them) is never listed. Real host, real HTTP on 127.0.0.1, the
 * memory MCP server over stdio.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { openHost, startApi } from "../../src/server/index.js";
import { apiCaller } from "../fixtures/api-call.js";
import { NPM_SERVERS } from "../fixtures/mcp/index.js";

const TOKEN = "test-token-0123456789abcdef";

test("GET /v1/approvals and /v1/sessions/{id}/tool-approvals: a server tool's request has no `subject`", async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), "toolshell-approval-fields-"));
  const host = await openHost({
    store: path.join(dir, "state.db"),
    config: { server: { tokens: [TOKEN] }, mcpServers: { memory: { command: NPM_SERVERS.memory, env: { MEMORY_FILE_PATH: path.join(dir, "m.jsonl") }, trust: true } } },
  });
  const api = await startApi(host, { host: "127.0.0.1", port: 0 });
  t.after(async () => {
    await api.close();
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const call = apiCaller(api.url, TOKEN);
  await call("POST", "/v1/sessions", { id: "mem" });
  const stopped = await call("POST", "/v1/sessions/mem/bash", { script: `tools memory delete-entities entityNames='["a"]'` });
  assert.equal(stopped.json.tools?.stopped?.reason, "needs_approval", JSON.stringify(stopped.json));
  // The stored request does carry the bound subject: the API must leave it out.
  const stored = await host.store.pendingApprovals();
  assert.ok(String(stored[0]?.subject).startsWith("tools memory delete-entities\u0000"), String(stored[0]?.subject));
  for (const route of ["/v1/approvals", "/v1/sessions/mem/tool-approvals"]) {
    const r = await call("GET", route);
    assert.equal(r.status, 200, JSON.stringify(r.json));
    assert.equal(r.json.pending.length, 1, route);
    const p = r.json.pending[0];
    assert.equal(p.tool, "tools memory delete-entities");
    assert.equal("subject" in p, false, `${route} lists subject: ${JSON.stringify(p.subject)}`);
    assert.ok(!JSON.stringify(r.json).includes("\\u0000"), `${route} has a NUL`);
  }
});
