/**
 * The MCP gateway: an MCP server whose tools are `bash` plus the direct tools, fronting every
 * configured server; served over stdio here, or Streamable HTTP (http-server.ts).
 *
 * Approvals: when a script (or a direct call) stops for a person's answer and the client
 * supports form elicitation, the gateway asks through `elicitation/create` with a form
 * (approve / approve always / reject) and stores the answer; a script stopped before it started
 * then runs again at once (nothing of it ran). A client without elicitation gets the stop report
 * and a `toolshell_approve {request_id, decision}` tool (a direct tool) to record the person's
 * answer. That is the 2025 era; a 2026-07-28 client is asked through the call's
 * `input_required` answer instead (modern.ts).
 *
 * See docs/agents.md → With an MCP client; MCP spec 2025-06-18 "Tools", "Elicitation",
 * "Transports" (stdio; Streamable HTTP: one MCP session per `Mcp-Session-Id`, servers SHOULD bind
 * to localhost and MUST validate the Origin header against DNS rebinding).
 */
import { randomUUID } from "node:crypto";
import { serveStdio as serveStdioEras, StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { screenedLines } from "./stdio-screen.js";
import { CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY, ProtocolError, Server } from "@modelcontextprotocol/server";
import type { CallToolResult, RequestStateCodec, ServerContext, Tool } from "@modelcontextprotocol/server";
import { McpServerSource } from "../mcp/index.js";
import type { ApprovalRequest, Decision } from "../policy/index.js";
import type { Session, ToolShell } from "../runtime/index.js";
import type { CatalogTool } from "../tool/index.js";
import { callDirect, type DirectOutcome } from "../surface/index.js";
import { gatewayPerson, progressSent } from "./person.js";
import { askSignIns, supportsUrlElicitation } from "./sign-in.js";
import { APPROVE_TOOL_NAME, bashToolSpec, BASH_TOOL_NAME, directTools, loadKeptServers, runBashTool, type BashToolResult } from "../surface/index.js";
import { answerQuietly, approvalForm, approvalHow, DECISIONS, directResult, nextAfterAnswer, textResult } from "./answers.js";
import { modernBash, modernDirect, type ModernCall } from "./modern.js";
import { gatewayCodec, requestStateKeys, type GatewayState } from "./request-state.js";

export { directResult } from "./answers.js";

/** Options of the gateway. */
export interface GatewayOptions {
  /** Server name in `initialize` (default `toolshell`). */
  name?: string;
  version?: string;
  /** Characters of stdout / stderr a `bash` result keeps. */
  maxOutputChars?: number;
  /** Ask through elicitation when the client supports it (default true). */
  elicitation?: boolean;
  /** Times a script stopped before start is re-run after an answer within one call (default 10). */
  maxRounds?: number;
  /**
   * Offer `toolshell_approve` to clients without elicitation (default true). The tool is marked
   * destructive so clients that confirm such tools put it before the person; false removes it,
   * and answers then come only through `toolshell approve` or the HTTP API.
   */
  approveTool?: boolean;
  /** The command a person runs to answer a request (default `toolshell approve`): the CLI names its config file in it. */
  approveCommand?: string;
}

/** What one server instance serves: the protocol era, and for the 2026 era the requestState codec. */
export interface GatewayEra {
  /** `modern`: 2026-07-28 requests, each carrying the version and capabilities in `_meta`. Default `legacy`. */
  era?: "legacy" | "modern";
  /** Seals and verifies the `requestState` of `input_required` answers (request-state.ts). */
  codec?: RequestStateCodec<GatewayState>;
}

/** The approve tool (for clients without elicitation). It stays direct. */
export function approveToolSpec(): Tool {
  return {
    name: APPROVE_TOOL_NAME,
    description:
      "Record the person's answer to an approval request that a stopped script or tool call raised (request_id from the stop report). Ask the person first and pass their answer; never decide yourself. allow: that exact call, once; allow_always: the tool, for this session (inside a saved script: for that script version); reject / reject_always likewise. Then run a script again.",
    inputSchema: {
      type: "object",
      properties: {
        request_id: { type: "string", description: "The request id from the stop report" },
        decision: { type: "string", enum: [...DECISIONS], description: "The person's answer" },
      },
      required: ["request_id", "decision"],
      additionalProperties: false,
    },
    // Destructive on purpose: an MCP client that confirms destructive tools then asks the person
    // before the model can record an answer.
    annotations: { title: "Record a person's approval answer", readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  };
}

/** True when the client's capabilities allow a form elicitation (an empty `elicitation` object means form). */
export function supportsFormElicitation(capabilities: { elicitation?: Record<string, unknown> } | undefined): boolean {
  const e = capabilities?.elicitation;
  if (!e || typeof e !== "object") return false;
  return e.form !== undefined || e.url === undefined;
}

function annotationsOf(t: CatalogTool): Tool["annotations"] {
  const a: NonNullable<Tool["annotations"]> = {};
  if (t.hints.readOnly !== undefined) a.readOnlyHint = t.hints.readOnly;
  if (t.hints.destructive !== undefined) a.destructiveHint = t.hints.destructive;
  if (t.hints.idempotent !== undefined) a.idempotentHint = t.hints.idempotent;
  if (t.hints.openWorld !== undefined) a.openWorldHint = t.hints.openWorld;
  return Object.keys(a).length ? a : undefined;
}

function objectSchema(schema: Record<string, unknown>): Tool["inputSchema"] {
  return (schema.type === "object" ? schema : { type: "object", ...schema }) as Tool["inputSchema"];
}

/**
 * Creates the MCP server of one client connection, over one toolshell session. Tools are
 * listed fresh on every `tools/list` (an on-demand server shows its count once loaded).
 * Nothing a client sends can throw out of a handler: every failure is a tool result with
 * `isError: true`.
 */
export function createGatewayServer(shell: ToolShell, session: Session, options: GatewayOptions & GatewayEra = {}): Server {
  const modern = options.era === "modern";
  const codec = modern ? (options.codec ?? gatewayCodec(randomUUID() + randomUUID())) : undefined;
  const server = new Server(
    { name: options.name ?? "toolshell", version: options.version ?? "0.1.0" },
    { capabilities: { tools: { listChanged: true } }, ...(codec ? { requestState: { verify: (state: string, ctx: ServerContext) => codec.verify(state, ctx) } } : {}) },
  );
  // The client of the session: the MCP client, as it names itself in `initialize` (2025) or in
  // each request's `_meta` (2026-07-28).
  const nameClient = (name: unknown) => {
    if (typeof session.metadata.client !== "string") session.metadata.client = `mcp:${typeof name === "string" && name ? name : "client"}`;
  };
  server.oninitialized = () => nameClient(server.getClientVersion()?.name);
  /** The client's capabilities: from `initialize`, or on the 2026 era from the request's `_meta`. */
  const capabilities = (ctx?: ServerContext) =>
    (modern ? ctx?.mcpReq.envelope?.[CLIENT_CAPABILITIES_META_KEY as never] : server.getClientCapabilities()) as { elicitation?: Record<string, unknown> } | undefined;
  const canElicit = (ctx?: ServerContext) => options.elicitation !== false && supportsFormElicitation(capabilities(ctx));

  // What the last tools/list said; when it changes (a server loaded on demand), a 2025 client is
  // told. A 2026-07-28 client hears of changes on its `subscriptions/listen` stream, which the
  // serving entry holds (serveStdio below, http-modern.ts): this instance sends nothing unasked.
  let listed = "";
  const listKey = () => `${bashToolSpec(shell, session).description}\n${safeDirect(shell).map((d) => d.name).join(",")}`;
  const notifyIfChanged = async () => {
    try {
      if (!modern && listed && listKey() !== listed) {
        listed = listKey();
        await server.sendToolListChanged();
      }
    } catch {}
  };
  const offTools = followGatewayTools(shell, () => void notifyIfChanged());
  const closing = server.onclose;
  server.onclose = () => {
    offTools();
    closing?.();
  };

  server.setRequestHandler('tools/list', async (_req, ctx) => {
    listed = listKey();
    const bash = bashToolSpec(shell, session);
    const tools: Tool[] = [{ name: bash.name, description: bash.description, inputSchema: objectSchema(bash.inputSchema) }];
    for (const d of safeDirect(shell)) {
      tools.push({ name: d.name, description: d.description, inputSchema: objectSchema(d.inputSchema), ...(annotationsOf(d.tool) ? { annotations: annotationsOf(d.tool) } : {}) });
    }
    if (!canElicit(ctx) && options.approveTool !== false) tools.push(approveToolSpec());
    return { tools };
  });

  /** Asks the person about requests through an elicitation form; stores and returns the answer. */
  async function ask(requests: ApprovalRequest[], ctx: ServerContext): Promise<{ decision?: Decision; action: string }> {
    let result;
    try {
      const form = approvalForm(requests);
      // Sent as part of the tools/call in flight (on its stream, over Streamable HTTP).
      result = await ctx.mcpReq.send({ method: "elicitation/create", params: { message: form.message, requestedSchema: form.requestedSchema } }, { signal: ctx.mcpReq.signal, timeout: 600_000 });
    } catch (err) {
      return { action: `error: ${err instanceof Error ? err.message : String(err)}` };
    }
    let decision: Decision | undefined;
    if (result.action === "accept") {
      const d = (result.content as Record<string, unknown> | undefined)?.decision;
      decision = DECISIONS.includes(d as Decision) ? (d as Decision) : undefined;
    } else if (result.action === "decline") decision = "reject";
    if (decision) for (const r of requests) await answerQuietly(session, r.id, decision);
    return { decision, action: result.action };
  }

  // The call's progress notifications go out before its answer (person.ts progressSent).
  server.setRequestHandler('tools/call', async (req, ctx) => {
    try {
      return await answerCall(req, ctx);
    } finally {
      await progressSent(ctx);
    }
  });

  async function answerCall(req: { params: { name: string; arguments?: unknown } }, ctx: ServerContext): Promise<Awaited<ReturnType<typeof modernBash>>> {
    const name = req.params.name;
    const args = (req.params.arguments ?? {}) as Record<string, unknown>;
    try {
      // On the 2026 era a question is the call's answer (`input_required`, see modern.ts).
      const m: ModernCall | undefined = codec ? modernCall(ctx, codec) : undefined;
      if (name === BASH_TOOL_NAME) return m ? await modernBash(m, args) : await callBash(args, ctx);
      if (name === APPROVE_TOOL_NAME && options.approveTool !== false) {
        // Not listed for a client that answers by elicitation: there the person answers in the
        // form, and a model must not record an answer by calling the tool by name.
        if (canElicit(ctx)) {
          return textResult({ error: { code: "denied", message: `${APPROVE_TOOL_NAME} is not offered to this client: it asks the person through elicitation, and only the person's answer in that form is recorded`, retryable: false } }, true);
        }
        return approveCall(args);
      }
      const d = safeDirect(shell).find((x) => x.name === name);
      if (!d) return textResult({ error: { code: "unknown_command", message: `no tool ${name}; tools: ${BASH_TOOL_NAME}${safeDirect(shell).map((x) => `, ${x.name}`).join("")}`, retryable: false } }, true);
      return m ? await modernDirect(m, d.tool, name, args) : await callDirectTool(d.tool, args, ctx);
    } catch (err) {
      // A requestState made for another call is refused as the SDK refuses a forged one (-32602).
      if (err instanceof ProtocolError) throw err;
      return textResult({ error: { code: "tool_error", message: `toolshell gateway: ${err instanceof Error ? err.message : String(err)}`, retryable: false } }, true);
    }
  }

  function modernCall(ctx: ServerContext, c: RequestStateCodec<GatewayState>): ModernCall {
    nameClient((ctx.mcpReq.envelope?.[CLIENT_INFO_META_KEY as never] as { name?: unknown } | undefined)?.name);
    const caps = capabilities(ctx);
    // No server-to-client requests on this era: an upstream server's question is not relayed.
    return { shell, session, options, codec: c, ctx, form: canElicit(ctx), url: options.elicitation !== false && supportsUrlElicitation(caps), person: gatewayPerson(ctx, false) };
  }

  async function callBash(args: Record<string, unknown>, ctx: ServerContext): Promise<CallToolResult> {
    const signal = ctx.mcpReq.signal;
    // Nested calls' progress and upstream servers' questions reach the client (see person.ts).
    const person = gatewayPerson(ctx, canElicit());
    let result: BashToolResult = await runBashTool(session, shell, args, { signal, maxOutputChars: options.maxOutputChars, person });
    const notes: Record<string, unknown> = {};
    for (let round = 0; round < (options.maxRounds ?? 10); round++) {
      const stopped = result.tools?.stopped;
      if (!stopped || stopped.reason !== "needs_approval" || !stopped.request_id) break;
      const request = (await session.pendingApprovals()).find((r) => r.id === stopped.request_id);
      if (!request) break;
      if (!canElicit()) {
        notes.approval = { request_id: request.id, how: approvalHow(options, request.id) };
        break;
      }
      const asked = await ask([request], ctx);
      notes.approval = { request_id: request.id, asked: true, action: asked.action, ...(asked.decision ? { decision: asked.decision } : {}) };
      if (!asked.decision || asked.decision.startsWith("reject")) break;
      // Nothing of a script stopped before start ran: run it again now that the call is allowed.
      if (!stopped.before_start) {
        notes.approval = { ...(notes.approval as object), next: "the person approved; the stopped script is not resumed: write a new script for what is left" };
        break;
      }
      result = await runBashTool(session, shell, args, { signal, maxOutputChars: options.maxOutputChars, person });
    }
    // A server that needs the person's sign-in: asked through URL-mode elicitation (see sign-in.ts).
    if (options.elicitation !== false && supportsUrlElicitation(server.getClientCapabilities() as { elicitation?: Record<string, unknown> } | undefined)) {
      const signIns = await askSignIns(shell, session, ctx);
      if (signIns.length) notes.sign_in = signIns;
    }
    const value = Object.keys(notes).length ? { ...result, ...notes } : result;
    await notifyIfChanged();
    return textResult(value, !result.success);
  }

  async function approveCall(args: Record<string, unknown>): Promise<CallToolResult> {
    const id = args.request_id;
    const decision = args.decision;
    if (typeof id !== "string" || !DECISIONS.includes(decision as Decision)) {
      return textResult({ error: { code: "invalid_input", message: `${APPROVE_TOOL_NAME}: expected {request_id: string, decision: ${DECISIONS.join(" | ")}}`, retryable: false } }, true);
    }
    try {
      const r = await session.answer(id, decision as Decision, { surface: "mcp", by: String(session.metadata.client ?? "mcp:client").replace(/^mcp:/, "") });
      return textResult({ answered: { request_id: r.id, tool: r.tool, input: r.input, decision: r.decision }, next: nextAfterAnswer(r) });
    } catch (err) {
      return textResult({ error: { code: "invalid_input", message: (err as Error).message, retryable: false } }, true);
    }
  }

  async function callDirectTool(t: CatalogTool, args: Record<string, unknown>, ctx: ServerContext): Promise<CallToolResult> {
    const signal = ctx.mcpReq.signal;
    const callId = `mcp_${String(ctx.mcpReq.id)}_${randomUUID().slice(0, 8)}`;
    const person = gatewayPerson(ctx, canElicit());
    let outcome: DirectOutcome = await callDirect(shell, session, t, args, { callId, signal, person });
    if (outcome.status === "needs_approval") {
      const request = (await session.pendingApprovals()).find((r) => r.id === (outcome as { requestId: string }).requestId);
      if (request && canElicit()) {
        const asked = await ask([request], ctx);
        if (asked.decision === "allow" || asked.decision === "allow_always") outcome = await callDirect(shell, session, t, args, { callId: `${callId}_2`, signal, person });
        else return textResult({ error: { code: "denied", message: `${outcome.command}: the person did not approve (${asked.action}${asked.decision ? `: ${asked.decision}` : ""})`, retryable: false } }, true);
      } else {
        return textResult({
          error: { code: "needs_approval", message: outcome.message, retryable: false },
          approval: { request_id: outcome.requestId, how: `ask the person, then call ${APPROVE_TOOL_NAME}, then call the tool again` },
        }, true);
      }
    }
    return directResult(outcome);
  }

  return server;
}

/**
 * Calls `listener` whenever the tools a gateway client sees may have changed: a server added,
 * changed or removed, or a server's own tool list changed (README "Changing servers while
 * running"), and when a server loaded at start is up (`toolshell mcp` answers before it is; MCP
 * spec "Tools" → List Changed Notification). Returns the function that stops it.
 */
export function followGatewayTools(shell: ToolShell, listener: () => void): () => void {
  let on = true;
  const off = shell.onServersChanged(listener);
  const loaded = () => {
    if (on) listener();
  };
  for (const s of shell.sources) {
    if (s instanceof McpServerSource && s.config.load === "eager" && s.state() === "not_loaded") void s.load().then(loaded, loaded);
  }
  return () => {
    on = false;
    off();
  };
}

function safeDirect(shell: ToolShell) {
  try {
    return directTools(shell, [BASH_TOOL_NAME, APPROVE_TOOL_NAME]);
  } catch {
    return [];
  }
}

/** A running gateway. */
export interface RunningGateway {
  /** `http://127.0.0.1:PORT/mcp` for HTTP; undefined for stdio. */
  url?: string;
  close(): Promise<void>;
}

/**
 * Serves the gateway over stdio (this process's stdin/stdout) with one session, to a client of
 * either era: the SDK's stdio entry reads the opening message (`initialize`, or a 2026-07-28
 * request such as `server/discover`) and pins one server of that era for the connection. A
 * 2026 client's `requestState` is sealed with a key of this process (one process answers every
 * round). Resolves when serving; the returned `closed` promise settles when the client closes stdin.
 */
export async function serveStdio(shell: ToolShell, options: GatewayOptions & { sessionId?: string } = {}): Promise<RunningGateway & { closed: Promise<void> }> {
  const session = shell.session(options.sessionId ?? "mcp");
  await Promise.all([session.ready, loadKeptServers(shell)]);
  const codec = gatewayCodec(await requestStateKeys()());
  const closed = new Promise<void>((resolve) => {
    process.stdin.once("end", () => resolve());
    process.stdin.once("close", () => resolve());
  });
  const handle = serveStdioEras(({ era }) => {
    const server = createGatewayServer(shell, session, { ...options, era, codec });
    if (era !== "modern") return server;
    // A 2026-07-28 client's `subscriptions/listen` is held by the SDK's stdio entry, which routes
    // the instance's change notifications onto the open subscriptions (none open: nothing is
    // sent); told on every change, as the HTTP face's listen streams are (http-modern.ts).
    const off = followGatewayTools(shell, () => void server.sendToolListChanged().catch(() => {}));
    const closing = server.onclose;
    server.onclose = () => {
      off();
      closing?.();
    };
    return server;
  }, { transport: new StdioServerTransport(screenedLines(process.stdin, process.stdout), process.stdout) }); // malformed and too-deep lines answered before the SDK reads them (stdio-screen.ts, deep.ts)
  return { closed, close: () => handle.close() };
}
