/**
 * One MCP server as a {@link ToolSource}: loads on demand or at start, lists its tools, calls them with timeouts, restarts a server that died, follows `tools/list_changed`.
 * See docs/mcp.md → Client; MCP spec 2025-06-18 "Tools" and "Lifecycle".
 */
import path from "node:path";
import { displayName } from "../tool/text.js";
import { ToolCallError, type CatalogTool, type InvokeContext, type SourceState, type ToolSource } from "../tool/types.js";
import type { ServerConfig } from "../config/index.js";
import { currentPrincipal, DEFAULT_PRINCIPAL, MemoryCredentialStore, oauthSettings, principalOf, type OAuthSettings } from "./auth/credentials.js";
import type { OAuthContext } from "./auth/index.js";
import type { StoredOAuthProvider } from "./auth/provider.js";
import { SignInBroker } from "./auth/sign-in.js";
import { listingPrincipal, signInPlace } from "./auth/source-sign-in.js";
import type { Connection } from "./connection.js";
import { DEFAULT_LOG_DIR, logFileFor, ServerLog, type LogRedactor } from "./log.js";
import type { Client, RequestOptions } from "@modelcontextprotocol/client";
import { callToolKeepingDigits, PersonRelay, type McpCallResult } from "./relay.js";
import { syntheticTools } from "./resources.js";
import { loadSdk, sdkIfLoaded } from "./sdk.js";
import { waitFor, withChildSignal } from "./signals.js";
import { serverIdentity } from "./identity.js";
import type { ListedTool } from "./listing.js";
import { ListClock } from "./freshness.js";
import { toCatalogTool } from "./tool.js";

/** Options shared by the sources of one host. */
export interface McpSourceOptions {
  /** Folder of server logs (`<logDir>/<server>.log`); default `.toolshell/logs` under the process's cwd. */
  logDir?: string;
  /** OAuth sign-in shared by the host's servers (store, broker, redactor hook); default: in memory, a broker of its own. */
  oauth?: OAuthContext;
  /** The host's redactor: every line of the server's log passes through it (log.ts), and the stderr tail of a start failure. */
  redactor: LogRedactor;
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
  #relay: PersonRelay;
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
  #listeners = new Set<(tools: CatalogTool[], cause: "server" | "asked") => void>();
  #relisting = false;
  #relistCause: "server" | undefined; // "server": a listing under way or due was asked for by the server's list_changed
  #relistAgain = false;
  /** OAuth settings when this server signs in (HTTP without `"oauth": false` or its own Authorization header). */
  readonly #oauthSettings: OAuthSettings | undefined;
  readonly #oauth: OAuthContext | undefined;
  readonly #ownBroker: SignInBroker | undefined;
  /** One SDK OAuth client per principal. */
  readonly #providers = new Map<string, StoredOAuthProvider>();
  /** The principal whose connection is `#conn` (and listed the tools). */
  #listedAs = DEFAULT_PRINCIPAL;
  #era: Connection["era"]; // the protocol era this server agreed, kept across reconnects
  /** Connections of the other principals (OAuth servers only): each person's calls carry their own token. */
  readonly #others = new Map<string, Promise<Connection>>();

  /** @param config one entry from parseServersConfig. @throws Error when the entry's `oauth` settings are malformed. */
  constructor(config: ServerConfig, options: McpSourceOptions) {
    this.config = config;
    this.name = config.name;
    this.identity = serverIdentity(config);
    this.logFile = logFileFor(path.resolve(options.logDir ?? DEFAULT_LOG_DIR), config.name);
    this.#log = new ServerLog(this.logFile, options.redactor);
    this.#relay = new PersonRelay(this.name, this.#log);
    this.#oauthSettings = oauthSettings(config);
    if (this.#oauthSettings) {
      if (!options.oauth) this.#ownBroker = new SignInBroker();
      this.#oauth = options.oauth ?? { store: new MemoryCredentialStore(), broker: this.#ownBroker! };
    }
  }

  /** See the class docstring. */
  state(): SourceState {
    return this.#state;
  }

