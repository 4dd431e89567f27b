/**
 * A direct tool call: the model calls a direct tool (not through `bash`), and the call goes
 * through the same checks as a nested call — schema, policy with the session's answers, hooks
 * before and after — then the tool's `toModelOutput` shapes what the model sees.
 *
 * Rule source: seed "Tools in Shell" → Which tools move into the shell ("Every call from a script
 * goes through the same checks as a direct call"); seed "Tools" → toModelOutput; issue 4 → Hooks
 * ("exactly as for a direct call"); issue 6 (`toModelOutput` of direct tools honoured).
 */
import type { Session, ToolShell } from "../runtime/index.js";
import { ToolCallError, type CatalogTool, type ErrorCode, type MediaBlock, type ToolOutput } from "../tool/index.js";
import { refuseUnsafeInput } from "../shell/index.js";
import { commandOf } from "./surface.js";

/** What a direct tool call shows the model. */
export type ModelView =
  | { type: "text"; value: string }
  | { type: "json"; value: unknown }
  | { type: "content"; text: string; media: MediaBlock[] };

/** The outcome of a direct call. */
export type DirectOutcome =
  | { status: "ok"; output: ToolOutput; view: ModelView }
  | { status: "error"; error: { code: ErrorCode; message: string; retryable: boolean } }
  | { status: "needs_approval"; requestId: string; why?: string; command: string; input: Record<string, unknown> };

/** Options of one direct call. */
export interface DirectCallOptions {
  /** An id for this call (the client's tool call id); events and requests carry `direct:<id>`. */
  callId: string;
  signal?: AbortSignal;
}

/**
 * The approval a direct call needs now, without making it or using up an answer: undefined when
 * it may run (or is refused, which the call itself reports); else the pending request, raised
 * (or reused for the same exact call) in the session's approval book.
 */
export async function directApprovalNeeded(shell: ToolShell, session: Session, tool: CatalogTool, input: Record<string, unknown>, callId: string): Promise<{ requestId: string; why?: string } | undefined> {
  const checked = await safeValidate(tool, input);
  if (!checked.ok) return undefined;
  const command = commandOf(tool);
  try {
    // An input the call will refuse (Infinity, __proto__) raises no request a person would see.
    refuseUnsafeInput(checked.value);
    const j = await shell.policy.peek({ tool, command, input: checked.value, sessionId: session.id, sessionMetadata: session.metadata, callId: `direct:${callId}` });
    if (j.risk !== "needs_approval" || j.approved || j.rejected) return undefined;
    const id = await shell.policy.requestApproval(session.id, { tool: command, toolName: tool.name, input: checked.value, why: j.why, callId: `direct:${callId}` });
    session.emit({ type: "approval.requested", request_id: id, tool: command, tool_call_id: `direct:${callId}` });
    return { requestId: id, ...(j.why ? { why: j.why } : {}) };
  } catch {
    return undefined;
  }
}

/**
 * Makes one direct call: input checked against the schema, judged by the policy with the
 * session's answers (a one-off `allow` is used up), before-hooks (allow / deny / replace), the
 * tool, after-hooks, an event `tool.direct_call`, then the model's view (`toModelOutput` when
 * the tool has one). Never throws: every failure is an `error` outcome with the seed's codes; a
 * call that needs approval and has no answer is not made (`needs_approval` with the request id).
 */
export async function callDirect(shell: ToolShell, session: Session, tool: CatalogTool, input: unknown, options: DirectCallOptions): Promise<DirectOutcome> {
  const command = commandOf(tool);
  const callId = `direct:${options.callId}`;
  const started = performance.now();
  let status = "completed";
  let error: ToolCallError | undefined;
  try {
    if (!input || typeof input !== "object" || Array.isArray(input)) throw new ToolCallError("invalid_input", `${command}: the input must be a JSON object`);
    refuseUnsafeInput(input);
    const checked = await safeValidate(tool, input as Record<string, unknown>);
    if (!checked.ok) throw new ToolCallError("invalid_input", `${command}: ${checked.errors.join("; ")}`);
    let value = checked.value;
    // Hooks before the policy, as for nested calls: the approval covers what really runs.
    const hookCall = { tool, command, input: value, sessionId: session.id, callId, via: "direct" as const };
    const before = await shell.hooks.beforeToolCall?.(hookCall);
    if (before && before.action === "deny") throw new ToolCallError("denied", `${command}: ${before.reason}`);
    if (before && before.action === "replace") {
      const again = await safeValidate(tool, before.input);
      if (!again.ok) throw new ToolCallError("invalid_input", `${command}: ${again.errors.join("; ")}`);
      value = again.value;
      hookCall.input = value;
    }
    const judgement = await shell.policy.judge({ tool, command, input: value, sessionId: session.id, sessionMetadata: session.metadata, callId });
    if (judgement.risk === "blocked" || judgement.rejected) throw new ToolCallError("denied", judgement.message ?? `${command} was refused`);
    if (judgement.risk === "needs_approval" && !judgement.approved) {
      const id = await shell.policy.requestApproval(session.id, { tool: command, toolName: tool.name, input: value, why: judgement.why, callId });
      session.emit({ type: "approval.requested", request_id: id, tool: command, tool_call_id: callId });
      status = "needs_approval";
      return { status: "needs_approval", requestId: id, ...(judgement.why ? { why: judgement.why } : {}), command, input: value };
    }
    let output: ToolOutput;
    try {
      output = await tool.invoke(value, session.invokeContext(callId, options.signal ?? new AbortController().signal));
    } catch (err) {
      const e = asCallError(err);
      await safeHook(() => shell.hooks.afterToolCall?.(hookCall, { ok: false, error: { code: e.code, message: e.message } }));
      throw e;
    }
    const after = await safeHook(() => shell.hooks.afterToolCall?.(hookCall, { ok: true, output }));
    if (after && typeof after === "object" && "output" in after && after.output) output = after.output;
    return { status: "ok", output, view: modelView(tool, output) };
  } catch (err) {
    error = asCallError(err);
    status = error.code === "denied" ? "refused" : "failed";
    return { status: "error", error: { code: error.code, message: error.message, retryable: error.retryable } };
  } finally {
    session.emit({
      type: "tool.direct_call",
      call_id: callId,
      tool_name: tool.name,
      command,
      status,
      ...(error ? { error: { code: error.code, message: error.message } } : {}),
      duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
    });
  }
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

async function safeValidate(tool: CatalogTool, input: Record<string, unknown>) {
  try {
    return await tool.validate(input);
  } catch (err) {
    return { ok: false as const, errors: [`the input could not be checked: ${(err as Error).message}`] };
  }
}

async function safeHook<T>(fn: () => T | Promise<T>): Promise<T | undefined> {
  try {
    return await fn();
  } catch {
    return undefined;
  }
}

function asCallError(err: unknown): ToolCallError {
  if (err instanceof ToolCallError) return err;
  return new ToolCallError("tool_error", err instanceof Error ? err.message : String(err));
}
