/**
 * The person behind a shell call as a local tool reaches it (`ctx.reportProgress`, `ctx.ask`):
 * progress is a `tool.progress` event and reaches the person's `progress`; a question goes to the
 * person's `ask` and its answer is checked against the schema; without a person it is declined.
 * The real pipeline, session and shell (no MCP server needed).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { z } from "zod";
import type { CallProgress } from "../../src/call/index.js";
import { createToolShell, defineTool } from "../../src/index.js";

const counter = defineTool({
  name: "count_to",
  description: "Counts to n, reporting each step; then asks which colour",
  inputSchema: z.object({ n: z.number() }),
  hints: { readOnly: true },
  async execute({ n }, ctx) {
    for (let i = 1; i <= n; i++) ctx.reportProgress?.({ progress: i, total: n, message: `at ${i}` });
    ctx.reportProgress?.({ progress: Number.NaN });
    const answer = await ctx.ask!({ server: "local", command: "tools count-to", message: "Which colour?", requestedSchema: { type: "object", properties: { colour: { type: "string", enum: ["red", "blue"] } }, required: ["colour"] } });
    return { answer };
  },
});

test("a local tool's progress and question reach the person; a wrong answer or no person is a decline", async (t) => {
  const shell = await createToolShell({ config: { mcpServers: {} }, tools: [counter] });
  t.after(() => shell.close());
  const session = shell.session("local-person");
  const seen: CallProgress[] = [];
  const ok = await session.bash("tools count-to n=2", { person: { progress: (p) => seen.push(p), ask: async () => ({ action: "accept", content: { colour: "red" } }) } });
  assert.equal(ok.exit_code, 0, ok.stderr);
  assert.deepEqual(JSON.parse(ok.stdout), { answer: { action: "accept", content: { colour: "red" } } });
  assert.deepEqual(seen.map((p) => [p.phase, p.progress, p.message]), [
    ["started", undefined, undefined],
    ["progress", 1, "at 1"],
    ["progress", 2, "at 2"],
    ["ended", undefined, undefined],
  ], "a report without a finite progress is ignored");
  assert.equal(session.events.filter((e) => e.type === "tool.progress").length, 2);

  const wrong = await session.bash("tools count-to n=0", { person: { ask: async () => ({ action: "accept", content: { colour: "green" } }) } });
  const answer = JSON.parse(wrong.stdout).answer;
  assert.equal(answer.action, "decline");
  assert.match(answer.unanswered, /does not match the question's schema/);

  const nobody = JSON.parse((await session.bash("tools count-to n=0")).stdout).answer;
  assert.deepEqual(nobody, { action: "decline", unanswered: "nobody can answer questions here (no person is connected to this session)" });
});
