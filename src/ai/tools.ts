/**
 * The AI SDK adapter: `createToolshellTools(options)` returns an AI SDK 7 `ToolSet` — the `bash`
 * tool plus the direct tools — for `generateText` / `streamText` / agents.
 *
 * Approvals go through the AI SDK's own tool approval (`needsApproval` → a
 * `tool-approval-request` the app answers with a `tool-approval-response`):
 * - a `bash` call is held for approval when its script writes out a call that needs approval
 *   (read without running, as the preflight does), and the answer covers exactly those calls:
 *   what the person is shown is the script. A call an earlier script built at run time and
 *   stopped at is covered only when a script writes it out in full (its stop report gives the
 *   call); until then it stays pending and stops any script that makes it again;
 * - a direct tool call is held when the policy says the call needs approval;
 * - the person's answer is stored with `await session.answer(requestId, decision, { surface: "ai-sdk", by })` as soon as the adapter
 *   sees it in the messages (when the approved call runs, or at the next call after a denial):
 *   approved → `allow` (or `allow_always` when the response's `reason` is `"allow_always"`),
 *   denied → `reject` (or `reject_always`). A stopped script is never resumed: after an approval
 *   the held call runs, with the answer covering the approved calls.
 * `toModelOutput` of direct tools is honoured; images of direct tools reach the model as files.
 *
 * See docs/agents.md → With the AI SDK; README → Approvals. AI SDK 7 tool approval:
 * `needsApproval`, `tool-approval-request`/`-response`.
 */
import { jsonSchema, tool, type JSONValue, type ModelMessage, type Tool, type ToolSet } from "ai";
import {
  bashToolSpec,
  BASH_TOOL_NAME,
  callDirect,
  directApprovalNeeded,
  directTools,
  loadKeptServers,
  runBashTool,
  type BashToolInput,
  type BashToolResult,
  type DirectOutcome,
  type DirectTool,
} from "../surface/index.js";
import type { Decision } from "../policy/index.js";
import type { Session, ToolShell } from "../runtime/index.js";

/** What a tool's `toModelOutput` returns in AI SDK 7 (`ToolResultOutput` of provider-utils). */
export type ToolResultOutput = Awaited<ReturnType<NonNullable<Tool<any, any, any>["toModelOutput"]>>>;

/** The person's answer as the AI SDK carries it. */
export interface AiApprovalResponse {
  approved: boolean;
  reason?: string;
}

/** Options of {@link createToolshellTools}. */
export interface ToolshellToolsOptions {
  /** The ToolShell (from `createToolShell`); the app closes it. */
  shell: ToolShell;
  /** The session the tools run in, or its id; default: a new session. */
  session?: Session | string;
  /** Characters of stdout / stderr a `bash` result keeps (default 30,000). */
  maxOutputChars?: number;
  /** Maps an AI SDK approval response to a decision (default: see {@link defaultDecision}). */
  decision?: (response: AiApprovalResponse) => Decision;
  /**
   * Who answers approvals in this app (a user name or id), recorded as `by` on each
   * `approval.answered` event with surface `ai-sdk` (docs/sessions.md "Who acted"). Default: the
   * session's `client` metadata, else `app`.
   */
  answeredBy?: string;
}

/**
 * The default mapping of an AI SDK approval response: approved → `allow`, or `allow_always` when
 * `reason` is `"allow_always"`; denied → `reject`, or `reject_always` when `reason` is
 * `"reject_always"`.
 */
export function defaultDecision(response: AiApprovalResponse): Decision {
  const r = response.reason?.trim();
  if (response.approved) return r === "allow_always" ? "allow_always" : "allow";
  return r === "reject_always" ? "reject_always" : "reject";
}

/**
 * Keeps which approval requests each held tool call stands for, and stores the person's answers
 * found in the messages with `session.answer`.
 */
class HeldCalls {
  private readonly held = new Map<string, string[]>();
  constructor(
    private readonly session: Session,
    private readonly decide: (r: AiApprovalResponse) => Decision,
    private readonly actor: { surface: string; by: string },
  ) {}

  hold(toolCallId: string, requestIds: string[]): void {
    this.held.set(toolCallId, requestIds);
  }

  /** The request ids a held tool call stands for (empty when not held). */
  requestsOf(toolCallId: string): string[] {
    return this.held.get(toolCallId) ?? [];
  }

  /** Stores every answer in `messages` to a call held here. Never throws. */
  async sync(messages: readonly ModelMessage[] | undefined): Promise<void> {
    if (!messages?.length || this.held.size === 0) return;
    const callOf = new Map<string, string>();
    for (const m of messages) {
      if (m.role !== "assistant" || typeof m.content === "string") continue;
      for (const p of m.content as Array<{ type: string; approvalId?: string; toolCallId?: string }>) {
        if (p.type === "tool-approval-request" && p.approvalId && p.toolCallId) callOf.set(p.approvalId, p.toolCallId);
      }
    }
    for (const m of messages) {
      if (m.role !== "tool") continue;
      for (const p of m.content as Array<{ type: string; approvalId?: string; approved?: boolean; reason?: string }>) {
        if (p.type !== "tool-approval-response" || !p.approvalId) continue;
        const callId = callOf.get(p.approvalId);
        const ids = callId ? this.held.get(callId) : undefined;
        if (!callId || !ids) continue;
        this.held.delete(callId);
        const decision = this.decide({ approved: p.approved === true, reason: p.reason });
        for (const id of ids) {
          try {
            await this.session.answer(id, decision, this.actor);
          } catch {
            // Already answered (e.g. through session.answer by the app): the first answer stands.
          }
        }
      }
    }
  }
}

