/**
 * `createToolShell`: the sources (local tools, MCP servers, saved scripts), the policy, the call
 * pipeline, and the sessions that run shell calls over them. `buildToolShell` is the composition
 * root: the one place a loaded config becomes a running host (docs/architecture.md).
 *
 * See docs/architecture.md → The composition root.
 */
import { randomUUID } from "node:crypto";
import path from "node:path";
import { CallPipeline, configSecrets, createRedactor } from "../call/index.js";
import { Catalog, FilteredSource, foldName, namesakes, reachableFromShell, renderIndex, splitTools, type SplitRules } from "../catalog/index.js";
import { closeSources, createMcpSources, loadEagerSources, MemoryCredentialStore, SignInBroker, type McpServerSource, type OAuthContext } from "../mcp/index.js";
import { ApprovalBook, offlineRater, Policy, Rater } from "../policy/index.js";
import { assertEngine, defaultEngineCommands, SHELL_NOTES } from "../shell/index.js";
import { LocalToolSource, loadToolsDir, type ToolDefinition, type ToolSource } from "../tool/index.js";
import { loadConfig, parseServerEntry, type ServerConfig, type ToolshellConfig } from "../config/index.js";
import { ShellHost } from "./host.js";
import { Session } from "./session.js";
import { openerOf, ownerRefusal } from "./lineage.js";
import { checkWorkspace } from "./workspace-guard.js";
import type { ToolShell, ToolShellOptions } from "./toolshell-options.js";

export { checkWorkspace };

/** A runtime server change that names a server wrongly: `not_found` (no such server) or `conflict` (it exists). */
export class ServerChangeError extends Error {
  constructor(
    readonly code: "not_found" | "conflict",
    message: string,
  ) {
    super(message);
  }
}

export type { ToolShell, ToolShellOptions };

/**
 * Creates a ToolShell: reads the config, loads local tool files (never running `execute`),
 * creates MCP sources and connects the eager ones (failures are kept per server, not thrown).
 * @throws Error on a bad config file or a tool file that does not load, or when the shell engine
 *   loaded is not the one this toolshell was built with (shell/just-bash.ts).
 */
export async function createToolShell(options: ToolShellOptions = {}): Promise<ToolShell> {
  const config = loadConfig(options);
  if (options.workspaceDir) checkWorkspace(options.workspaceDir, config, options);
  return buildToolShell(config, options);
}

/**
 * Builds a ToolShell from a loaded config (the caller has checked the workspace): local tools,
 * MCP sources (eager ones connected), the policy, the call pipeline, the shell host.
 * @throws Error on a tool file that does not load, a server name that clashes, or when the shell
 *   engine loaded is not the one this toolshell was built with (shell/just-bash.ts).
 */
