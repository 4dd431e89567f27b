/**
 * What passes between an upstream MCP server and the person behind a call while the call runs:
 * progress notifications (`onprogress`, the call's timeout reset by each) and elicitation
 * requests (`elicitation/create`, form and URL mode, and the same questions in a 2026 server's
 * `input_required` result, which the SDK hands to the same handler), relayed through the call's `ctx`
 * (`ctx.reportProgress`, `ctx.ask`; see call/person.ts), and the raw digits of the answer.
 *
 * A question is tied to the call it belongs to by the connection it arrives on: the calls in
 * flight there. When they belong to more than one session, nobody can be sure whose question it
 * is, and it is declined. A question declined because nobody could answer is named in the
 * call's `tool_error` when the server then fails the call.
 *
 * See docs/mcp.md → Progress, Elicitation relay, Integers beyond 2^53; MCP spec 2025-11-25 "Client
 * Features" → Elicitation (URL mode: the URL goes to the person only, after the safe-URL checks);
 * MCP spec 2026-07-28 "Multi Round-Trip Requests" (the SDK retries with the answers and the
 * `requestState`).
 */
import type { Client, RequestOptions, ElicitRequest, ElicitResult } from "@modelcontextprotocol/client";
import { displayName } from "../tool/text.js";
import { checkPersonUrl } from "./auth/checks.js";
import type { InvokeContext, JsonSchema } from "../tool/types.js";
import type { Connection } from "./connection.js";
import type { ServerLog } from "./log.js";
import { jsonAt, withRawSlot, type RawSlot } from "./raw.js";
import { STRUCTURED_JSON, type McpCallResult } from "./result.js";
import { followTask, reattachTask, sendsAsTask, taskOf } from "./tasks.js";

export type { McpCallResult } from "./result.js";

interface InFlight {
  ctx: InvokeContext;
  command: string;
  /** Why a question of this call was declined without a person's answer. */
  unanswered?: string;
}

/** The relay of one server's calls. */
export class PersonRelay {
  readonly #inflight = new Map<Connection, Set<InFlight>>();
  constructor(
    readonly server: string,
    readonly log: ServerLog,
  ) {}

