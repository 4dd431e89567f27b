/**
 * The AI SDK adapter driven by the AI SDK's own mock language model through generateText's
 * multi-step loop: scripts, stop reports, approvals answered through the AI SDK's tool approval,
 * direct tools with toModelOutput, and the split (what is direct, what `tools` reaches).
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { generateText, stepCountIs, streamText, type ModelMessage } from "ai";
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";
import { z } from "zod";
import { createToolshellTools } from "../../src/ai/index.js";
import { BASH_TOOL_NAME } from "../../src/gateway/index.js";
import { always, createToolShell, defineTool, type ToolShell } from "../../src/index.js";
import { SHELL_NOTES } from "../../src/shell/defaults.js";

type GenerateResult = Awaited<ReturnType<NonNullable<MockLanguageModelV4["doGenerate"]>>>;
type CallOptions = MockLanguageModelV4["doGenerateCalls"][number];
type StreamPart = Awaited<ReturnType<NonNullable<MockLanguageModelV4["doStream"]>>>["stream"] extends ReadableStream<infer P> ? P : never;

const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 5, text: 5, reasoning: undefined } };
function callTool(toolCallId: string, toolName: string, input: unknown): GenerateResult {
  return { content: [{ type: "tool-call", toolCallId, toolName, input: JSON.stringify(input) }], finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage, warnings: [] };
}
function bash(toolCallId: string, command: string): GenerateResult {
  return callTool(toolCallId, BASH_TOOL_NAME, { command });
}
function say(text: string): GenerateResult {
  return { content: [{ type: "text", text }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] };
}

/** A mock model that answers each step from a list, keeping every prompt it was given. */
function scriptedModel(steps: GenerateResult[]): MockLanguageModelV4 {
  let i = 0;
  return new MockLanguageModelV4({
    doGenerate: async () => {
      const step = steps[i++];
      if (!step) throw new Error(`the mock model has no step ${i}`);
      return step;
    },
  });
}

/** The tool results the model was shown in a prompt, by tool call id. */
function toolResults(call: CallOptions): Map<string, { type: string; value?: unknown; reason?: string }> {
  const out = new Map<string, { type: string; value?: unknown; reason?: string }>();
  for (const m of call.prompt) {
    if (m.role !== "tool") continue;
    for (const p of m.content) if (p.type === "tool-result") out.set(p.toolCallId, p.output as { type: string; value?: unknown });
  }
  return out;
}

interface Store {
  items: Array<{ id: string; name: string }>;
  deleted: string[];
  emails: string[];
}

async function makeShell(store: Store, extra: Parameters<typeof createToolShell>[0] = {}): Promise<ToolShell> {
  return createToolShell({
    config: { keepVisible: ["weather"] },
    tools: {
      list_items: defineTool({
        description: "List the items in the store.",
        inputSchema: z.object({}),
        hints: { readOnly: true },
        execute: () => store.items,
      }),
      delete_item: defineTool({
        description: "Delete one item by id.",
        inputSchema: z.object({ id: z.string() }),
        hints: { destructive: true },
        execute: ({ id }) => {
          store.deleted.push(id);
          store.items = store.items.filter((x) => x.id !== id);
          return { deleted: id };
        },
      }),
      weather: defineTool({
        description: "Current weather of a city.",
        inputSchema: z.object({ city: z.string() }),
        hints: { readOnly: true },
        execute: ({ city }) => ({ city, condition: "Sunny", temperatureF: 72, raw: "x".repeat(500) }),
        toModelOutput: (out) => ({ type: "text", value: `${out.city}: ${out.condition}, ${out.temperatureF}F` }),
      }),
      send_email: defineTool({
        description: "Send an email.",
        inputSchema: z.object({ to: z.string(), body: z.string() }),
        staysDirect: true,
        approval: always(),
        execute: ({ to }) => {
          store.emails.push(to);
          return `sent to ${to}`;
        },
      }),
      ask_user: defineTool({ description: "Ask the person a question.", inputSchema: z.object({ question: z.string() }), execute: () => "yes" }),
      secret_tool: defineTool({ description: "Not for this agent.", inputSchema: z.object({}), hints: { readOnly: true }, execute: () => "secret" }),
    },
    allowedTools: (t) => t.name !== "secret_tool",
    ...extra,
  });
}

