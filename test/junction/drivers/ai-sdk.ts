/**
 * The AI SDK adapter as docs/agents.md wires it: `createToolshellTools` over a host's session and
 * the `agentTurn` loop of examples/ai-sdk-loop.ts, with the AI SDK's mock model playing an agent
 * that runs the script, and runs it again when it stopped for an approval (as the `bash` tool's
 * description tells it). The person answers through the loop's `approve` callback.
 *
 * The adapter gives a shell call no person (src/call/person.ts): a server's question is declined
 * (the tool's error says nobody can answer), and progress reaches the app as `tool.progress`
 * events of the session, which is how such an app shows it.
 */
import type { ModelMessage, ToolSet } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { agentTurn } from "../../../examples/ai-sdk-loop.js";
import { createToolshellTools } from "../../../src/ai/index.js";
import type { Decision, Session } from "../../../src/index.js";
import type { ListedEvent, Surface, Turn } from "../paths.js";
import { signInByMessage } from "./library.js";

type GenerateResult = Awaited<ReturnType<NonNullable<MockLanguageModelV4["doGenerate"]>>>;
type Prompt = MockLanguageModelV4["doGenerateCalls"][number]["prompt"];
const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 5, text: 5, reasoning: undefined } };

/** The last `bash` result of this turn (tool call ids starting with `prefix`) the model was shown, if any. */
function lastBashResult(prompt: Prompt, prefix: string): { type: string; value?: unknown } | undefined {
  let last: { type: string; value?: unknown } | undefined;
  for (const m of prompt) {
    if (m.role !== "tool") continue;
    for (const p of m.content) if (p.type === "tool-result" && p.toolName === "bash" && p.toolCallId.startsWith(prefix)) last = p.output as { type: string; value?: unknown };
  }
  return last;
}

export async function aiSdkSurface(session: Session, shell: Parameters<typeof createToolshellTools>[0]["shell"]): Promise<Surface> {
  let decision: Decision = "allow";
  const tools: ToolSet = await createToolshellTools({ shell, session, decision: (r) => (r.approved ? decision : "reject") });
  let turns = 0;
  // One conversation across turns, as an app keeps it: the adapter reads the person's answers there.
  let conversation: ModelMessage[] = [];
  const surface: Surface = {
    name: "AI SDK adapter",
    async turn(script, answer): Promise<Turn> {
      decision = answer;
      const turn = ++turns;
      let calls = 0;
      const model = new MockLanguageModelV4({
        doGenerate: async ({ prompt }): Promise<GenerateResult> => {
          const last = lastBashResult(prompt, `t${turn}c`);
          const stopped = (last?.value as { tools?: { stopped?: { reason?: string } } } | undefined)?.tools?.stopped?.reason === "needs_approval";
          // The agent runs the script, and once more after a stop for approval; then it is done.
          if (calls === 0 || (stopped && calls < 2)) {
            calls++;
            return { content: [{ type: "tool-call", toolCallId: `t${turn}c${calls}`, toolName: "bash", input: JSON.stringify({ command: script }) }], finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage, warnings: [] };
          }
          return { content: [{ type: "text", text: "done" }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] };
        },
      });
      let asked = 0;
      const messages = await agentTurn({
        model,
        tools,
        session,
        messages: [...conversation, { role: "user", content: "go" }],
        approve: async (waiting) => {
          asked += waiting.length ? 1 : 0;
          return answer === "allow" || answer === "allow_always";
        },
      });
      const mine = messages.slice(conversation.length);
      conversation = messages;
      let stdout = "";
      let stderr = "";
      for (const m of mine) {
        if (m.role !== "tool") continue;
        for (const p of m.content) {
          if (p.type !== "tool-result" || p.toolName !== "bash") continue;
          const v = (p.output as { value?: { stdout?: string; stderr?: string } }).value;
          stdout = v?.stdout ?? "";
          stderr = v?.stderr ?? JSON.stringify(p.output);
        }
      }
      return { asked, stdout, stderr, pending: (await session.pendingApprovals()).length };
    },
    events: async () => session.events as unknown as ListedEvent[],
    async progress(script) {
      const from = session.events.length;
      const turn = await surface.turn(script, "allow");
      const seen = session.events.slice(from).flatMap((e) => (e.type === "tool.progress" && typeof (e as { message?: unknown }).message === "string" ? [String((e as { message?: unknown }).message)] : []));
      return { ...turn, seen };
    },
    // The adapter's bash result carries the call's connection_required, with the URL the host listens for.
    signIn: {
      way: (server) => new RegExp(`open http\\S+ to sign in .*toolshell auth ${server}`),
      run: (script) => signInByMessage(() => surface.turn(script, "allow")),
    },
  };
  return surface;
}