  /**
   * Runs `send` for the tool `tool` on `conn` with progress relayed to `ctx.reportProgress`
   * (each report resets the call's timeout) and the call known to {@link onElicit}; a call
   * answered with a task (Tasks extension) is followed to its end (tasks.ts), and its id given to
   * `ctx.upstreamTask` (a durable step keeps it); a call of a durable step that runs again follows
   * the task its earlier attempt started (`ctx.upstreamTask.resume`) instead of sending. A failed
   * result (`isError`) after a question nobody answered says so in an added text block.
   * Rethrows what `send` throws.
   */
  async run(conn: Connection, tool: string, ctx: InvokeContext, options: RequestOptions, send: (client: Client, options: RequestOptions) => Promise<McpCallResult>): Promise<McpCallResult> {
    const entry: InFlight = { ctx, command: `tools ${displayName(this.server)} ${displayName(tool)}` };
    let calls = this.#inflight.get(conn);
    if (!calls) this.#inflight.set(conn, (calls = new Set()));
    calls.add(entry);
    const onprogress = ctx.reportProgress ? (p: { progress: number; total?: number; message?: string }) => ctx.reportProgress!({ progress: p.progress, total: p.total, message: p.message }) : undefined;
    try {
      const follow = { signal: options.signal ?? new AbortController().signal, timeout: options.timeout, report: ctx.reportProgress, ask: (params: ElicitRequest["params"], s: AbortSignal) => this.onElicit(conn, params, s), log: (line: string) => this.log.line(line) };
      const upstream = ctx.upstreamTask;
      let result: McpCallResult;
      if (upstream?.resume !== undefined) result = await reattachTask(conn.client, upstream.resume, follow);
      else {
        // Object.assign, not `{ ...options, … }`: the spread-first literal is slow on Node 20 (session.ts invokeContext).
        result = await send(conn.client, Object.assign({}, options, onprogress ? { onprogress, resetTimeoutOnProgress: true } : undefined));
        const task = taskOf(result);
        if (task) {
          this.log.line(`tool call answered with task ${task.taskId}`);
          upstream?.started(task.taskId);
          result = await followTask(conn.client, task, follow);
        }
      }
      if (entry.unanswered && result.isError === true) {
        const content = Array.isArray(result.content) ? result.content : [];
        return { ...result, content: [...content, { type: "text", text: `(toolshell: the server asked the person a question and it was declined: ${entry.unanswered})` }] };
      }
      return result;
    } finally {
      calls.delete(entry);
      if (calls.size === 0 && this.#inflight.get(conn) === calls) this.#inflight.delete(conn);
    }
  }

  /**
   * Answers an `elicitation/create` from `conn`: asks the person of the one session whose calls
   * are in flight there (the most recent call's `ctx.ask`), else declines. Never rejects.
   */
  onElicit = async (conn: Connection, params: ElicitRequest["params"], _signal: AbortSignal): Promise<ElicitResult> => {
    const calls = [...(this.#inflight.get(conn) ?? [])];
    const decline = (why: string, of: InFlight[]): ElicitResult => {
      for (const c of of) c.unanswered = why;
      this.log.line(`elicitation declined: ${why}`);
      return { action: "decline" };
    };
    let url: string | undefined;
    if (params.mode === "url") {
      // Safe URL handling (MCP spec "Elicitation" → URL mode): the one check of an address a
      // person is sent to (auth/checks.ts). The address itself stays out of the reason, which
      // may reach the model in the call's result.
      const checked = checkPersonUrl(String(params.url ?? ""));
      if (!("url" in checked)) return decline(`the server's URL-mode question gives an address that ${checked.refused.replace(/; refused$/, "")}${"notUrl" in checked ? " — refused" : ""}`, calls);
      url = checked.url.href;
    }
    if (calls.length === 0) return decline("no call of this server is running", calls);
    if (new Set(calls.map((c) => c.ctx.session.id)).size > 1) return decline("calls of several sessions are running on this connection, so whose question it is is unknown", calls);
    const call = calls[calls.length - 1];
    if (!call.ctx.ask) return decline("nobody can answer questions here", [call]);
    const requestedSchema = ((url === undefined ? (params as { requestedSchema?: unknown }).requestedSchema : undefined) ?? { type: "object", properties: {} }) as JsonSchema;
    const answer = await call.ctx.ask({ server: this.server, command: call.command, message: String(params.message ?? ""), requestedSchema, ...(url !== undefined ? { url } : {}) });
    if (answer.unanswered) return decline(answer.unanswered, [call]);
    if (url !== undefined) return { action: answer.action };
    return answer.action === "accept" ? { action: "accept", content: (answer.content ?? {}) as ElicitResult["content"] } : { action: answer.action };
  };
}

/**
 * `tools/call` that keeps the answer's raw `structuredContent` text (under
 * {@link STRUCTURED_JSON}) when it holds integers beyond 2^53 (raw.ts); sent as a 2025 task when
 * the tool's `taskSupport` requires it (tasks.ts `sendsAsTask`).
 */
export async function callToolKeepingDigits(client: Client, name: string, args: Record<string, unknown>, options: RequestOptions, taskSupport?: unknown): Promise<McpCallResult> {
  const slot: RawSlot = {};
  const params = sendsAsTask(client, taskSupport) ? { name, arguments: args, task: {} } : { name, arguments: args };
  const result = (await withRawSlot(slot, () => client.callTool(params, options))) as McpCallResult;
  if (slot.text !== undefined && result.structuredContent !== undefined && result.structuredContent !== null) {
    const json = jsonAt(slot.text, ["result", "structuredContent"]);
    if (json !== undefined) result[STRUCTURED_JSON] = json;
  }
  return result;
}
