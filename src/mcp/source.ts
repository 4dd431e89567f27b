/**
 * One MCP server as a {@link ToolSource}: loads on demand or at start, lists its tools, calls
 * them with timeouts, restarts a server that died, follows `tools/list_changed`.
 *
 * Rule source: issue 2 "MCP servers"; seed "Tools in Shell" → "Load tools on demand", Errors;
 * MCP spec 2025-06-18 "Tools" (list, call, list_changed), "Lifecycle" (initialize, shutdown).
 */
import path from "node:path";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { displayName } from "../tool/text.js";
import { ToolCallError, type CatalogTool, type InvokeContext, type SourceState, type ToolSource } from "../tool/types.js";
import type { ServerConfig } from "../config/index.js";
import type { Connection } from "./connection.js";
import { DEFAULT_LOG_DIR, logFileFor, ServerLog } from "./log.js";
import type { McpCallResult } from "./result.js";
import { loadSdk, sdkIfLoaded } from "./sdk.js";
import { withChildSignal } from "./signals.js";
import { serverIdentity } from "./identity.js";
import { toCatalogTool } from "./tool.js";

/** Options shared by the sources of one host. */
export interface McpSourceOptions {
  /** Folder of server logs (`<logDir>/<server>.log`); default `.toolshell/logs` under the process's cwd. */
  logDir?: string;
}

/**
 * An MCP server behind the `tools` command.
 *
 * - `state()`: `not_loaded` until the first successful `load()` (or call), `ready` after,
 *   `failed` when the last start failed (`failure()` says why; the next `load()` or call tries
 *   again). A server that died after listing stays `ready` with its tools; its next call
 *   restarts it.
 * - `load()` is idempotent and concurrency-safe: callers share one connection attempt; a
 *   caller's `signal` only stops its own wait.
 * - Calls time out after `callTimeoutMs`, starts after `connectTimeoutMs` (`unavailable`,
 *   retryable); a call in flight when the server died answers `unavailable`, retryable.
 * - `close()` ends the connection and the process; afterwards every load or call answers
 *   `unavailable` (not retryable).
 */
export class McpServerSource implements ToolSource {
  readonly kind = "mcp" as const;
  readonly name: string;
  readonly config: ServerConfig;
  /** Absolute path of this server's log file. */
  readonly logFile: string;
  /** What the server is (command or URL), hashed: approval answers are bound to it. */
  readonly identity: string;

  #log: ServerLog;
  #state: SourceState = "not_loaded";
  #failure: ToolCallError | undefined;
  #tools: CatalogTool[] = [];
  #conn: Connection | undefined;
  #opening: Promise<Connection> | undefined;
  #closed = false;
  /** Aborted by close(): ends a start in progress. */
  readonly #closing = new AbortController();
  /** Failed starts in a row, and when the next start may be tried (epoch ms). */
  #failures = 0;
  #retryAt = 0;
  #listeners = new Set<(tools: CatalogTool[]) => void>();
  #relisting = false;
  #relistAgain = false;

  /** @param config one entry from parseServersConfig. */
  constructor(config: ServerConfig, options: McpSourceOptions = {}) {
    this.config = config;
    this.name = config.name;
    this.identity = serverIdentity(config);
    this.logFile = logFileFor(path.resolve(options.logDir ?? DEFAULT_LOG_DIR), config.name);
    this.#log = new ServerLog(this.logFile);
  }

  /** See the class docstring. */
  state(): SourceState {
    return this.#state;
  }

  /** Why the last start failed, while state() is `failed`. */
  failure(): ToolCallError | undefined {
    return this.#state === "failed" ? this.#failure : undefined;
  }

  /** The tools as last listed (empty until loaded). */
  tools(): CatalogTool[] {
    return this.#tools;
  }

  /** See ToolSource.leftOut: tools of the last listing that no command reaches. */
  leftOut(): Array<{ name: string; kept: string }> {
    return this.#leftOut;
  }
  #leftOut: Array<{ name: string; kept: string }> = [];

  /** The pid of the running stdio server process, or undefined when none runs (or for HTTP). */
  pid(): number | undefined {
    return this.#conn?.pid;
  }

