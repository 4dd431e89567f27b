/**
 * The host: a ToolShell wired to its store (SQLite by default), saved scripts, approvals and
 * ratings kept in the store, secrets redacted, spans emitted, and triggers. The one place that
 * puts the layers together (runtime defines the ports; store/ and scripts/ implement them).
 *
 * The runtime never imports store/, scripts/ or server/: they are wired here through
 * `buildToolShell` options (docs/architecture.md "The composition root").
 */
import { AsyncResource } from "node:async_hooks";
import path from "node:path";
import { loadConfig, parseServerConfig, privateDir, type HttpApiConfig, type ServerConfig, type ToolshellConfig, type TriggerSpec } from "../config/index.js";
import { buildToolShell, checkWorkspace, watchConfigFile, type ConfigWatch, type Session, type SessionEvent, type ToolShell, type ToolShellOptions } from "../runtime/index.js";
import { createScripts } from "../scripts/index.js";
import { SignInBroker } from "../mcp/index.js";
import { isStoreUrl, openStore, otelEventSink, type Store } from "../store/index.js";
import { dropMootRemovals, followSharedState, mergeServers, type SharedStateFollower } from "./shared-state.js";
import { TriggerService, type WakeCall } from "./triggers.js";


/** Options of {@link openHost}: those of `createToolShell`, with `store` as a path or a Store. */
export interface HostOptions extends Omit<ToolShellOptions, "store"> {
  /**
   * A store, a SQLite file path, `:memory:`, or a `postgres://` / `postgresql://` URL (the
   * PostgreSQL store; docs/sessions.md "The store"). Default: config `store`, else
   * `<config dir>/.toolshell/state.db`.
   */
  store?: string | Store;
  /**
   * The PostgreSQL URL triggers run on with pg-boss (default: the store's, when it is a
   * `postgres://` URL). Needed when `store` is a Store object over PostgreSQL.
   */
  postgresUrl?: string;
  /** The wake-agent callback (default: POST to config `server.wakeAgent.url` when set). */
  wakeAgent?: (call: WakeCall) => void | Promise<void>;
}

/** A running host. */
/** A line a host says about itself (see {@link Host.onNote}). */
export interface HostNote {
  level: "info" | "warn" | "error";
  event: string;
  message: string;
}

export interface Host {
  readonly shell: ToolShell;
  readonly store: Store;
  readonly config: ToolshellConfig;
  readonly server: HttpApiConfig;
  readonly triggers: TriggerService;
  /** The config file's triggers, parsed (started by {@link Host.startTriggers}). */
  readonly configTriggers: TriggerSpec[];
  /** A session (restored from the store when it exists there). `metadata.agent_id` names its agent. */
  session(id?: string, metadata?: Record<string, unknown>, open?: { anyOwner?: boolean }): Session;
  /**
   * Calls `listener` with every session event of this host (after the store recorded it), until
   * the returned function is called. A listener that throws is ignored. The console's live
   * updates use this.
   */
  subscribe(listener: (event: SessionEvent) => void): () => void;
  /**
   * Calls `listener` with each line this host says about itself while it follows its config file
   * and the store (`config.reloaded`, `config.not_reloaded`, `config.needs_restart`,
   * `servers.changed`, `shared_state.not_applied`), besides the line on stderr; `serve` logs them
   * (docs/deployment.md "Logs"). Until the returned function is called.
   */
  onNote(listener: (note: HostNote) => void): () => void;
  /** Brings config triggers into the store, runs missed schedules once, starts the schedules. */
  startTriggers(): Promise<void>;
  /** Stops the triggers: no new runs start here (the runs in flight go on). Never rejects. */
  stopTriggers(): Promise<void>;
  /** The config file's servers (those of the last good reload); the store's are over them (server/shared-state.ts). */
  fileServers(): readonly ServerConfig[];
  /**
   * Takes a reloaded config file in: its servers (with the store's over them) and its approval
   * rules. @returns what changed, in words. @throws Error at the first change refused.
   */
  reloadConfig(next: ToolshellConfig): Promise<string[]>;
  /**
   * Keeps this long-running host current — the one way every host (`serve`, the MCP gateway, the
   * CLI's warm host) follows changes made elsewhere: the config file (watched, reloaded through
   * {@link Host.reloadConfig}, so the store's servers stay over the file's) and the store's shared
   * state (servers set through the API, triggers made elsewhere, tool lists changed on another
   * replica). With `replica`, it also announces this process as a live replica
   * (docs/deployment.md). A second call only adds the announcement when the first had none.
   */
  follow(replica?: { kind: string; url: string }): Promise<void>;
  /** Stops triggers, MCP servers, and closes the store. Never rejects. */
  close(): Promise<void>;
}