  /** Why the last start failed, while state() is `failed`. */
  failure = (): ToolCallError | undefined => (this.#state === "failed" ? this.#failure : undefined);

  /** The tools as last listed (empty until loaded); a 2026 list past its `ttlMs` is listed again (freshness.ts). */
  tools(): CatalogTool[] {
    if (this.#fresh.due(this.#conn?.listening)) this.relist();
    return this.#tools;
  }
  readonly #fresh = new ListClock();

  /** See ToolSource.leftOut: tools of the last listing that no command reaches. */
  leftOut(): Array<{ name: string; kept: string }> {
    return this.#leftOut;
  }
  #leftOut: Array<{ name: string; kept: string }> = [];

  /** The pid of the running stdio server process, or undefined when none runs (or for HTTP). */
  pid = (): number | undefined => this.#conn?.pid;

  /**
   * Calls `listener` with the new tool list each time it was listed again: after the server's
   * `notifications/tools/list_changed` (`cause` "server"; spec "Tools" → List Changed
   * Notification), or after {@link McpServerSource.relist} (`cause` "asked").
   * @returns a function that removes the listener.
   */
  onToolsChanged(listener: (tools: CatalogTool[], cause: "server" | "asked") => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Lists the tools again now, as after list_changed (told to another replica: docs/deployment.md); no-op unless ready. */
  relist(): void {
    if (this.#conn && !this.#closed && this.#state === "ready") this.#relist(this.#conn, "asked");
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
    const others = [...this.#others.values()];
    this.#others.clear();
    await Promise.all(others.map((o) => o.then((c) => c.close(), () => {})));
    await this.#ownBroker?.close();
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
    const { connection, errors, listing } = await loadSdk();
    let conn: Connection | undefined;
    const principal = await listingPrincipal(this.#oauth, this.name, (this.config as { url?: string }).url);
    const provider = await this.#provider(principal, currentPrincipal()?.sessionId);
    try {
      await provider?.refreshIfExpiring();
      conn = await connection.openConnection(this.config, {
        log: this.#log,
        deadline,
        timeoutMs,
        onLost: (lost) => {
          if (this.#conn === lost) this.#conn = undefined;
        },
        onToolsChanged: (changed) => this.#relist(changed),
        onElicit: this.#relay.onElicit,
        era: this.#era,
        ...(provider ? { auth: { provider, fetch: provider.fetch } } : {}),
      });
      this.#era = conn.era;
      const listed = await listing.listAllTools(conn.client, deadline, timeoutMs, (note) => this.#log.line(note), this.#fresh.stamp);
      if (this.#closed) throw this.#closedError();
      this.#tools = this.#catalogTools(listed, conn);
      this.#conn = conn;
      this.#listedAs = principal;
      this.#state = "ready";
      this.#failure = undefined;
      this.#failures = 0;
      this.#log.line(`listed ${this.#tools.length} tools`);
      return conn;
    } catch (error) {
      await conn?.close();
      if (this.config.type === "stdio" && errors.eraUnagreed(error)) this.#era = { kind: "legacy" }; // ended on the era probe: a 2025 server
      const timedOut = deadline.aborted;
      const failure = this.#closed
        ? this.#closedError()
        : errors.toCallError(timedOut ? errors.connectTimedOut() : error, {
            server: this.name,
            phase: "connect",
            timeoutMs,
            stderrTail: this.#log.tail(),
            ...signInPlace(this.#oauth?.broker, this.name, provider, error),
          });
      failure.message = this.#log.redacted(failure.message); // whole, before a listing cuts it (docs/security.md "What each limit defends")
      this.#log.line(`start failed: ${failure.message}`);
      if (!this.#closed) {
        this.#state = "failed";
        this.#failure = failure;
        this.#failures++;
        // A server waiting for the person to sign in is asked again at once: the sign-in may
        // have finished a second ago, and no process is started by asking.
        this.#retryAt = failure.code === "connection_required" ? 0 : Date.now() + Math.min(30_000, 1000 * 2 ** (this.#failures - 1));
      }
      throw failure;
    }
  }

  /** Sends one tools/call on the live connection (restarting the server when it is down). */
  #call = (name: string, args: Record<string, unknown>, ctx: InvokeContext, taskSupport?: unknown): Promise<McpCallResult> =>
    this.#request(name, ctx, (client, options) => callToolKeepingDigits(client, name, args, options, taskSupport));

  /** Sends what `send` sends for the tool `name` on the live connection, with the call's timeout, signal and errors. */
  #request = async (name: string, ctx: InvokeContext, send: (client: Client, options: RequestOptions) => Promise<McpCallResult>): Promise<McpCallResult> => {
    const timeoutMs = this.config.callTimeoutMs;
    const place = { server: this.name, phase: "call" as const, tool: name, timeoutMs };
    // Awaits only what is not ready yet: a call on a live connection (no sign-in) goes straight to the SDK.
    const { errors } = sdkIfLoaded() ?? (await loadSdk());
    if (ctx.signal.aborted) throw errors.toCallError(ctx.signal.reason, { ...place, aborted: true });
    const principal = this.#oauthSettings ? principalOf(ctx.session.metadata) : DEFAULT_PRINCIPAL;
    const provider = this.#oauthSettings ? await this.#provider(principal, ctx.session.id) : undefined;
    const connect = async (): Promise<Connection> => {
      try {
        await provider?.refreshIfExpiring();
        if (provider && principal !== this.#listedAs) return await this.#connectionFor(principal, provider, ctx.signal);
        const live = this.#conn && !this.#conn.closed && !this.#closed ? this.#conn : undefined;
        return live ?? (await this.#connection(ctx.signal));
      } catch (error) {
        throw errors.toCallError(error, { ...place, phase: "connect", timeoutMs: this.config.connectTimeoutMs, aborted: ctx.signal.aborted, ...signInPlace(this.#oauth?.broker, this.name, provider, error) });
      }
    };
    const conn = (!provider && this.#conn && !this.#conn.closed && !this.#closed ? this.#conn : undefined) ?? (await connect());
    try {
      return await withChildSignal(ctx.signal, (signal) => this.#relay.run(conn, name, ctx, { signal, timeout: timeoutMs }, send));
    } catch (error) {
      const { connection } = sdkIfLoaded() ?? (await loadSdk());
      if (ctx.signal.aborted || !connection.sessionGone(conn, error)) throw errors.toCallError(error, { ...place, aborted: ctx.signal.aborted, ...signInPlace(this.#oauth?.broker, this.name, provider, error) });
      // The server no longer knows the session (it restarted): a new session, and the call once
      // more, since a 404 means the request was not processed (spec "Transports" → Session Management).
      this.#log.line(`session ${conn.sessionId} not found (HTTP 404): starting a new session and sending ${name} again`);
      await this.#forget(conn);
    }
    const fresh = await connect();
    try {
      return await withChildSignal(ctx.signal, (signal) => this.#relay.run(fresh, name, ctx, { signal, timeout: timeoutMs }, send));
    } catch (error) {
      throw errors.toCallError(error, { ...place, aborted: ctx.signal.aborted, ...signInPlace(this.#oauth?.broker, this.name, provider, error) });
    }
  };

  /** Ends `conn` and forgets it, so the next request opens a new one. */
  async #forget(conn: Connection): Promise<void> {
    if (this.#conn === conn) this.#conn = undefined;
    for (const [principal, opening] of this.#others) {
      if ((await opening.catch(() => undefined)) === conn) this.#others.delete(principal);
    }
    await conn.close();
  }

  /**
   * The SDK OAuth client of `principal` (created on first use), or undefined when this server
   * does not sign in. `sessionId` names the session whose call may start a sign-in.
   */
  async #provider(principal: string, sessionId?: string): Promise<StoredOAuthProvider | undefined> {
    if (!this.#oauthSettings || !this.#oauth) return undefined;
    let p = this.#providers.get(principal);
    if (!p) {
      const { oauth } = await loadSdk();
      p = new oauth.StoredOAuthProvider(this.config as Extract<ServerConfig, { url: string }>, {
        principal,
        settings: this.#oauthSettings, store: this.#oauth.store,
        broker: this.#oauth.broker,
        onSecret: this.#oauth.onSecret,
        log: this.#log, // the SDK's console lines of sign-in and refresh (sdk-console.ts)
      });
      this.#providers.set(principal, p);
    }
    if (sessionId !== undefined) p.sessionId = sessionId;
    p.challenged = false;
    return p;
  }

  /** The connection of a principal other than the listing one (opened on first use, reopened when it closed). */
  async #connectionFor(principal: string, provider: StoredOAuthProvider, signal: AbortSignal): Promise<Connection> {
    if (this.#closed) throw this.#closedError();
    let opening = this.#others.get(principal);
    const current = opening ? await opening.catch(() => undefined) : undefined;
    if (!current || current.closed) {
      const { connection } = await loadSdk();
      const timeoutMs = this.config.connectTimeoutMs;
      const deadline = AbortSignal.any([AbortSignal.timeout(timeoutMs), this.#closing.signal]);
      const auth = { provider, fetch: provider.fetch };
      opening = connection.openConnection(this.config, { log: this.#log, deadline, timeoutMs, onLost: () => {}, onToolsChanged: () => {}, onElicit: this.#relay.onElicit, auth });
      this.#others.set(principal, opening);
      opening.catch(() => {
        if (this.#others.get(principal) === opening) this.#others.delete(principal);
      });
    }
    return waitFor(opening!, signal, this.name);
  }

  /**
   * The listed tools as catalog tools. A tool whose command words repeat an earlier one's (names
   * that differ only in `-` and `_`, such as `delete_file` and `delete-file`) is left out and the
   * log says so: one command calls one tool, and a person's answer covers exactly that tool.
   */
  #catalogTools(listed: ListedTool[], conn: Connection): CatalogTool[] {
    const taken = new Map<string, string>();
    const out: CatalogTool[] = [];
    this.#leftOut = [];
    for (const { tool, notes } of listed) {
      const words = displayName(tool.name);
      const first = taken.get(words);
      if (first !== undefined) {
        this.#log.line(`tool "${tool.name}" left out: "tools ${this.name} ${words}" already calls "${first}"`);
        this.#leftOut.push({ name: tool.name, kept: first });
        continue;
      }
      taken.set(words, tool.name);
      const t = toCatalogTool(tool, this.name, this.#call, (note) => this.#log.line(note), notes);
      t.identity = this.identity;
      out.push(t);
    }
    for (const s of syntheticTools(conn.client, new Set(taken.values()))) {
      const t = toCatalogTool(s.tool, this.name, (name, args, ctx) => this.#request(name, ctx, (client, options) => s.send(client, args, options)));
      t.identity = this.identity;
      out.push(t);
    }
    return out;
  }

  /** Re-lists after list_changed; one listing at a time, one more if notified meanwhile. */
  #relist(conn: Connection, cause: "server" | "asked" = "server"): void {
    if (cause === "server") this.#relistCause = "server";
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
          const listed = await (await loadSdk()).listing.listAllTools(conn.client, undefined, timeoutMs, (note) => this.#log.line(note), this.#fresh.stamp);
          if (this.#closed || this.#conn !== conn) break;
          this.#tools = this.#catalogTools(listed, conn);
          this.#log.line(`tools changed: listed ${this.#tools.length} tools`);
          const told = this.#relistCause ?? "asked";
          this.#relistCause = undefined;
          for (const listener of this.#listeners) {
            try {
              listener(this.#tools, told);
            } catch {}
          }
        } catch (error) {
          this.#log.line(`re-listing after tools/list_changed failed: ${error instanceof Error ? error.message : String(error)}`);
        }
      } while (this.#relistAgain && !this.#closed);
      this.#relisting = false;
    })();
  }

  #closedError = () => new ToolCallError("unavailable", `MCP server "${this.name}" is closed`, false);
}
