/**
 * One live connection to an MCP server: the SDK client on a stdio, Streamable HTTP or HTTP+SSE
 * transport, and the paged tool listing.
 *
 * See docs/mcp.md → Client; MCP spec 2025-06-18 "Transports" → Backwards Compatibility (a POST
 * answered with HTTP 4xx means an old HTTP+SSE server: open the SSE stream instead) and "Tools"
 * (pagination, list changed).
 */
import { Client, SSEClientTransport, SseError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { ElicitRequest, ElicitResult, FetchLike, jsonSchemaValidator, OAuthClientProvider, PriorDiscovery, Transport } from "@modelcontextprotocol/client";
import type { ServerConfig } from "../config/index.js";
import { httpStatus, isAuthError, versionError } from "./errors.js";
import type { ServerLog } from "./log.js";
import { bodyReader, currentRawSlot, mayHoldUnsafeInteger, type RawSlot } from "./raw.js";
import { withServerLog } from "./sdk-console.js";
import { withChildSignal } from "./signals.js";
import { GroupStdioTransport } from "./stdio.js";
import { answerTasksAsResults, TASKS_EXTENSION } from "./tasks.js";

/** What we tell servers we are (MCP `initialize` → clientInfo). */
export const CLIENT_INFO = { name: "toolshell", version: "0.1.0" } as const;

/** A connected server. `close()` ends it (and its process) and never throws. */
export interface Connection {
  readonly client: Client;
  /** The child's pid for stdio servers. */
  readonly pid: number | undefined;
  /** Which transport is in use (`sse` after the fallback). */
  readonly transport: "stdio" | "http" | "sse";
  /** True once the connection closed, by us or by the server. */
  readonly closed: boolean;
  /** True while a `subscriptions/listen` stream brings this 2026 server's tool list changes. */
  readonly listening: boolean;
  /** The `Mcp-Session-Id` the server gave (Streamable HTTP only). */
  readonly sessionId: string | undefined;
  /** The protocol version agreed (`2026-07-28` for the 2026 era, else the 2025 era's `initialize` version). */
  readonly protocolVersion: string | undefined;
  /** The era agreed, to pass as {@link OpenOptions.era} next time (no second negotiation). */
  readonly era: PriorDiscovery | undefined;
  close(): Promise<void>;
}

/** What {@link openConnection} needs besides the config. */
export interface OpenOptions {
  log: ServerLog;
  /** Aborts when the connect deadline passes. */
  deadline: AbortSignal;
  /** The connect timeout in milliseconds (also each request's timeout). */
  timeoutMs: number;
  /** Called once when the connection closes without our asking (process exit, stream end). */
  onLost: (connection: Connection) => void;
  /** Called on `notifications/tools/list_changed`. */
  onToolsChanged: (connection: Connection) => void;
  /**
   * Called on `elicitation/create` and on each question of an `input_required` result (form
   * and URL mode: the client declares both to every server and declines what nobody can
   * answer, as the spec permits).
   */
  onElicit?: (connection: Connection, params: ElicitRequest["params"], signal: AbortSignal) => Promise<ElicitResult>;
  /** The era this server agreed last time (its `server/discover` answer, or legacy): used instead of negotiating again. */
  era?: PriorDiscovery;
  /** HTTP servers that sign in: the SDK's OAuth client and the fetch it goes through (see auth/provider.ts). */
  auth?: { provider: OAuthClientProvider; fetch?: FetchLike };
}

/**
 * The SDK client validates `structuredContent` only for the tools of the last `tools/list` page
 * (its cache is cleared per page), and a schema ajv cannot compile would break listing. So the
 * client gets a validator that accepts everything and the tool layer checks output itself
 * (see tool.ts) for every tool, whatever page it came on.
 */
const ACCEPT_ALL: jsonSchemaValidator = {
  getValidator: () => (input: unknown) => ({ valid: true, data: input as never, errorMessage: undefined }),
};

/**
 * Connects to a server, agreeing on the protocol era first (MCP spec 2026-07-28 "Lifecycle":
 * `server/discover`; a server that does not answer it as a 2026 server is a 2025 server, and the
 * 2025 `initialize` handshake runs). A remembered era (`options.era`) skips the negotiation; when
 * the server refuses it now (`-32022`), the era is negotiated again once. (A stdio server that
 * ends its process on the `server/discover` probe fails this start; the source then remembers
 * it as a 2025 server, see errors.ts `eraUnagreed`.)
 * @throws the SDK's error; the caller maps it with toCallError (a version error names itself).
 */
export async function openConnection(config: ServerConfig, options: OpenOptions): Promise<Connection> {
  try {
    return await openOnce(config, options);
  } catch (error) {
    if (options.era && versionError(error)) {
      options.log.line("the server refused the protocol era it agreed before; negotiating again");
      return openOnce(config, { ...options, era: undefined });
    }
    throw error;
  }
}

/**
 * One connection attempt. HTTP servers (`type: "http"`) are tried with Streamable HTTP first; an
 * HTTP 4xx other than 401/403 on that first POST falls back to HTTP+SSE (spec 2025-11-25
 * "Backwards Compatibility"), except a version error, which is the server's answer, not an old
 * transport. Server stderr (stdio) goes to `options.log`.
 */
async function openOnce(config: ServerConfig, options: OpenOptions): Promise<Connection> {
  if (config.type === "stdio") return attempt(config, "stdio", options);
  if (config.type === "sse") return attempt(config, "sse", options);
  try {
    return await attempt(config, "http", options);
  } catch (error) {
    const status = httpStatus(error);
    if (status === undefined || status < 400 || status >= 500 || isAuthError(error) || versionError(error)) throw error;
    options.log.line(`Streamable HTTP answered HTTP ${status}; trying HTTP+SSE`);
    return attempt(config, "sse", options);
  }
}

async function attempt(config: ServerConfig, kind: Connection["transport"], options: OpenOptions): Promise<Connection> {
  let closing = false;
  let closed = false;
  let listening = () => false;
  let connected = false;
  // A dropped response stream leaves its request unanswered until the call timeout: end the
  // connection instead, so pending calls answer `unavailable` now and the next call reconnects.
  const drop = (why: string) => {
    if (closing || closed || !connected) return;
    options.log.line(`connection dropped: ${why}`);
    void client.close().catch(() => {});
  };
  const transport = makeTransport(config, kind, options.log, options.auth, drop);
  if (transport instanceof GroupStdioTransport) keepRawAnswers(transport);
  // Elicitation (form and URL mode) is declared to every server: whether somebody can answer is
  // known per call, and a question nobody can answer is declined (spec "Elicitation": the client
  // MAY decline). A 2026 server's `input_required` questions come to the same handler. The Tasks
  // extension is declared too: a tool may be answered with a task, followed in tasks.ts.
  // Both eras are offered: `server/discover` first, then `initialize` for a 2025 server. HTTP+SSE
  // is of the 2025 era only.
  const client = new Client(CLIENT_INFO, { capabilities: { elicitation: { form: {}, url: {} }, extensions: { [TASKS_EXTENSION]: {} } }, jsonSchemaValidator: ACCEPT_ALL, versionNegotiation: { mode: "auto" } });
  // Every request (a call, a page, a refresh its 401 starts) runs with the SDK's console lines
  // sent to this server's log (see sdk-console.ts).
  const request = client.request.bind(client);
  client.request = ((...args: Parameters<typeof request>) => withServerLog(options.log, () => request(...args))) as typeof client.request;
  const era: PriorDiscovery | undefined = kind === "sse" ? { kind: "legacy" } : options.era;
  let startedPid: number | undefined;
  const connection: Connection = {
    client,
    transport: kind,
    get pid() {
      return closed ? undefined : startedPid;
    },
    get closed() {
      return closed;
    },
    get listening() {
      return listening() && !closed;
    },
    get sessionId() {
      return transport instanceof StreamableHTTPClientTransport ? transport.sessionId : undefined;
    },
    get protocolVersion() {
      return client.getNegotiatedProtocolVersion();
    },
    get era() {
      const discover = client.getDiscoverResult();
      if (client.getProtocolEra() === "modern") return discover ? { kind: "modern" as const, discover } : undefined;
      return client.getProtocolEra() === "legacy" ? { kind: "legacy" as const } : undefined;
    },
    async close() {
      if (closing) return;
      closing = true;
      if (transport instanceof StreamableHTTPClientTransport) {
        await Promise.race([transport.terminateSession().catch(() => {}), delay(1000)]);
      }
      await client.close().catch(() => {});
      closed = true;
    },
  };
  client.onerror = (error) => {
    options.log.line(`error: ${error.message}`);
    // The HTTP+SSE stream carries every answer; once it breaks, the EventSource's reconnection
    // opens a new session that will never answer the requests sent on the old one.
    if (kind === "sse" && error instanceof SseError) drop(error.message);
  };
  client.onclose = () => {
    closed = true;
    if (closing) return;
    options.log.line("connection closed by the server (process exited or stream ended)");
    options.onLost(connection);
  };
  // Server log messages (spec "Utilities" → Logging) go to the server's log file, as its stderr does.
  client.setNotificationHandler("notifications/message", ({ params }) => {
    const data = typeof params.data === "string" ? params.data : JSON.stringify(params.data);
    options.log.line(`log ${params.level}${params.logger ? ` ${params.logger}` : ""}: ${data}`);
  });
  client.setNotificationHandler("notifications/tools/list_changed", () => {
    options.onToolsChanged(connection);
  });
  client.setRequestHandler("elicitation/create", (request, ctx) => (options.onElicit ? options.onElicit(connection, request.params, ctx.mcpReq.signal) : Promise.resolve({ action: "decline" as const })));
  try {
    await withServerLog(options.log, () => withChildSignal(options.deadline, (signal) => client.connect(transport, { signal, timeout: options.timeoutMs, ...(era ? { prior: era } : {}) })));
  } catch (error) {
    closing = true;
    await client.close().catch(() => {});
    await transport.close().catch(() => {});
    // Closing is gentle (stdin end, then SIGTERM after 2 s); a server that failed to start is
    // ended now, with everything it started, so nothing outlives the failed attempt.
    if (transport instanceof GroupStdioTransport) transport.kill();
    throw error;
  }
  if (transport instanceof GroupStdioTransport) startedPid = transport.pid;
  answerTasksAsResults(transport);
  connected = true;
  options.log.line(`connected over ${kind}${startedPid ? ` (pid ${startedPid})` : ""}, MCP ${client.getNegotiatedProtocolVersion() ?? "?"}`);
  listening = await listenForToolChanges(client, options);
  return connection;
}

/**
 * On the 2026 era a server sends change notifications only on a `subscriptions/listen` stream
 * (MCP spec 2026-07-28 "Subscriptions"); the SDK hands them to the same
 * `notifications/tools/list_changed` handler as the 2025 era's unsolicited ones. Opened when the
 * server says its tool list changes (`tools.listChanged`); a server that refuses or never
 * acknowledges it is still used, without change notifications (the log says so).
 */
async function listenForToolChanges(client: Client, options: OpenOptions): Promise<() => boolean> {
  if (client.getProtocolEra() !== "modern" || client.getServerCapabilities()?.tools?.listChanged !== true) return () => false;
  let open = true;
  try {
    const subscription = await withChildSignal(options.deadline, (signal) => client.listen({ toolsListChanged: true }, { signal, timeout: options.timeoutMs }));
    options.log.line(`listening for tool list changes (subscriptions/listen${subscription.honoredFilter.toolsListChanged ? "" : ": the server did not agree to send them"})`);
    void subscription.closed.then((cause) => {
      open = false;
      if (cause === "remote") options.log.line("the subscriptions/listen stream ended: tool list changes are no longer followed");
    });
    const honored = subscription.honoredFilter.toolsListChanged === true;
    return () => honored && open;
  } catch (error) {
    options.log.line(`subscriptions/listen failed (${(error as Error).message ?? String(error)}): tool list changes are not followed`);
    return () => false;
  }
}

/**
 * True when `error` is the server saying the connection's session is gone: HTTP 404 to a request
 * that carried an `Mcp-Session-Id` (spec 2025-11-25 "Transports" → Session Management: the client
 * MUST then start a new session with a new `initialize`, without a session id).
 */
export function sessionGone(connection: Connection, error: unknown): boolean {
  return connection.transport === "http" && connection.sessionId !== undefined && httpStatus(error) === 404;
}

function makeTransport(config: ServerConfig, kind: Connection["transport"], log: ServerLog, auth: OpenOptions["auth"], onDrop: (why: string) => void): Transport {
  if (config.type === "stdio") {
    const transport = new GroupStdioTransport({ command: config.command, args: config.args, env: config.env, cwd: config.cwd });
    log.attach(transport.stderr);
    log.line(`starting ${config.command} ${config.args.join(" ")}`.trimEnd());
    return transport;
  }
  const url = new URL(config.url);
  const requestInit = { headers: config.headers };
  log.line(`connecting to ${url.origin}${url.pathname} over ${kind}`);
  const authOptions = { ...(auth ? { authProvider: auth.provider } : {}), fetch: watchingFetch(auth?.fetch, onDrop) };
  if (kind === "sse") {
    return new SSEClientTransport(url, { requestInit, ...authOptions });
  }
  return new StreamableHTTPClientTransport(url, { requestInit, ...authOptions });
}

/**
 * `base` (or the global fetch), with each POST answered by an SSE stream (Streamable HTTP
 * "Sending Messages to the Server": the answer comes on that stream) watched: when the stream
 * breaks (socket closed, network gone) and the request was not aborted by us, `onDrop` is told.
 * The SDK's transport itself only logs such a break and leaves the request pending.
 */
function watchingFetch(base: FetchLike | undefined, onDrop: (why: string) => void): FetchLike {
  return async (url, init) => {
    // The POST of a `tools/call` runs in its call's raw slot (see raw.ts).
    const slot = currentRawSlot();
    const response = await (base ?? fetch)(url, init);
    const isStream = response.headers.get("content-type")?.includes("text/event-stream") === true;
    if (init?.method !== "POST" || !response.body || (!isStream && !slot)) return response;
    const reader = response.body.getReader();
    // Read before the SDK's parser gets the chunk: the answer's digits are in the slot when it resolves.
    const tap = slot ? bodyReader(isStream, (text) => keepAnswer(slot, text)) : undefined;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { value, done } = await reader.read();
          if (done) {
            tap?.end();
            controller.close();
          } else {
            tap?.push(value);
            controller.enqueue(value);
          }
        } catch (error) {
          if (!isStream) {
            controller.error(error);
            return;
          }
          if (!init.signal?.aborted) onDrop(`the response stream broke (${(error as Error).message ?? String(error)})`);
          controller.error(error);
        }
      },
      cancel: (reason) => reader.cancel(reason),
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/** Keeps `text` in `slot` when it is an answer (not a request or notification) holding an unsafe integer. */
function keepAnswer(slot: RawSlot, text: string): void {
  if (!mayHoldUnsafeInteger(text)) return;
  const message = JSON.parse(text) as Record<string, unknown>;
  if (message && typeof message === "object" && "id" in message && "result" in message && !("method" in message)) slot.text = text;
}

/** Most requests whose answers a stdio connection waits for at once (older ones are forgotten). */
const MAX_WAITING = 1000;

/**
 * Ties the raw lines of a stdio server to the raw slots of the calls they answer: a request
 * sent inside a slot's context notes its id, and the answer's line is kept there (raw.ts).
 */
function keepRawAnswers(transport: GroupStdioTransport): void {
  const waiting = new Map<string | number, RawSlot>();
  const send = transport.send.bind(transport);
  transport.send = (message) => {
    const slot = currentRawSlot();
    if (slot && "method" in message && "id" in message && message.id !== undefined) {
      waiting.set(message.id, slot);
      if (waiting.size > MAX_WAITING) waiting.delete(waiting.keys().next().value!);
    }
    return send(message);
  };
  transport.onRawLine = (line, message) => {
    if (!("id" in message) || "method" in message || message.id === undefined) return;
    const slot = waiting.get(message.id);
    if (!slot) return;
    waiting.delete(message.id);
    if ("result" in message && mayHoldUnsafeInteger(line)) slot.text = line;
  };
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
