/**
 * What the gateway tells a client and asks a person, in both protocol eras: tool results (text
 * with structuredContent, a direct call's content blocks), the approval form, how an approval is
 * answered without elicitation, and recording the person's answer.
 *
 * See MCP spec 2025-06-18 "Tools" (content blocks, isError, structuredContent) and "Elicitation";
 * docs/agents.md → With an MCP client.
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { ApprovalRequest, Decision } from "../policy/index.js";
import type { Session } from "../runtime/index.js";
import { jsonText } from "../tool/index.js";
import { APPROVE_TOOL_NAME, describeRequests, type DirectOutcome } from "../surface/index.js";

/** The answers a person can give to an approval request. */
export const DECISIONS: readonly Decision[] = ["allow", "allow_always", "reject", "reject_always"];

/** A value as a tool result: its JSON as text, and as structuredContent when it is an object. */
export function textResult(value: unknown, isError = false): CallToolResult {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  const structured = value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  return { content: [{ type: "text", text }], ...(structured ? { structuredContent: structured } : {}), ...(isError ? { isError: true } : {}) };
}

/** The form that asks the person about approval requests (elicitation, form mode). */
export function approvalForm(requests: ApprovalRequest[]): { message: string; requestedSchema: Record<string, unknown> } {
  return {
    message: `The agent's script needs your approval for:\n${describeRequests(requests)}`,
    requestedSchema: {
      type: "object",
      properties: {
        decision: {
          type: "string",
          title: "Your answer",
          enum: ["allow", "allow_always", "reject"],
          enumNames: ["Approve (this exact call, once)", requests.some((r) => r.scripts?.length) ? "Approve always (this tool, in this saved script version)" : "Approve always (this tool, this session)", "Reject"],
        },
      },
      required: ["decision"],
    },
  };
}

/** How the person answers a request when the client cannot ask them (no form elicitation). */
export function approvalHow(options: { approveTool?: boolean; approveCommand?: string }, requestId: string): string {
  return options.approveTool === false
    ? `ask the person to answer with: ${options.approveCommand ?? "toolshell approve"} ${requestId} allow|allow_always|reject|reject_always (or the HTTP API); then run a script again`
    : `ask the person, then call ${APPROVE_TOOL_NAME} with {"request_id":"${requestId}","decision":"allow"|"allow_always"|"reject"|"reject_always"}; then run a script again`;
}

/**
 * What the agent does once a request is answered, as the stop report said (`not_reached`): a
 * request made before the script started (its id is the shell call's) means nothing ran, so the
 * same script runs again; one made while it ran, a new script for what is left; a direct tool's,
 * the same call again.
 */
export function nextAfterAnswer(request: { tool_call_id: string; tool: string }): string {
  if (request.tool_call_id.startsWith("direct:")) return `call the tool again (${request.tool})`;
  return request.tool_call_id.includes(":tools:")
    ? "run a new script for what is left: the calls before the stopped one ran"
    : "nothing ran: run the same script again";
}

/** Records the person's answer through the gateway; an answer the book refuses (already answered) is dropped. */
export async function answerQuietly(session: Session, id: string, decision: Decision): Promise<void> {
  try {
    await session.answer(id, decision, { surface: "mcp", by: String(session.metadata.client ?? "mcp:client").replace(/^mcp:/, "") });
  } catch {}
}

/** A direct call's outcome as an MCP tool result: text, JSON (also as structuredContent), images and audio as content blocks. */
export function directResult(outcome: DirectOutcome): CallToolResult {
  if (outcome.status === "error") return textResult({ error: outcome.error }, true);
  if (outcome.status === "needs_approval") return textResult({ error: { code: "needs_approval", message: outcome.message, retryable: false }, request_id: outcome.requestId }, true);
  const v = outcome.view;
  if (v.type === "text") return { content: [{ type: "text", text: v.value }] };
  if (v.type === "json") {
    const r = textResult(v.value);
    // Every digit of integers beyond 2^53 in the text block (docs/mcp.md); structuredContent is the parsed value.
    if (outcome.output.json !== undefined && v.value === outcome.output.value) r.content = [{ type: "text", text: jsonText(outcome.output) }];
    return r;
  }
  return {
    content: [
      ...(v.text ? [{ type: "text" as const, text: v.text }] : []),
      ...v.media.map((m) => (m.kind === "audio" ? { type: "audio" as const, data: m.data, mimeType: m.mimeType } : { type: "image" as const, data: m.data, mimeType: m.mimeType })),
    ],
  };
}
