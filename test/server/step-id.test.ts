/**
 * Step ids over the HTTP API as docs/sessions.md writes them: `turn-3/bash-1` is a step id (the
 * same as `session.bash(script, { stepId })` takes); asked again it returns the recorded result
 * without running; a malformed one gets a clear 400.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { defineTool } from "../../src/index.js";
import { openHost, startApi } from "../../src/server/index.js";
import { apiCaller } from "../fixtures/api-call.js";

const TOKEN = "test-token-0123456789abcdef";

test("a step id with / (turn-3/bash-1) is a durable step over HTTP; a malformed one is refused", async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), "toolshell-step-id-"));
  let runs = 0;
  const host = await openHost({
    store: path.join(dir, "state.db"),
    config: { manageScripts: false, server: { tokens: [TOKEN] } },
    tools: { bump: defineTool({ description: "Counts.", hints: { destructive: false, openWorld: false }, inputSchema: { type: "object" }, execute: () => ({ runs: ++runs }) }) },
  });
  const api = await startApi(host, { host: "127.0.0.1", port: 0, triggers: false });
  t.after(async () => {
    await api.close();
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const call = (p: string, body: unknown) => apiCaller(api.url, TOKEN)("POST", p, body);
  assert.equal((await call("/v1/sessions", { id: "s1" })).status, 201);
  const first = await call("/v1/sessions/s1/bash", { script: "tools bump", step_id: "turn-3/bash-1" });
  assert.equal(first.status, 200, JSON.stringify(first.json));
  assert.equal(first.json.exit_code, 0);
  const again = await call("/v1/sessions/s1/bash", { script: "tools bump", step_id: "turn-3/bash-1" });
  assert.deepEqual(again.json, first.json);
  assert.equal(runs, 1, "the completed step is not run again");
  for (const bad of ["/turn-3", "turn-3//bash-1", "turn-3/", "turn 3", "x".repeat(129)]) {
    const r = await call("/v1/sessions/s1/bash", { script: "tools bump", step_id: bad });
    assert.equal(r.status, 400, bad);
    assert.match(r.json.error.message, /step_id must be/);
  }
  assert.equal(runs, 1);
});
