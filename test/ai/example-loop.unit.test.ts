/**
 * The AI SDK loop of docs/agents.md is examples/ai-sdk-loop.ts, byte for byte, and it works with
 * ai 7 and the AI SDK's mock model: the conversation keeps every step's messages (the model's
 * prompt after an approval still holds the first step's tool call and result), and an approval
 * goes through the AI SDK's tool approval to the session.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import type { ModelMessage } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { z } from "zod";
import { agentTurn } from "../../examples/ai-sdk-loop.js";
import { createToolshellTools } from "../../src/ai/index.js";
import { always, createToolShell, defineTool } from "../../src/index.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
type GenerateResult = Awaited<ReturnType<NonNullable<MockLanguageModelV4["doGenerate"]>>>;
const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 5, text: 5, reasoning: undefined } };
const bash = (toolCallId: string, command: string): GenerateResult => ({
  content: [{ type: "tool-call", toolCallId, toolName: "bash", input: JSON.stringify({ command }) }],
  finishReason: { unified: "tool-calls", raw: "tool_calls" },
  usage,
  warnings: [],
});
const say = (text: string): GenerateResult => ({ content: [{ type: "text", text }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] });

test("docs/agents.md shows examples/ai-sdk-loop.ts as it is", () => {
  const docs = readFileSync(path.join(root, "docs/agents.md"), "utf8");
  const m = /<!-- include: examples\/ai-sdk-loop\.ts -->\n```ts\n([\s\S]*?)```\n<!-- end include -->/.exec(docs);
  assert.ok(m, "the include block is in docs/agents.md");
  assert.equal(m[1], readFileSync(path.join(root, "examples/ai-sdk-loop.ts"), "utf8"));
});

test("agentTurn keeps every step's messages across an approval and the approved call runs once", async (t) => {
  const deleted: string[] = [];
  const shell = await createToolShell({
    tools: {
      list_items: defineTool({ description: "List the items.", inputSchema: z.object({}), hints: { readOnly: true }, execute: async () => [{ id: "a1" }] }),
      delete_item: defineTool({
        description: "Delete an item.",
        inputSchema: z.object({ id: z.string() }),
        needsApproval: always(),
        execute: async ({ id }) => (deleted.push(id), { deleted: id }),
      }),
    },
  });
  t.after(() => shell.close());
  const session = shell.session("loop");
  const tools = await createToolshellTools({ shell, session });
  const steps = [bash("c1", "tools list-items | jq -r '.[0].id' > first.txt && cat first.txt"), bash("c2", "tools delete-item id=a1 | jq -r .deleted"), say("Deleted a1.")];
  let i = 0;
  const model = new MockLanguageModelV4({ doGenerate: async () => steps[i++]! });
  const shown: string[] = [];
  const messages = await agentTurn({
    model,
    tools,
    session,
    messages: [{ role: "user", content: "delete the first item" }] satisfies ModelMessage[],
    approve: async (waiting) => {
      shown.push(...waiting.map((r) => `${r.tool} ${JSON.stringify(r.input)}`));
      return true;
    },
  });
  assert.deepEqual(shown, ['tools delete-item {"id":"a1"}']);
  assert.deepEqual(deleted, ["a1"]);
  // The model's last prompt still holds step 1 (c1's call and result), not only the last step's.
  const lastPrompt = model.doGenerateCalls.at(-1)!.prompt;
  const callIds = lastPrompt.flatMap((m) => (m.role === "assistant" ? m.content.filter((p) => p.type === "tool-call").map((p) => p.toolCallId) : []));
  assert.deepEqual(callIds, ["c1", "c2"]);
  const resultIds = lastPrompt.flatMap((m) => (m.role === "tool" ? m.content.filter((p) => p.type === "tool-result").map((p) => p.toolCallId) : []));
  assert.deepEqual(resultIds, ["c1", "c2"]);
  // The conversation returned: the user's message, then every step's messages.
  assert.equal(messages[0]!.role, "user");
  const last = messages.at(-1)!;
  assert.equal(last.role, "assistant");
  assert.deepEqual(Array.isArray(last.content) ? last.content.map((p) => (p.type === "text" ? p.text : p.type)) : last.content, ["Deleted a1."]);
});