/** The store of a config: its `store` (a file or a PostgreSQL URL), else `<config dir>/.toolshell/state.db`. */
export function defaultStorePath(config: Pick<ToolshellConfig, "baseDir" | "store">): string {
  return config.store ?? path.join(config.baseDir, ".toolshell", "state.db");
}

/**
 * POSTs the wake call as JSON to `url` with `headers`; 10 s time limit.
 * @throws Error on a non-2xx answer or a network failure.
 */
export async function postWake(url: string, headers: Record<string, string>, call: WakeCall): Promise<void> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ type: "trigger.run_failed", trigger: call.trigger, run: call.run, report: call.report?.tools ?? null, exit_code: call.report?.exit_code ?? null }),
    signal: AbortSignal.timeout(10_000),
  });
  if (!res.ok) throw new Error(`wake-agent callback answered ${res.status}`);
}

/**
 * Opens a host: parses the config, opens the store, creates the ToolShell over it.
 * @throws Error on a bad config (including `server` and `triggers`), a store that cannot open,
 *         or whatever `createToolShell` throws.
 */
export async function openHost(options: HostOptions = {}): Promise<Host> {
  const env = options.env ?? process.env;
  const config: ToolshellConfig = loadConfig(options);
  const server = parseServerConfig(config, env);
  const configTriggers = config.triggers;
  if (options.workspaceDir) {
    const location = typeof options.store === "object" ? undefined : (options.store ?? defaultStorePath(config));
    // A database server's store is not a file in the workspace.
    const storePath = location === undefined || location === ":memory:" || isStoreUrl(location) ? undefined : location;
    checkWorkspace(options.workspaceDir, config, { toolsDir: options.toolsDir, skillsDir: options.skillsDir, storePath, importFiles: options.importFiles });
  }
  // The default state folder holds the store, server logs and serve files: its owner's only.
  if (options.store === undefined && config.store === undefined) {
    try {
      privateDir(path.dirname(defaultStorePath(config)));
    } catch {}
  }
  const noteListeners = new Set<(note: HostNote) => void>();
  const say = (level: HostNote["level"], event: string, message: string) => {
    process.stderr.write(`toolshell: ${message}\n`);
    for (const l of noteListeners) {
      try {
        l({ level, event, message });
      } catch {}
    }
  };
  const store: Store =
    typeof options.store === "object"
      ? options.store
      : await openStore(options.store ?? defaultStorePath(config), {
          poolSize: config.storePool.queries,
          leasePoolSize: config.storePool.leases,
          // A lost connection to a database server is said, and so is its return (docs/deployment.md "Logs").
          onConnection: (state, message) => say(state === "lost" ? "error" : "info", `store.${state}`, message),
          onWriteError: (err) => say("error", "store.write_failed", `the store could not write: ${err.message}`),
        });
  let shell: ToolShell;
  const listeners = new Set<(event: SessionEvent) => void>();
  // Set below, once the shell exists: an answer in a trigger's session lets its stopped run go on.
  const answered: { to?: (sessionId: string, requestId: string) => void } = {};
  try {
    const scripts = createScripts({ store, manageScripts: config.manageScripts });
    const otel = otelEventSink();
    const userOnEvent = options.onEvent;
    // The config is loaded and the workspace checked once, above: the shell is built from them.
    shell = await buildToolShell(config, {
      ...options,
      store,
      approvalBook: options.approvalBook ?? ((sessionId) => store.approvalBook(sessionId)),
      approvalBooksChanged: options.approvalBook ? options.approvalBooksChanged : () => store.changedElsewhere?.() ?? false,
      ratingCache: options.ratingCache ?? store.ratings,
      sessionSources: scripts.sessionSources,
      subcommands: { ...scripts.subcommands, ...options.subcommands },
      approvalScope: options.approvalScope ?? scripts.approvalScope,
      secrets: [...(options.secrets ?? []), ...server.tokens, ...Object.values(server.wakeAgent?.headers ?? {})],
      // OAuth sign-ins live in the store, per server and principal (README "Sign-in").
      oauth: options.oauth ?? (store.credentials ? { store: store.credentials, broker: new SignInBroker() } : undefined),
      onEvent: (e) => {
        otel(e);
        if (e.type === "approval.answered") answered.to?.(e.session_id, e.request_id);
        for (const l of listeners) {
          try {
            l(e);
          } catch {}
        }
        userOnEvent?.(e);
      },
    });
  } catch (err) {
    if (typeof options.store !== "object") await store.close().catch(() => {});
    throw err;
  }
  const wake = options.wakeAgent ?? (server.wakeAgent ? (call: WakeCall) => postWake(server.wakeAgent!.url, server.wakeAgent!.headers, call) : undefined);
  // With PostgreSQL, triggers run on pg-boss over the same database (docs/deployment.md → Triggers).
  const storeRef = typeof options.store === "string" ? options.store : typeof options.store === "object" ? undefined : config.store;
  const postgresUrl = options.postgresUrl ?? (storeRef && isStoreUrl(storeRef) ? storeRef : undefined);
  const triggers = new TriggerService({ shell, store, wakeAgent: wake, ...(postgresUrl ? { postgresUrl } : {}) });
  // Run outside the answer's async context (made here, held by no session): the run it lets go
  // on holds the trigger's session itself, after the answer let it go.
  const outside = new AsyncResource("toolshell.trigger-answer");
  answered.to = (sessionId, requestId) => outside.runInAsyncScope(() => void triggers.answered(sessionId, requestId));
  let closed = false;
  let fileServers: readonly ServerConfig[] = [...config.servers];
  let follower: SharedStateFollower | undefined;
  let watch: ConfigWatch | undefined;
  // Servers set through the API before this host started (in the store) are in force from the start.
  await dropMootRemovals(store, fileServers).catch(() => {});
  await shell.setServers(mergeServers(config, fileServers, await store.listShared("server"), env)).catch((err: unknown) => {
    process.stderr.write(`toolshell: the shared servers were not all applied: ${shell.redactor.text((err as Error).message)}\n`);
  });
  const host: Host = {
    shell,
    store,
    config,
    server,
    triggers,
    configTriggers,
    session: (id, metadata, open) => shell.session(id, metadata, open),
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    onNote(listener) {
      noteListeners.add(listener);
      return () => void noteListeners.delete(listener);
    },
    startTriggers: () => triggers.start(configTriggers),
    stopTriggers: () => triggers.stop().catch(() => {}),
    fileServers: () => fileServers,
    async reloadConfig(next) {
      const said = shell.reloadRules(next);
      fileServers = [...next.servers];
      await dropMootRemovals(store, fileServers).catch(() => {});
      const servers = mergeServers(config, fileServers, await store.listShared("server"), env);
      const before = JSON.stringify(shell.config.servers);
      await shell.setServers(servers);
      if (JSON.stringify(shell.config.servers) !== before) said.push("servers");
      return said;
    },
    async follow(replica) {
      if (closed) return;
      if (!watch && config.file) watch = watchConfigFile(shell, config.file, { env, say, apply: (next) => host.reloadConfig(next) });
      if (follower && (!replica || follower.announced)) return;
      const before = follower;
      follower = await followSharedState({ shell, store, env, report: (m) => say("warn", "shared_state.not_applied", m), told: (m) => say("info", "servers.changed", m), fileServers: () => fileServers, syncTriggers: () => triggers.sync(), ...(replica ? { replica } : {}) });
      await before?.close();
    },
    async close() {
      if (closed) return;
      closed = true;
      watch?.close();
      await follower?.close();
      await triggers.stop().catch(() => {});
      await shell.close().catch(() => {});
      if (!options.oauth) await shell.oauth.broker.close().catch(() => {});
      if (typeof options.store !== "object") {
        await store.close().catch(() => {});
      }
    },
  };
  return host;
}