/**
 * What {@link createToolshellTools} returns: an AI SDK `ToolSet` whose `bash` tool is always there,
 * typed (so `tools.bash` needs no check, under `noUncheckedIndexedAccess` too), with the direct
 * tools by their names beside it.
 */
export type ToolshellToolSet = ToolSet & { bash: Tool<BashToolInput, BashToolResult> };

/**
 * Creates the AI SDK tools of a ToolShell session: `bash` (input `{command, timeout_ms?}`, result
 * `{stdout, stderr, exit_code, success, tools?}` with the stop report) and one tool per direct
 * tool (`shell.split().direct`: keepVisible, staysDirect, turn-control, image and file-editing
 * tools) named as {@link directToolName} says. On-demand servers named in `keepVisible` are
 * loaded first so their tools can be listed. The `bash` description is computed at every step,
 * so a server loaded on demand is listed with its tool count from the next step on.
 * @throws Error when a direct tool's name collides with `bash` or another direct tool; TypeError
 *         when `shell` is not a ToolShell (a host of `openHost` gives its own as `host.shell`).
 */
export async function createToolshellTools(options: ToolshellToolsOptions): Promise<ToolshellToolSet> {
  const { shell } = options;
  const isHost = typeof (shell as { shell?: unknown } | undefined)?.shell === "object";
  if (!shell || typeof shell.session !== "function" || isHost) {
    const hint = isHost ? ": this is a host (openHost); pass its ToolShell, { shell: host.shell }" : "";
    throw new TypeError(`createToolshellTools: \`shell\` must be a ToolShell (createToolShell(), or openHost(…).shell)${hint}`);
  }
  const session = typeof options.session === "object" ? options.session : shell.session(options.session);
  await session.ready;
  await loadKeptServers(shell);
  const by = options.answeredBy ?? (typeof session.metadata.client === "string" && session.metadata.client ? session.metadata.client : "app");
  const held = new HeldCalls(session, options.decision ?? defaultDecision, { surface: "ai-sdk", by });
  const bash: Tool<BashToolInput, BashToolResult> = tool({
    description: () => bashToolSpec(shell, session).description,
    inputSchema: jsonSchema<BashToolInput>(bashToolSpec(shell, session).inputSchema),
    needsApproval: async (input, { toolCallId, messages }) => {
      await held.sync(messages);
      // The session's own preflight: the requests the script's run will look its answers up by.
      const requests = await session.approvalsBeforeStart(typeof input?.command === "string" ? input.command : "", `ai:${toolCallId}`, `ai:${toolCallId}`);
      if (requests.length === 0) return false;
      held.hold(toolCallId, requests.map((r) => r.id));
      return true;
    },
    execute: async (input, { toolCallId, abortSignal, messages }): Promise<BashToolResult> => {
      await held.sync(messages);
      // The tool call id makes the shell call a durable step when the session has a store.
      return runBashTool(session, shell, input, { signal: abortSignal, maxOutputChars: options.maxOutputChars, stepId: `ai:${toolCallId}` });
    },
    toModelOutput: ({ output }) => ({ type: "json", value: output as unknown as JSONValue }),
  });
  const tools: ToolshellToolSet = { [BASH_TOOL_NAME]: bash };
  for (const d of directTools(shell)) tools[d.name] = directTool(shell, session, d, held);
  return tools;
}

function directTool(shell: ToolShell, session: Session, d: DirectTool, held: HeldCalls): Tool {
  const t = d.tool;
  return tool({
    description: d.description,
    inputSchema: jsonSchema<Record<string, unknown>>(d.inputSchema),
    needsApproval: async (input, { toolCallId, messages }) => {
      await held.sync(messages);
      const needed = await directApprovalNeeded(shell, session, t, input ?? {}, toolCallId);
      if (!needed) return false;
      held.hold(toolCallId, [needed.requestId]);
      return true;
    },
    execute: async (input, { toolCallId, abortSignal, messages }): Promise<DirectOutcome> => {
      await held.sync(messages);
      return callDirect(shell, session, t, input, { callId: toolCallId, signal: abortSignal });
    },
    toModelOutput: ({ output }) => outcomeToModelOutput(output),
  }) as Tool;
}

/** A direct call's outcome as an AI SDK tool result output. */
export function outcomeToModelOutput(outcome: DirectOutcome): ToolResultOutput {
  if (outcome.status === "error") return { type: "error-json", value: { error: outcome.error } };
  if (outcome.status === "needs_approval") {
    return {
      type: "error-json",
      value: { error: { code: "needs_approval", message: outcome.message, retryable: false }, request_id: outcome.requestId },
    };
  }
  const v = outcome.view;
  if (v.type === "text") return { type: "text", value: v.value };
  if (v.type === "json") return { type: "json", value: (v.value ?? null) as JSONValue };
  return {
    type: "content",
    value: [
      ...(v.text ? [{ type: "text" as const, text: v.text }] : []),
      ...v.media.map((m) => ({ type: "file" as const, data: { type: "data" as const, data: m.data }, mediaType: m.mimeType })),
    ],
  };
}
