/**
 * The person behind a shell call, end to end with a real SDK server (the feature fixture over
 * stdio, a Streamable HTTP fixture on 127.0.0.1) and the real shell: upstream progress reaches
 * the person and the session's events; an upstream question is asked of the person (answer
 * checked against its schema) or declined with a clear `tool_error` when nobody can answer;
 * integers beyond 2^53 keep every digit through `tools` and `jq`, with redaction still applied.
 */
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import type { AskedQuestion, CallProgress, Person } from "../../src/call/index.js";
import { createToolShell, type ToolShell } from "../../src/index.js";
import { FEATURE_BIG_ID, FEATURE_SERVER, HTTP_BIG_ID, startBigIntHttpServer, tsxCommand } from "../fixtures/mcp/index.js";

const SECRET = "sekrit-api-token-0123456789";

async function featureShell(t: { after: (fn: () => Promise<unknown>) => void }, env: Record<string, string> = {}): Promise<ToolShell> {
  const dir = mkdtempSync(path.join(tmpdir(), "ts-person-"));
  const shell = await createToolShell({ config: { mcpServers: { feature: { ...tsxCommand(FEATURE_SERVER), env: { API_TOKEN: SECRET, ...env } } }, logDir: path.join(dir, "logs") } });
  t.after(() => shell.close());
  return shell;
}

test("upstream progress reaches the person and the session's events; every nested call starts and ends for the person", async (t) => {
  const shell = await featureShell(t);
  const session = shell.session("p1");
  const seen: CallProgress[] = [];
  const r = await session.bash("tools feature steps n=3\ntools feature steps n=1", { person: { progress: (p) => seen.push(p) } });
  assert.equal(r.exit_code, 0, r.stderr);
  assert.equal(r.stdout, "3 steps\n1 steps\n");
  assert.deepEqual(
    seen.map((p) => `${p.phase} ${p.command}${p.progress !== undefined ? ` ${p.progress}/${p.total} ${p.message}` : ""}${p.status ? ` ${p.status}` : ""}`),
    [
      "started tools feature steps",
      "progress tools feature steps 1/3 step 1",
      "progress tools feature steps 2/3 step 2",
      "progress tools feature steps 3/3 step 3",
      "ended tools feature steps completed",
      "started tools feature steps",
      "progress tools feature steps 1/1 step 1",
      "ended tools feature steps completed",
    ],
  );
  const events = session.events.filter((e) => e.type === "tool.progress");
  assert.equal(events.length, 4);
  assert.deepEqual(
    { ...events[0], at: undefined },
    { type: "tool.progress", session_id: "p1", at: undefined, call_id: "call_bash_1:tools:0:steps", parent_tool_call_id: "call_bash_1", command: "tools feature steps", progress: 1, total: 3, message: "step 1" },
  );
});

test("an upstream question is asked of the person; accept, decline, an answer off the schema, and nobody to ask", async (t) => {
  const shell = await featureShell(t);
  const asked: AskedQuestion[] = [];
  const answering = (answer: Awaited<ReturnType<NonNullable<Person["ask"]>>>): Person => ({
    ask: async (q) => {
      asked.push(q);
      return answer;
    },
  });
  const session = shell.session("q1");
  const ok = await session.bash(`tools feature ask message=$'Which name?\\u202e evil'`, { person: answering({ action: "accept", content: { name: "Ada", count: 3 } }) });
  assert.equal(ok.exit_code, 0, ok.stderr);
  assert.equal(ok.stdout, 'answer: {"name":"Ada","count":3}\n');
  assert.equal(asked.length, 1);
  assert.equal(asked[0].server, "feature");
  assert.equal(asked[0].command, "tools feature ask");
  assert.equal(asked[0].message, "Which name?\u202e evil", "the message as the server sent it; surfaces show it escaped");
  assert.deepEqual(asked[0].requestedSchema.required, ["name"]);
  assert.deepEqual(
    session.events.filter((e) => e.type.startsWith("question.")).map((e) => e.type + ("action" in e ? ` ${e.action}` : "")),
    ["question.asked", "question.answered accept"],
  );

  const declined = await session.bash("tools feature ask", { person: answering({ action: "decline" }) });
  assert.equal(declined.exit_code, 1);
  assert.deepEqual(JSON.parse(declined.stderr.trim()), { error: { code: "tool_error", message: "the person did not answer (decline)", retryable: false } });

  // An accepted answer that breaks the schema (count must be an integer ≥ 1) is never sent as is.
  const off = await session.bash("tools feature ask", { person: answering({ action: "accept", content: { name: "Ada", count: 0 } }) });
  assert.equal(off.exit_code, 1);
  const offError = JSON.parse(off.stderr.trim()).error;
  assert.equal(offError.code, "tool_error");
  assert.match(offError.message, /the person did not answer \(decline\)\n\(toolshell: the server asked the person a question and it was declined: the answer does not match the question's schema: .*count/);

  const nobody = await session.bash("tools feature ask");
  const nobodyError = JSON.parse(nobody.stderr.trim()).error;
  assert.equal(nobodyError.code, "tool_error");
  assert.match(nobodyError.message, /declined: nobody can answer questions here/);
});

test("integers beyond 2^53 from a stdio server keep every digit through tools and jq; secrets are still redacted", async (t) => {
  const shell = await featureShell(t);
  const session = shell.session("b1");
  const r = await session.bash("tools feature big | jq .id\ntools feature big | jq -c .nested\ntools feature big");
  assert.equal(r.exit_code, 0, r.stderr);
  const [id, nested, whole] = r.stdout.trimEnd().split("\n");
  assert.equal(id, FEATURE_BIG_ID);
  assert.equal(nested, `{"ids":[${FEATURE_BIG_ID}],"small":7}`);
  assert.equal(whole, `{"id":${FEATURE_BIG_ID},"token":"[REDACTED]","nested":{"ids":[${FEATURE_BIG_ID}],"small":7}}`);
  assert.equal(r.stdout.includes(SECRET), false);
  // A script that changes the value prints what it computed, not the server's text.
  const changed = await session.bash("tools feature big | jq '.nested.small + 1'");
  assert.equal(changed.stdout, "8\n");
});

for (const json of [false, true]) {
  test(`integers beyond 2^53 from a Streamable HTTP server (${json ? "JSON" : "SSE"} answers) keep every digit`, async (t) => {
    const server = await startBigIntHttpServer(json);
    t.after(() => server.close());
    const dir = mkdtempSync(path.join(tmpdir(), "ts-bigh-"));
    const shell = await createToolShell({ config: { mcpServers: { h: { type: "http", url: server.url } }, logDir: path.join(dir, "logs") } });
    t.after(() => shell.close());
    const r = await shell.session("h1").bash("tools h big | jq .id\ntools h big");
    assert.equal(r.exit_code, 0, r.stderr);
    assert.equal(r.stdout, `${HTTP_BIG_ID}\n{"id":${HTTP_BIG_ID}}\n`);
  });
}
