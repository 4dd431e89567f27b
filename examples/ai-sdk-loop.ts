import { generateText, stepCountIs, type LanguageModel, type ModelMessage, type ToolSet } from "ai";
import type { ApprovalRequest, Session } from "toolshell";

/**
 * One turn of an agent on the AI SDK: the model works with toolshell's tools until it answers.
 * When a call is held for approval, `approve` is shown what waits (tool, input, why) and its
 * answer goes back through the AI SDK's own tool approval; then the loop goes on.
 * Returns the whole conversation: the messages given, then every step's messages.
 *
 * `tools` is `await createToolshellTools({ shell, session })` from `toolshell/ai`.
 */
export async function agentTurn(options: {
  model: LanguageModel;
  tools: ToolSet;
  session: Pick<Session, "pendingApprovals">;
  messages: ModelMessage[];
  approve: (waiting: ApprovalRequest[]) => Promise<boolean>;
}): Promise<ModelMessage[]> {
  const { model, tools, session } = options;
  const messages = [...options.messages];
  for (;;) {
    const result = await generateText({ model, tools, messages, stopWhen: stepCountIs(20) });
    // Every step's messages: `result.response.messages` holds only the last step's (ai 7).
    messages.push(...result.responseMessages);
    const requests = result.content.filter((p) => p.type === "tool-approval-request");
    if (requests.length === 0) return messages;
    const approved = await options.approve(await session.pendingApprovals());
    messages.push({
      role: "tool",
      content: requests.map((r) => ({ type: "tool-approval-response", approvalId: r.approvalId, approved })),
    });
  }
}
