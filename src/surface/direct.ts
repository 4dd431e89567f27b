/**
 * A direct tool call: the model calls a direct tool (not through `bash`), and the call goes
 * through the same checks as a nested call — schema, policy with the session's answers, hooks
 * before and after — then the tool's `toModelOutput` shapes what the model sees.
 *
 * See docs/agents.md → What the model sees; README → Use it from code.
 */
import { withPerson, type CallScope, type Person } from "../call/index.js";
import type { Session, ToolShell } from "../runtime/index.js";
import type { CatalogTool, ErrorCode, MediaBlock, ToolCall, ToolOutput } from "../tool/index.js";
import { commandOf } from "./bash-tool.js";

/** What a direct tool call shows the model. */
export type ModelView =
  | { type: "text"; value: string }
  | { type: "json"; value: unknown }
  | { type: "content"; text: string; media: MediaBlock[] };

/** The outcome of a direct call. */
export type DirectOutcome =
  | { status: "ok"; output: ToolOutput; view: ModelView }
  | { status: "error"; error: { code: ErrorCode; message: string; retryable: boolean } }
  | { status: "needs_approval"; requestId: string; why?: string; command: string; input: Record<string, unknown>; message: string };

/** Options of one direct call. */
export interface DirectCallOptions {
  /** An id for this call (the client's tool call id); events and requests carry `direct:<id>`. */
  callId: string;
  signal?: AbortSignal;
  /** Who sees the call's progress and answers its questions (call/person.ts). */
  person?: Person;
}

/** A direct call as the pipeline carries it: no budget, no stop state, no `done` list. */
function directCall(session: Session, tool: CatalogTool, input: unknown, callId: string): ToolCall {
  const given = input as Record<string, unknown>;
  return { callId: `direct:${callId}`, tool, command: commandOf(tool), given, input: given, sessionId: session.id, sessionMetadata: session.metadata, via: "direct" };
}

function directScope(session: Session, signal?: AbortSignal): CallScope {
  return { session, signal: signal ?? new AbortController().signal };
}

/**
 * The approval a direct call needs now, without making it or using up an answer: undefined when
 * it may run (or is refused, which the call itself reports); else the pending request, raised
 * (or reused for the same exact call) in the session's approval book.
 */
export function directApprovalNeeded(shell: ToolShell, session: Session, tool: CatalogTool, input: Record<string, unknown>, callId: string): Promise<{ requestId: string; why?: string } | undefined> {
  // Held like a shell call (several replicas: docs/deployment.md): the request is raised in the current book.
  // When the session cannot be had, the call itself reports it (callDirect).
  return session.holding(() => shell.pipeline.approvalNeeded(directCall(session, tool, input, callId), directScope(session))).catch(() => undefined);
}

/**
 * Makes one direct call through the call pipeline (the same steps as a nested call: input,
 * schema, hooks, policy with the session's answers, the tool, redaction, the `tool.direct_call`
 * event), then the model's view (`toModelOutput` when the tool has one). Never throws: every
 * failure is an `error` outcome with README "The `tools` command" → Errors codes; a call that needs approval and has no
 * answer is not made (`needs_approval` with the request id).
 */
export async function callDirect(shell: ToolShell, session: Session, tool: CatalogTool, input: unknown, options: DirectCallOptions): Promise<DirectOutcome> {
  let s;
  try {
    // Held like a shell call (several replicas: docs/deployment.md): judged with the current book.
    s = await session.holding(async () => withPerson(options.person, () => shell.pipeline.run(directCall(session, tool, input, options.callId), directScope(session, options.signal))));
  } catch (err) {
    return { status: "error", error: { code: "unavailable", message: err instanceof Error ? err.message : String(err), retryable: true } };
  }
  if (s.error && s.requestId && s.error.code === "needs_approval") {
    return { status: "needs_approval", requestId: s.requestId, ...(s.judgement?.why ? { why: s.judgement.why } : {}), command: s.call.command, input: s.call.given, message: s.error.message };
  }
  if (s.error) return { status: "error", error: { code: s.error.code, message: s.error.message, retryable: s.error.retryable } };
  return { status: "ok", output: s.output!, view: modelView(tool, s.output!) };
}

/**
 * What the model sees of a direct call's output: the tool's `toModelOutput(raw)` when it has one
 * (a throwing `toModelOutput` falls back to the default); else images and audio as media with
 * the text; else the text, or the JSON value.
 */
export function modelView(tool: CatalogTool, output: ToolOutput): ModelView {
  if (tool.toModelOutput) {
    try {
      const v = tool.toModelOutput(output.raw !== undefined ? output.raw : output.kind === "json" ? output.value : output.text);
      if (v && (v.type === "text" || v.type === "json")) return v;
    } catch {}
  }
  if (output.media?.length) return { type: "content", text: output.kind === "text" ? (output.text ?? "") : JSON.stringify(output.value), media: output.media };
  if (output.kind === "text") return { type: "text", value: output.text ?? "" };
  return { type: "json", value: output.value ?? null };
}