const shells: ToolShell[] = [];
after(async () => {
  await Promise.all(shells.map((s) => s.close()));
});
async function setup(store: Store) {
  const shell = await makeShell(store);
  shells.push(shell);
  const session = shell.session();
  const tools = await createToolshellTools({ shell, session });
  return { shell, session, tools };
}
const newStore = (): Store => ({ items: [{ id: "a1", name: "alpha" }, { id: "b2", name: "beta" }], deleted: [], emails: [] });

test("the ToolSet is bash plus the direct tools; bash's description lists the sources and the shell's notes", async () => {
  const { tools } = await setup(newStore());
  assert.deepEqual(Object.keys(tools).sort(), ["ask_user", "bash", "send_email", "weather"]);
  const model = scriptedModel([say("hello")]);
  await generateText({ model, tools, prompt: "hi" });
  const sent = model.doGenerateCalls[0].tools ?? [];
  const bashTool = sent.find((t) => t.name === "bash") as { description?: string; inputSchema: Record<string, unknown> } | undefined;
  assert.ok(bashTool, "bash is sent to the model");
  assert.match(bashTool.description ?? "", /^Sources: top-level: delete-item, list-items, weather$/m);
  assert.ok((bashTool.description ?? "").includes(SHELL_NOTES.trim().split("\n")[0]), "the shell's notes are in the description");
  assert.deepEqual((bashTool.inputSchema as { required: string[] }).required, ["command"]);
  assert.equal(sent.some((t) => t.name === "list_items" || t.name === "secret_tool"), false, "tools behind `tools` and hidden tools are not listed");
});

test("a tool is never reachable through `tools` unless the agent could call it directly; direct-only tools are not in the shell", async () => {
  const { session } = await setup(newStore());
  const secret = await session.bash("tools secret-tool");
  assert.equal(secret.exit_code, 1);
  assert.match(secret.stderr, /"code":"unknown_command"/);
  const ask = await session.bash("tools ask-user question=hi");
  assert.match(ask.stderr, /"code":"unknown_command"/, "turn-control tools stay direct only");
  const kept = await session.bash("tools weather city=Oslo | jq -r .condition");
  assert.equal(kept.stdout, "Sunny\n", "keepVisible tools stay callable from the shell too");
});

test("multi-step loop: a script stops at run time, the approval is answered through the AI SDK, the new script makes the call", async () => {
  const store = newStore();
  const { session, tools } = await setup(store);
  const model = scriptedModel([
    bash("c1", `id=$(tools list-items | jq -r '.[0].id')\ntools delete-item id="$id"\necho after`),
    bash("c2", "tools delete-item id=a1 | jq -r .deleted"),
    // after the approval:
    say("Deleted a1."),
  ]);
  const messages: ModelMessage[] = [{ role: "user", content: "delete the first item" }];
  const first = await generateText({ model, tools, messages, stopWhen: stepCountIs(5) });
  // Step 1 ran the script: it stopped at the delete; the model got the stop report.
  const report = toolResults(model.doGenerateCalls[1]).get("c1");
  assert.equal(report?.type, "json");
  const r1 = report!.value as { exit_code: number; stdout: string; tools: { read_only_calls: number; stopped: { reason: string; call: { tool: string; input: unknown }; request_id: string } } };
  assert.equal(r1.exit_code, 1);
  assert.equal(r1.stdout, "", "nothing after the stopped call ran");
  assert.equal(r1.tools.stopped.reason, "needs_approval");
  assert.deepEqual(r1.tools.stopped.call, { tool: "tools delete-item", input: { id: "a1" } });
  assert.equal(r1.tools.read_only_calls, 1);
  assert.deepEqual(store.deleted, [], "the call needing approval was not made");
  // Step 2: the new script is held for the person's answer through the AI SDK's tool approval.
  const requests = first.content.filter((p) => p.type === "tool-approval-request");
  assert.equal(requests.length, 1);
  assert.equal(requests[0].toolCall.toolCallId, "c2");
  const pending = await session.pendingApprovals();
  assert.equal(pending.length, 1);
  assert.equal(pending[0].id, r1.tools.stopped.request_id);
  assert.equal(model.doGenerateCalls.length, 2);
  // The app answers: approve.
  messages.push(...first.response.messages, { role: "tool", content: [{ type: "tool-approval-response", approvalId: requests[0].approvalId, approved: true }] });
  const second = await generateText({ model, tools, messages, stopWhen: stepCountIs(5) });
  assert.equal(second.text, "Deleted a1.");
  assert.deepEqual(store.deleted, ["a1"], "the approved call ran exactly once");
  const r2 = toolResults(model.doGenerateCalls[2]).get("c2")!.value as { exit_code: number; stdout: string };
  assert.equal(r2.exit_code, 0);
  assert.equal(r2.stdout, "a1\n");
  assert.equal((await session.pendingApprovals()).length, 0);
  const answered = session.events.filter((e) => e.type === "approval.answered");
  assert.deepEqual(answered.map((e) => (e as { decision?: string }).decision), ["allow"]);
  // Who answered, through which surface (the session's client when the app names no one).
  assert.deepEqual(answered.map((e) => [(e as { surface?: string }).surface, (e as { by?: string }).by]), [["ai-sdk", "app"]]);
  // The one-off allow was used: the same call asks again.
  const again = await session.bash("tools delete-item id=b2");
  assert.equal(again.tools?.stopped?.before_start, true);
});