export async function buildToolShell(config: ToolshellConfig, options: Omit<ToolShellOptions, "config" | "baseDir"> = {}): Promise<ToolShell> {
  assertEngine();
  const defs: Record<string, ToolDefinition> = {};
  const toolsDir = options.toolsDir ?? config.toolsDir;
  if (toolsDir) Object.assign(defs, await loadToolsDir(path.resolve(toolsDir)));
  if (Array.isArray(options.tools)) {
    for (const d of options.tools) {
      if (!d.name) throw new Error("createToolShell: a tool given in a list needs a `name`");
      defs[d.name] = d;
    }
  } else if (options.tools) Object.assign(defs, options.tools);
  let local = await LocalToolSource.from(defs);
  /** The definitions `local` was made from (a reload compares their code too). */
  let localDefs = defs;
  const store = options.oauth?.store ?? new MemoryCredentialStore();
  const storedTokens = (await store.list()).flatMap((r) => [r.credentials.tokens?.access_token, r.credentials.tokens?.refresh_token, r.credentials.clientInformation?.client_secret]).filter((x): x is string => !!x);
  // Made before the servers: their log files are written through it from their first line.
  const redactor = createRedactor([...configSecrets(config), ...(options.secrets ?? []), ...storedTokens]);
  // Tokens obtained while running are redacted like config secrets.
  const oauth: OAuthContext = {
    store,
    broker: options.oauth?.broker ?? new SignInBroker(),
    onSecret: (secret) => {
      redactor.add(secret);
      options.oauth?.onSecret?.(secret);
    },
  };
  let mcp: McpServerSource[] = createMcpSources(config.servers, { logDir: config.logDir, oauth, redactor });
  const checkName = (name: string) => {
    // Reserved names (`local`, `scripts`, …) are refused by the config checks (config/schema.ts).
    if (local.tools().some((t) => foldName(t.name) === foldName(name))) {
      throw new Error(`server ${name} has the same name as a local tool`);
    }
  };
  for (const s of mcp) checkName(s.name);
  let sources: ToolSource[] = [local, ...mcp, ...(options.sources ?? [])];
  if (options.connect !== false) await loadEagerSources(mcp, undefined, options.onServerWait);
  // The split (docs/agents.md): the shell's catalog sees only the tools `tools` may reach.
  const splitRules: SplitRules = { keepVisible: [...config.keepVisible, ...(options.keepVisible ?? [])], allowed: options.allowedTools };
  const toShell = (list: ToolSource[]) => list.map((s) => new FilteredSource(s, (t) => reachableFromShell(t, splitRules)));
  let shellSources: ToolSource[] = toShell(sources);
  const skillsDir = options.skillsDir ?? config.skillsDir;
  const sessions = new Map<string, Session>();
  const maxSessions = options.maxSessionsInMemory ?? 1000;
  const evicted = new Map<string, WeakRef<Session>>();
  const gone = new FinalizationRegistry<string>((k) => {
    if (!evicted.get(k)?.deref()) evicted.delete(k);
  });
  const helpFooter = options.helpFooter ?? SHELL_NOTES;
  const books = new Map<string, ApprovalBook>();
  const loadingBooks = new Map<string, Promise<void>>();
  const policy = new Policy({
    mode: config.approval.mode,
    tools: config.approval.tools,
    servers: config.approval.servers,
    trustAnnotations: config.approval.trustAnnotations,
    // The servers in force now (runtime changes replace `config.servers`), not those at start.
    serverTrust: (name) => config.servers.find((s) => s.name === name)?.trust,
    namesakes: (tool) => namesakes(sources.find((s) => s.name === tool.source)?.tools() ?? [], tool),
    scope: options.approvalScope,
    rater: config.rateUnlabeledTools ? new Rater(options.decisionService ?? offlineRater, options.ratingCache, options.decisionService ? "decision_service" : "offline") : undefined,
    loadBook(sessionId: string) {
      // Answers given by another process (`toolshell approve` beside a server, another replica)
      // are read before any judgement, and this process never writes over them with an older book.
      if (options.approvalBooksChanged?.()) books.clear();
      if (books.has(sessionId) || !options.approvalBook) return undefined;
      let p = loadingBooks.get(sessionId);
      if (!p) {
        p = options
          .approvalBook(sessionId)
          .then((b) => void books.set(sessionId, b))
          .finally(() => loadingBooks.delete(sessionId));
        loadingBooks.set(sessionId, p);
      }
      return p;
    },
    forgetBook(sessionId: string) {
      books.delete(sessionId);
    },
    book(sessionId: string) {
      let b = books.get(sessionId);
      if (!b) {
        // With a store, a book is loaded first (Policy.openBook, or inside a judgement): an empty
        // one here would hide the stored answers.
        if (options.approvalBook) throw new Error(`the approval book of session ${sessionId} was used before it was loaded`);
        b = new ApprovalBook(sessionId);
        books.set(sessionId, b);
      }
      return b;
    },
  });
  const hooks = options.hooks ?? {};
  const pipeline = new CallPipeline({ policy, hooks, redactor });
  const host = new ShellHost({
    shellSources,
    policy,
    pipeline,
    redactor,
    callLimit: options.callLimit ?? config.callLimit,
    timeoutMs: options.timeoutMs ?? config.timeoutMs,
    // Every host (library, CLI, serve, gateway) is built here: the one place the bound is read.
    maxOutputBytes: config.maxOutputBytes,
    maxSessionFileBytes: config.maxSessionFileBytes,
    helpFooter,
    workspaceDir: options.workspaceDir,
    defenseInDepth: options.defenseInDepth,
    engineCommands: options.engineCommands ?? defaultEngineCommands(),
    skillsDir,
    store: options.store,
    // A session's own sources (its saved scripts) pass the same split as the shared ones: with
    // `allowedTools`, a saved script it does not name is unreachable (docs/agents.md).
    sessionSources: options.sessionSources ? (session) => toShell(options.sessionSources!(session)) : undefined,
    subcommands: options.subcommands,
    onEvent: options.onEvent,
    preflight: options.preflight,
  });
  // Runtime server changes (README "Changing servers while running"): one at a time, each checked
  // in full before anything changes; new arrays replace the old so a running call keeps its catalog.
  let changing: Promise<unknown> = Promise.resolve();
  let closing = false;
  const serverListeners = new Set<() => void>();
  const toolListeners = new Set<(server: string, cause: "server" | "asked") => void>();
  // A server's tools listed again (its list_changed, or another replica's): the shell's catalog
  // reads the source's tools at each call; the gateway is told as for a server change, and a
  // host on a shared store tells the other replicas (docs/deployment.md "What is shared").
  const followTools = (list: readonly McpServerSource[]) => {
    for (const source of list) {
      source.onToolsChanged((_tools, cause) => {
        const told = [...[...toolListeners].map((l) => () => l(source.name, cause)), ...serverListeners];
        for (const l of told) {
          try {
            l();
          } catch {}
        }
      });
    }
  };
  followTools(mcp);
  const change = (name: string, parsed: ServerConfig | undefined, mode: "add" | "update" | "remove") => {
    const run = changing.then(async () => {
      if (closing) throw new Error(`the host is closing: server ${name} was not changed`);
      const old = mcp.find((s) => s.name === name);
      if (mode === "add" && (old || config.servers.some((s) => s.name === name))) throw new ServerChangeError("conflict", `server ${name} already exists: use update`);
      if (mode !== "add" && !old && !config.servers.some((s) => s.name === name)) throw new ServerChangeError("not_found", `no server named ${name}`);
      let servers = config.servers.filter((s) => s.name !== name);
      let added: McpServerSource[] = [];
      if (parsed) {
        checkName(name);
        servers = [...servers, parsed];
        if (options.workspaceDir) checkWorkspace(options.workspaceDir, { ...config, servers }, options);
        for (const secret of configSecrets({ ...config, servers: [parsed] })) redactor.add(secret);
        added = createMcpSources([parsed], { logDir: config.logDir, oauth, redactor });
        followTools(added);
        if (options.connect !== false) await loadEagerSources(added, undefined, options.onServerWait);
      } else if (options.workspaceDir) checkWorkspace(options.workspaceDir, { ...config, servers }, options);
      (config as { servers: typeof servers }).servers = servers;
      mcp = [...mcp.filter((s) => s !== old), ...added];
      sources = [local, ...mcp, ...(options.sources ?? [])];
      shellSources = toShell(sources);
      host.setSources(shellSources);
      for (const l of serverListeners) {
        try {
          l();
        } catch {}
      }
      if (old) await old.close();
    });
    changing = run.catch(() => {});
    return run;
  };
  // An entry added at run time (the API, the console, the library) is not the config file's: its
  // errors name the entry's key only.
  const parse = (name: string, entry: unknown) => parseServerEntry(name, entry, { baseDir: config.baseDir, env: options.env });
  return {
    config,
    timeoutMs: host.timeoutMs,
    get sources() {
      return sources;
    },
    reloadRules(next) {
      const changed = policy.setRules(next.approval);
      (config as { approval: ToolshellConfig["approval"] }).approval = next.approval;
      return changed.map((c) => `approval.${c}`);
    },
    reloadTools() {
      const run = changing.then(async () => {
        if (!toolsDir) return [];
        const fresh: Record<string, ToolDefinition> = { ...(await loadToolsDir(path.resolve(toolsDir), { fresh: true })) };
        if (Array.isArray(options.tools)) for (const d of options.tools) fresh[d.name!] = d;
        else if (options.tools) Object.assign(fresh, options.tools);
        const next = await LocalToolSource.from(fresh);
        // A tool is its definition and its code: an edit of `execute` alone is a change too.
        const describe = (src: LocalToolSource, d: Record<string, ToolDefinition>) => new Map(src.tools().map((t) => [t.name, JSON.stringify(t) + String(d[t.name]?.execute)]));
        const a = describe(local, localDefs);
        const b = describe(next, fresh);
        const changed = [...new Set([...a.keys(), ...b.keys()])]
          .filter((n) => a.get(n) !== b.get(n))
          .sort()
          .map((n) => (!a.has(n) ? `${n} (new)` : !b.has(n) ? `${n} (gone)` : n));
        for (const s of mcp) if (next.tools().some((t) => t.name.replace(/-/g, "_").toLowerCase() === s.name.replace(/-/g, "_").toLowerCase())) throw new Error(`tool ${s.name} has the same name as a server`);
        local = next;
        localDefs = fresh;
        sources = [local, ...mcp, ...(options.sources ?? [])];
        shellSources = toShell(sources);
        host.setSources(shellSources);
        if (changed.length) for (const l of serverListeners) {
          try {
            l();
          } catch {}
        }
        return changed;
      });
      changing = run.catch(() => {});
      return run;
    },
    addServer: async (name, entry) => change(name, parse(name, entry), "add"),
    updateServer: async (name, entry) => change(name, parse(name, entry), "update"),
    removeServer: (name) => change(name, undefined, "remove"),
    onServersChanged(listener) {
      serverListeners.add(listener);
      return () => void serverListeners.delete(listener);
    },
    onToolsChanged(listener) {
      toolListeners.add(listener);
      return () => void toolListeners.delete(listener);
    },
    async setServers(next) {
      const key = (c: ServerConfig) => JSON.stringify(c);
      for (const old of config.servers) if (!next.some((c) => c.name === old.name)) await change(old.name, undefined, "remove");
      for (const c of next) {
        const old = config.servers.find((o) => o.name === c.name);
        if (!old) await change(c.name, c, "add");
        else if (key(old) !== key(c)) await change(c.name, c, "update");
      }
    },
    session(id?: string, metadata: Record<string, unknown> = {}, open: { anyOwner?: boolean } = {}) {
      const key = id ?? `session_${randomUUID()}`;
      // An evicted session still held by someone (a gateway connection) is the same object again:
      // there is never more than one live Session per id. One refused to its opener is dropped.
      let s = sessions.get(key) ?? evicted.get(key)?.deref();
      if (s?.refusal) {
        sessions.delete(key);
        evicted.delete(key);
        s = undefined;
      }
      if (s) {
        // A live session belongs to its principal as a stored one does (lineage.ts `ownerRefusal`).
        const refused = ownerRefusal(key, openerOf(metadata, open), s.metadata);
        if (refused) throw refused;
        evicted.delete(key);
        // Most recently used last (Map order), for eviction.
        sessions.delete(key);
        sessions.set(key, s);
        return s;
      }
      s = new Session(key, host, metadata, open);
      sessions.set(key, s);
      // With a store, an idle session can leave memory: it is restored from the store when asked
      // for again. Without one, its files would be lost, so sessions stay.
      if (options.store && sessions.size > maxSessions) {
        for (const [k, old] of sessions) {
          if (sessions.size <= maxSessions) break;
          if (old === s || old.running > 0) continue;
          sessions.delete(k);
          books.delete(k);
          evicted.set(k, new WeakRef(old));
          gone.register(old, k);
        }
      }
      return s;
    },
    catalog: () => new Catalog(shellSources),
    sessionsInMemory: () => sessions.size,
    get running() {
      return host.running;
    },
    whenIdle: (waitMs: number) => host.whenIdle(waitMs),
    policy,
    listing: () => renderIndex(new Catalog(shellSources), helpFooter),
    splitRules,
    split: () => splitTools(sources.flatMap((s) => s.tools()), splitRules),
    hooks,
    pipeline,
    redactor,
    oauth,
    close: async () => {
      // A change under way finishes first, so a server it starts is among those closed.
      closing = true;
      await changing;
      await closeSources(mcp);
      if (!options.oauth?.broker) await oauth.broker.close();
    },
  };
}
