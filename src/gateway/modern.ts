/**
 * A gateway `tools/call` from a 2026-07-28 client. The server cannot send the client requests
 * on this era, so a question for the person is the call's answer: an `input_required` result
 * (form mode for an approval, URL mode for an upstream server's sign-in) with a signed
 * `requestState` (request-state.ts). The client asks the person and sends the same call again with
 * the answers (`inputResponses`) and the state:
 *
 * - `bash`: the script runs as a durable step (docs/sessions.md → Durable steps). A script that
 *   stops for approval is a step waiting for approval; the retry records the person's answer and
 *   asks for the step again, so it resumes: calls that completed are replayed, the call that asked
 *   runs with its answer (`denied` after a refusal), the rest of the script runs. A retry sent twice
 *   finds the step completed and gets its recorded result: nothing runs twice.
 * - a direct tool: the retry records the answer and, when allowed, calls the tool.
 * - sign-in: the retry waits for the sign-in the person opened to finish and returns the call's
 *   result, carried in the `requestState`, with a note (as the 2025 era does, the script is not
 *   run again).
 *
 * See MCP spec 2026-07-28 "Multi Round-Trip Requests" (`input_required`, `inputRequests`,
 * `inputResponses`, `requestState`) and "Elicitation"; docs/mcp.md → Gateway, 2026-07-28 clients.
 */
import { randomUUID } from "node:crypto";
import { inputRequired, inputResponse } from "@modelcontextprotocol/server";
import type { CallToolResult, InputRequiredResult, RequestStateCodec, ServerContext } from "@modelcontextprotocol/server";
import type { Decision } from "../policy/index.js";
import type { Session, ToolShell } from "../runtime/index.js";
import type { CatalogTool } from "../tool/index.js";
import { APPROVE_TOOL_NAME, BASH_TOOL_NAME, callDirect, runBashTool } from "../surface/index.js";
import type { Person } from "../call/index.js";
import { checkSameCall, inputHash, type GatewayState } from "./request-state.js";
import { SIGN_IN_WAIT_MS } from "./sign-in.js";
import { answerQuietly, approvalForm, approvalHow, DECISIONS, directResult, textResult } from "./answers.js";
import type { GatewayOptions } from "./mcp-server.js";

/** What a 2026 call needs from the gateway server that received it. */
export interface ModernCall {
  shell: ToolShell;
  session: Session;
  options: GatewayOptions;
  codec: RequestStateCodec<GatewayState>;
  ctx: ServerContext;
  /** The client declared form / URL elicitation in this request's `_meta`. */
  form: boolean;
  url: boolean;
  person: Person;
}

type Answer = CallToolResult | InputRequiredResult;

/** The decision the person gave in `inputResponses.approval`: undefined when cancelled or absent. */
function decisionOf(ctx: ServerContext): { decision?: Decision; action: string } {
  const r = inputResponse(ctx.mcpReq.inputResponses, "approval");
  if (r.kind !== "elicit") return { action: "missing" };
  if (r.action === "decline") return { decision: "reject", action: r.action };
  if (r.action !== "accept") return { action: r.action };
  const d = r.content?.decision;
  return DECISIONS.includes(d as Decision) ? { decision: d as Decision, action: r.action } : { action: "accept without a decision" };
}

/** The verified state of a retry, checked to belong to this call; undefined on a first call. */
function stateOf(c: ModernCall, tool: string, input: unknown): GatewayState | undefined {
  const state = c.ctx.mcpReq.requestState<GatewayState>();
  if (state === undefined) return undefined;
  checkSameCall(state, { session: c.session.id, tool, input });
  return state;
}

async function askApproval(c: ModernCall, requestId: string, state: Omit<GatewayState, "kind" | "request">): Promise<InputRequiredResult | undefined> {
  const request = (await c.session.pendingApprovals()).find((r) => r.id === requestId);
  if (!request) return undefined;
  const form = approvalForm([request]);
  return inputRequired({
    inputRequests: { approval: inputRequired.elicit({ message: form.message, requestedSchema: form.requestedSchema as never }) },
    requestState: await c.codec.mint({ ...state, kind: "approval", request: request.id }, c.ctx),
  });
}

/** Records the person's answer carried by a retry. @returns the note for the result. */
async function recordAnswer(c: ModernCall, state: GatewayState): Promise<Record<string, unknown>> {
  const { decision, action } = decisionOf(c.ctx);
  if (decision && state.request) await answerQuietly(c.session, state.request, decision);
  return { request_id: state.request, asked: true, action, ...(decision ? { decision } : {}) };
}

/**
 * Asks, through URL mode, about the sign-ins this session's calls left pending. The state carries
 * the call's result: a sign-in resumes nothing, and the retry answers with that result and the
 * notes, with or without a store to replay the step from.
 */