  /**
   * Calls `listener` with the new tool list each time it changes after
   * `notifications/tools/list_changed` (spec "Tools" → List Changed Notification).
   * @returns a function that removes the listener.
   */
  onToolsChanged(listener: (tools: CatalogTool[]) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Starts the server (if no connection is up) and lists its tools; resolves at once when the
   * server is `ready`. Throws ToolCallError: `unavailable` (retryable for timeouts and crashes),
   * `connection_required` (HTTP 401/403).
   */
  async load(signal?: AbortSignal): Promise<void> {
    if (this.#state === "ready" && !this.#closed) return;
    await this.#connection(signal);
  }

  /** Ends the connection and its process; a start in progress is aborted (its process ended). Never throws. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#closing.abort();
    const conn = this.#conn;
    this.#conn = undefined;
    const opening = this.#opening;
    await conn?.close();
    if (opening) await opening.then((c) => c.close(), () => {});
    this.#log.line("closed");
    await this.#log.close();
  }

  #connection(signal?: AbortSignal): Promise<Connection> {
    if (this.#closed) return Promise.reject(this.#closedError());
    if (this.#conn && !this.#conn.closed) return Promise.resolve(this.#conn);
    // After a failed start, wait before spawning again (1 s, doubling to 30 s): a script that
    // loops over a broken server gets the last failure instead of a new process each time.
    if (!this.#opening && this.#failure && Date.now() < this.#retryAt) return Promise.reject(this.#failure);
    if (!this.#opening) {
      this.#opening = this.#open().finally(() => {
        this.#opening = undefined;
      });
    }
    return waitFor(this.#opening, signal, this.name);
  }

  async #open(): Promise<Connection> {
    const timeoutMs = this.config.connectTimeoutMs;
    const deadline = AbortSignal.any([AbortSignal.timeout(timeoutMs), this.#closing.signal]);
    this.#log.resetTail();
    const { connection, errors, types } = await loadSdk();
    let conn: Connection | undefined;
    try {
      conn = await connection.openConnection(this.config, {
        log: this.#log,
        deadline,
        timeoutMs,
        onLost: (lost) => {
          if (this.#conn === lost) this.#conn = undefined;
        },
        onToolsChanged: (changed) => this.#relist(changed),
      });
      const listed = await connection.listAllTools(conn.client, deadline, timeoutMs);
      if (this.#closed) throw this.#closedError();
      this.#tools = this.#catalogTools(listed);
      this.#conn = conn;
      this.#state = "ready";
      this.#failure = undefined;
      this.#failures = 0;
      this.#log.line(`listed ${this.#tools.length} tools`);
      return conn;
    } catch (error) {
      await conn?.close();
      const timedOut = deadline.aborted;
      const failure = this.#closed
        ? this.#closedError()
        : errors.toCallError(timedOut ? new types.McpError(types.ErrorCode.RequestTimeout, "connect timed out") : error, {
            server: this.name,
            phase: "connect",
            timeoutMs,
            stderrTail: this.#log.tail(),
          });
      this.#log.line(`start failed: ${failure.message}`);
      if (!this.#closed) {
        this.#state = "failed";
        this.#failure = failure;
        this.#failures++;
        this.#retryAt = Date.now() + Math.min(30_000, 1000 * 2 ** (this.#failures - 1));
      }
      throw failure;
    }
  }

  /** Sends one tools/call on the live connection (restarting the server when it is down). */
  #call = async (name: string, args: Record<string, unknown>, ctx: InvokeContext): Promise<McpCallResult> => {
    const timeoutMs = this.config.callTimeoutMs;
    const place = { server: this.name, phase: "call" as const, tool: name, timeoutMs };
    // Awaits only what is not ready yet: a call on a live connection goes straight to the SDK.
    const { errors, types } = sdkIfLoaded() ?? (await loadSdk());
    if (ctx.signal.aborted) throw errors.toCallError(ctx.signal.reason, { ...place, aborted: true });
    const live = this.#conn && !this.#conn.closed && !this.#closed ? this.#conn : undefined;
    const conn = live ?? (await this.#connection(ctx.signal));
    try {
      const result = await withChildSignal(ctx.signal, (signal) =>
        conn.client.callTool({ name, arguments: args }, types.CallToolResultSchema, { signal, timeout: timeoutMs }),
      );
      return result as McpCallResult;
    } catch (error) {
      throw errors.toCallError(error, { ...place, aborted: ctx.signal.aborted });
    }
  };

  /**
   * The listed tools as catalog tools. A tool whose command words repeat an earlier one's (names
   * that differ only in `-` and `_`, such as `delete_file` and `delete-file`) is left out and the
   * log says so: one command calls one tool, and a person's answer covers exactly that tool.
   */
  #catalogTools(listed: Tool[]): CatalogTool[] {
    const taken = new Map<string, string>();
    const out: CatalogTool[] = [];
    this.#leftOut = [];
    for (const tool of listed) {
      const words = displayName(tool.name);
      const first = taken.get(words);
      if (first !== undefined) {
        this.#log.line(`tool "${tool.name}" left out: "tools ${this.name} ${words}" already calls "${first}"`);
        this.#leftOut.push({ name: tool.name, kept: first });
        continue;
      }
      taken.set(words, tool.name);
      const t = toCatalogTool(tool, this.name, this.#call, (note) => this.#log.line(note));
      t.identity = this.identity;
      out.push(t);
    }
    return out;
  }

  /** Re-lists after list_changed; one listing at a time, one more if notified meanwhile. */
  #relist(conn: Connection): void {
    if (this.#relisting) {
      this.#relistAgain = true;
      return;
    }
    this.#relisting = true;
    void (async () => {
      do {
        this.#relistAgain = false;
        try {
          const timeoutMs = this.config.connectTimeoutMs;
          const listed = await (await loadSdk()).connection.listAllTools(conn.client, undefined, timeoutMs);
          if (this.#closed || this.#conn !== conn) break;
          this.#tools = this.#catalogTools(listed);
          this.#log.line(`tools changed: listed ${this.#tools.length} tools`);
          for (const listener of this.#listeners) {
            try {
              listener(this.#tools);
            } catch {}
          }
        } catch (error) {
          this.#log.line(`re-listing after tools/list_changed failed: ${error instanceof Error ? error.message : String(error)}`);
        }
      } while (this.#relistAgain && !this.#closed);
      this.#relisting = false;
    })();
  }

  #closedError(): ToolCallError {
    return new ToolCallError("unavailable", `MCP server "${this.name}" is closed`, false);
  }
}

/**
 * Waits for `promise`, or rejects with `unavailable` (retryable) when `signal` aborts first;
 * the promise itself goes on (other callers may share it).
 */
function waitFor<T>(promise: Promise<T>, signal: AbortSignal | undefined, server: string): Promise<T> {
  if (!signal) return promise;
  const aborted = () => new ToolCallError("unavailable", `MCP server "${server}": waiting for it to start was aborted`, true);
  if (signal.aborted) return Promise.reject(aborted());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(aborted());
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