test("a literal call that needs approval holds the same bash call; nothing runs until the answer", async () => {
  const store = newStore();
  const { session, tools } = await setup(store);
  const model = scriptedModel([bash("c1", "echo start > started.txt\ntools delete-item id=b2 | jq -r .deleted"), say("done")]);
  const messages: ModelMessage[] = [{ role: "user", content: "delete b2" }];
  const first = await generateText({ model, tools, messages, stopWhen: stepCountIs(3) });
  const req = first.content.find((p) => p.type === "tool-approval-request");
  assert.ok(req && req.toolCall.toolCallId === "c1");
  assert.equal((await session.bash("test -e started.txt && echo yes || echo no")).stdout, "no\n", "the script did not start");
  const pending = await session.pendingApprovals();
  assert.equal(pending.length, 1);
  assert.equal(pending[0].tool, "tools delete-item");
  assert.deepEqual(pending[0].input, { id: "b2" });
  messages.push(...first.response.messages, { role: "tool", content: [{ type: "tool-approval-response", approvalId: req.approvalId, approved: true, reason: "allow_always" }] });
  await generateText({ model, tools, messages, stopWhen: stepCountIs(3) });
  assert.deepEqual(store.deleted, ["b2"]);
  const r = toolResults(model.doGenerateCalls[1]).get("c1")!.value as { stdout: string; exit_code: number };
  assert.equal(r.stdout, "b2\n");
  // allow_always covers the tool for the session: another delete runs without asking.
  const more = await session.bash("tools delete-item id=zz | jq -r .deleted");
  assert.equal(more.stdout, "zz\n", more.stderr);
});

test("a denial through the AI SDK is stored as reject: the model is told, and the refused call is not made", async () => {
  const store = newStore();
  const { session, tools } = await setup(store);
  const model = scriptedModel([bash("c1", "tools delete-item id=a1"), bash("c2", "tools delete-item id=a1"), say("ok")]);
  const messages: ModelMessage[] = [{ role: "user", content: "delete a1" }];
  const first = await generateText({ model, tools, messages, stopWhen: stepCountIs(4) });
  const req = first.content.find((p) => p.type === "tool-approval-request")!;
  messages.push(...first.response.messages, { role: "tool", content: [{ type: "tool-approval-response", approvalId: req.approvalId, approved: false, reason: "not today" }] });
  await generateText({ model, tools, messages, stopWhen: stepCountIs(4) });
  const denied = toolResults(model.doGenerateCalls[1]).get("c1");
  assert.equal(denied?.type, "execution-denied");
  assert.equal(denied?.reason, "not today");
  const answered = session.events.filter((e) => e.type === "approval.answered").map((e) => (e as { decision?: string }).decision);
  assert.deepEqual(answered, ["reject"]);
  const r2 = toolResults(model.doGenerateCalls[2]).get("c2")!.value as { exit_code: number; stderr: string };
  assert.equal(r2.exit_code, 1);
  assert.match(r2.stderr, /"code":"denied"/);
  assert.deepEqual(store.deleted, []);
});