async function askSignIns(c: ModernCall, state: Omit<GatewayState, "kind">): Promise<InputRequiredResult | undefined> {
  const pending = c.shell.oauth.broker.pending({ sessionId: c.session.id });
  if (!pending.length) return undefined;
  const inputRequests: Record<string, ReturnType<typeof inputRequired.elicitUrl>> = {};
  pending.forEach((p, i) => {
    inputRequests[`sign_in_${i}`] = inputRequired.elicitUrl({ url: p.url, message: `The MCP server "${p.server}" needs you to sign in. Open the link to sign in; then the agent can run its script again.` });
  });
  return inputRequired({ inputRequests, requestState: await c.codec.mint({ ...state, kind: "sign_in", servers: pending.map((p) => p.server) }, c.ctx) });
}

/** Waits for the sign-ins the person accepted to finish. @returns one note per server asked. */
async function finishSignIns(c: ModernCall, state: GatewayState): Promise<Array<Record<string, unknown>>> {
  const notes: Array<Record<string, unknown>> = [];
  for (const [i, server] of (state.servers ?? []).entries()) {
    const r = inputResponse(c.ctx.mcpReq.inputResponses, `sign_in_${i}`);
    const action = r.kind === "elicit" ? r.action : "missing";
    let signedIn = false;
    if (action === "accept") {
      const pending = c.shell.oauth.broker.pending({ sessionId: c.session.id }).find((p) => p.server === server);
      // Not pending any more: it ended before the retry came (on this replica's listener).
      signedIn = pending ? (await c.shell.oauth.broker.wait(server, pending.principal, AbortSignal.any([c.ctx.mcpReq.signal, AbortSignal.timeout(SIGN_IN_WAIT_MS)]))).ok : true;
    }
    notes.push({ server, action, signed_in: signedIn, next: signedIn ? "signed in: run the script again (a new one for what is left)" : `not signed in: the person can run \`toolshell auth ${server}\`` });
  }
  return notes;
}

/** `bash` for a 2026 client. */
export async function modernBash(c: ModernCall, args: Record<string, unknown>): Promise<Answer> {
  const state = stateOf(c, BASH_TOOL_NAME, args);
  const base = { s: c.session.id, t: BASH_TOOL_NAME, h: inputHash(args) };
  const step = state?.step ?? `mcp:${randomUUID()}`;
  const notes: Record<string, unknown> = {};
  if (state?.kind === "sign_in" && state.result) {
    const signIn = await finishSignIns(c, state);
    return textResult({ ...state.result, sign_in: signIn }, !state.result.success);
  }
  if (state?.kind === "approval") notes.approval = await recordAnswer(c, state);
  const result = await runBashTool(c.session, c.shell, args, { signal: c.ctx.mcpReq.signal, maxOutputChars: c.options.maxOutputChars, person: c.person, stepId: step });
  const stopped = result.tools?.stopped;
  if (stopped?.reason === "needs_approval" && stopped.request_id) {
    // Still waiting (the person cancelled): the report says so; a new request is asked anew.
    const again = state?.kind === "approval" && state.request === stopped.request_id;
    if (c.form && !again) {
      const asked = await askApproval(c, stopped.request_id, { ...base, step });
      if (asked) return asked;
    }
    if (!c.form) notes.approval = { request_id: stopped.request_id, how: approvalHow(c.options, stopped.request_id) };
  }
  if (c.url && c.options.elicitation !== false) {
    const asked = await askSignIns(c, { ...base, step, result: { ...result, ...notes } });
    if (asked) return asked;
  }
  return textResult(Object.keys(notes).length ? { ...result, ...notes } : result, !result.success);
}

/** A direct tool for a 2026 client. */
export async function modernDirect(c: ModernCall, t: CatalogTool, name: string, args: Record<string, unknown>): Promise<Answer> {
  const state = stateOf(c, name, args);
  const callId = `mcp_${String(c.ctx.mcpReq.id)}_${randomUUID().slice(0, 8)}`;
  if (state?.kind === "approval") {
    const note = await recordAnswer(c, state);
    if (note.decision !== "allow" && note.decision !== "allow_always") {
      return textResult({ error: { code: "denied", message: `${name}: the person did not approve (${String(note.action)}${note.decision ? `: ${String(note.decision)}` : ""})`, retryable: false } }, true);
    }
  }
  const outcome = await callDirect(c.shell, c.session, t, args, { callId, signal: c.ctx.mcpReq.signal, person: c.person });
  if (outcome.status === "needs_approval" && c.form) {
    const asked = await askApproval(c, outcome.requestId, { s: c.session.id, t: name, h: inputHash(args) });
    if (asked) return asked;
  }
  if (outcome.status === "needs_approval") {
    return textResult({ error: { code: "needs_approval", message: outcome.message, retryable: false }, approval: { request_id: outcome.requestId, how: `ask the person, then call ${APPROVE_TOOL_NAME}, then call the tool again` } }, true);
  }
  return directResult(outcome);
}
