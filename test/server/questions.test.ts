/**
 * The HTTP API (a real host and API on 127.0.0.1) with the feature fixture behind it: a
 * question an upstream server asks during a shell call waits at `GET /v1/sessions/{id}/questions`
 * (and `/v1/questions`), an answer off its schema is refused with 400 and the question keeps
 * waiting, the person's answer reaches the server; upstream progress is a `tool.progress` event
 * in `GET /v1/sessions/{id}/events`.
 */
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { openHost, startApi } from "../../src/server/index.js";
import { apiCaller } from "../fixtures/api-call.js";
import { FEATURE_SERVER, tsxCommand } from "../fixtures/mcp/index.js";

const TOKEN = "test-token-questions-0123456789";

test("a server's question waits over the HTTP API and is answered there; progress is a session event", async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), "toolshell-questions-"));
  const host = await openHost({ store: path.join(dir, "state.db"), config: { mcpServers: { feature: tsxCommand(FEATURE_SERVER) }, server: { tokens: [TOKEN] }, logDir: path.join(dir, "logs") } });
  t.after(() => host.close());
  const api = await startApi(host, { host: "127.0.0.1", port: 0 });
  t.after(() => api.close());
  const call = apiCaller(api.url, TOKEN);
  assert.equal((await call("POST", "/v1/sessions", { id: "s1" })).status, 201);

  const running = call("POST", "/v1/sessions/s1/bash", { script: "tools feature steps n=2 >/dev/null\ntools feature ask message=$'Which name?\\x1b[2J'" });
  // The shell call waits for the person: its question is listed once the server asked it.
  let pending: any[] = [];
  while (pending.length === 0) {
    pending = (await call("GET", "/v1/sessions/s1/questions")).json.pending;
    if (pending.length === 0) await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(pending.length, 1);
  const q = pending[0];
  assert.equal(q.session_id, "s1");
  assert.equal(q.server, "feature");
  assert.equal(q.command, "tools feature ask");
  assert.equal(q.message, "Which name?\u001b[2J");
  assert.equal(q.display.text, 'MCP server feature asks (during tools feature ask):\n> "Which name?\\u001b[2J"', "shown escaped: a terminal escape never reaches a person raw");
  assert.match(q.display.warnings[0], /U\+001B/);
  assert.deepEqual(q.requested_schema.required, ["name"]);
  assert.deepEqual((await call("GET", "/v1/questions")).json.pending.map((x: { question_id: string }) => x.question_id), [q.question_id]);

  const bad = await call("POST", "/v1/sessions/s1/questions", { question_id: q.question_id, action: "accept", content: { count: 2 } });
  assert.equal(bad.status, 400);
  assert.match(bad.json.error.message, /does not match the question's schema.*name/);
  assert.equal((await call("GET", "/v1/sessions/s1/questions")).json.pending.length, 1, "a refused answer leaves the question waiting");
  assert.equal((await call("POST", "/v1/sessions/s1/questions", { question_id: "q_nope", action: "decline" })).status, 404);

  const answered = await call("POST", "/v1/sessions/s1/questions", { question_id: q.question_id, action: "accept", content: { name: "Ada" } });
  assert.equal(answered.status, 200, JSON.stringify(answered.json));
  assert.deepEqual(answered.json.answered, { question_id: q.question_id, action: "accept", content: { name: "Ada" } });
  assert.deepEqual(answered.json.pending, []);

  const result = (await running).json;
  assert.equal(result.exit_code, 0, result.stderr);
  assert.equal(result.stdout, 'answer: {"name":"Ada"}\n');

  const events = (await call("GET", "/v1/sessions/s1/events")).json.events as Array<Record<string, unknown>>;
  const progress = events.filter((e) => e.type === "tool.progress");
  assert.deepEqual(progress.map((e) => [e.command, e.progress, e.total, e.message]), [
    ["tools feature steps", 1, 2, "step 1"],
    ["tools feature steps", 2, 2, "step 2"],
  ]);
  assert.deepEqual(events.filter((e) => String(e.type).startsWith("question.")).map((e) => [e.type, e.question_id, e.action]), [
    ["question.asked", q.question_id, undefined],
    ["question.answered", q.question_id, "accept"],
  ]);
});