test("direct tools: toModelOutput shapes what the model sees; a direct tool's own approval goes through the AI SDK", async () => {
  const store = newStore();
  const { tools } = await setup(store);
  const model = scriptedModel([
    callTool("w1", "weather", { city: "Oslo" }),
    callTool("e1", "send_email", { to: "ana@example.com", body: "hi" }),
    say("sent"),
  ]);
  const messages: ModelMessage[] = [{ role: "user", content: "weather, then mail" }];
  const first = await generateText({ model, tools, messages, stopWhen: stepCountIs(5) });
  assert.deepEqual(toolResults(model.doGenerateCalls[1]).get("w1"), { type: "text", value: "Oslo: Sunny, 72F" });
  const req = first.content.find((p) => p.type === "tool-approval-request");
  assert.ok(req && req.toolCall.toolName === "send_email");
  assert.deepEqual(store.emails, []);
  messages.push(...first.response.messages, { role: "tool", content: [{ type: "tool-approval-response", approvalId: req.approvalId, approved: true }] });
  await generateText({ model, tools, messages, stopWhen: stepCountIs(5) });
  assert.deepEqual(store.emails, ["ana@example.com"]);
  assert.deepEqual(toolResults(model.doGenerateCalls[2]).get("e1"), { type: "text", value: "sent to ana@example.com" });
});

test("bad bash input and a script error come back as results, never as a thrown error", async () => {
  const { tools } = await setup(newStore());
  const model = scriptedModel([callTool("b1", "bash", { command: "exit 3", timeout_ms: 5 }), bash("b2", "echo oops >&2; exit 4"), say("ok")]);
  await generateText({ model, tools, prompt: "go", stopWhen: stepCountIs(4) });
  const results = toolResults(model.doGenerateCalls[2]);
  const bad = results.get("b1")!.value as { exit_code: number; stderr: string };
  assert.equal(bad.exit_code, 2);
  assert.match(bad.stderr, /`timeout_ms` must be a whole number from 100 to 120000/);
  const r = results.get("b2")!.value as { exit_code: number; stderr: string };
  assert.equal(r.exit_code, 4);
  assert.equal(r.stderr, "oops\n");
});

test("streamText: the same tools stream a stopped script into an approval request, and run it once approved", async () => {
  const store = newStore();
  const { session, tools } = await setup(store);
  const finish = { type: "finish" as const, finishReason: { unified: "tool-calls" as const, raw: "tool_calls" }, usage };
  const streams: StreamPart[][] = [
    [{ type: "stream-start" as const, warnings: [] }, { type: "tool-call" as const, toolCallId: "s1", toolName: "bash", input: JSON.stringify({ command: "tools delete-item id=a1 | jq -r .deleted" }) }, finish],
    [{ type: "stream-start" as const, warnings: [] }, { type: "text-start" as const, id: "t" }, { type: "text-delta" as const, id: "t", delta: "gone" }, { type: "text-end" as const, id: "t" }, { ...finish, finishReason: { unified: "stop" as const, raw: "stop" } }],
  ];
  let i = 0;
  const model = new MockLanguageModelV4({ doStream: async () => ({ stream: convertArrayToReadableStream(streams[i++]) }) });
  const messages: ModelMessage[] = [{ role: "user", content: "delete a1" }];
  const first = streamText({ model, tools, messages, stopWhen: stepCountIs(3) });
  const parts: string[] = [];
  let approvalId = "";
  for await (const p of first.fullStream) {
    parts.push(p.type);
    if (p.type === "tool-approval-request") approvalId = p.approvalId;
  }
  assert.ok(approvalId, `an approval request was streamed: ${parts.join(",")}`);
  assert.equal((await session.pendingApprovals()).length, 1);
  assert.deepEqual(store.deleted, []);
  messages.push(...(await first.response).messages, { role: "tool", content: [{ type: "tool-approval-response", approvalId, approved: true }] });
  const second = streamText({ model, tools, messages, stopWhen: stepCountIs(3) });
  assert.equal(await second.text, "gone");
  assert.deepEqual(store.deleted, ["a1"]);
});

test("createToolshellTools given a host instead of its ToolShell says so, and how to pass it; control: host.shell works", async (t) => {
  const { openHost } = await import("../../src/server/index.js");
  const host = await openHost({ store: ":memory:", config: {} });
  t.after(() => host.close());
  await assert.rejects(() => createToolshellTools({ shell: host as never, session: "h" }), (err: Error) => err instanceof TypeError && /this is a host \(openHost\); pass its ToolShell, \{ shell: host\.shell \}/.test(err.message));
  await assert.rejects(() => createToolshellTools({ shell: undefined as never, session: "h" }), /`shell` must be a ToolShell/);
  const tools = await createToolshellTools({ shell: host.shell, session: "h" });
  assert.equal(typeof tools.bash.execute, "function");
});
