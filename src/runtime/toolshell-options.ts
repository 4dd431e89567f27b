/**
 * The options of `createToolShell` and the ToolShell it returns (runtime/toolshell.ts).
 *
 * See README → Use it from code, Changing servers while running.
 */
import type { Command } from "just-bash";
import type { CallPipeline, Hooks, Redactor, SessionEvent } from "../call/index.js";
import type { Catalog, SplitRules, ToolSplit } from "../catalog/index.js";
import type { OAuthContext, ServerWait } from "../mcp/index.js";
import type { ApprovalBook, ApprovalScope, DecisionService, Policy, RatingCache } from "../policy/index.js";
import type { ToolDefinition, ToolSource } from "../tool/index.js";
import type { ServerConfig, ToolshellConfig } from "../config/index.js";
import type { SessionStore } from "./durable.js";
import type { RuntimeSubcommand } from "./host.js";
import type { PreflightOutcome } from "./plan-command.js";
import type { Session } from "./session.js";

/** Options of `createToolShell`. Everything is optional. */
export interface ToolShellOptions {
  /** A config file (`toolshell.config.json`, `.mcp.json`) or a config object. */
  config?: string | Record<string, unknown>;
  /** Folder the config object's relative paths resolve against (default: process cwd). */
  baseDir?: string;
  /** Local tools, by name (a definition's own `name` wins), or as a list of named definitions. */
  tools?: Record<string, ToolDefinition> | ToolDefinition[];
  /** Folder of `*.ts|*.js` tool files (default from config, else `agent/tools` when it exists). */
  toolsDir?: string;
  /** Folder of skills. */
  skillsDir?: string;
  /** Extra sources. */
  sources?: ToolSource[];
  /** A real folder mounted read-write as the working directory of every session. */
  workspaceDir?: string;
  /**
   * Other clients' config files the servers were imported from (`toolshell mcp --import`), read
   * again at every start: the workspace guard keeps them out of the workspace (docs/security.md).
   */
  importFiles?: string[];
  /** Sessions kept in memory when a store holds them all (least recently used leave first; default 1,000). */
  maxSessionsInMemory?: number;
  /** Turn on just-bash's defense-in-depth layer (default off; see README "Security"). */
  defenseInDepth?: boolean;
  /** Overrides of the config's limits. */
  callLimit?: number;
  timeoutMs?: number;
  hooks?: Hooks;
  /** The decision service that rates tools declaring nothing (default: the offline rater). */
  decisionService?: DecisionService;
  /** Where ratings are cached (default: in memory). */
  ratingCache?: RatingCache;
  /** Opens a session's approval book (a store restores and persists it); default: in memory. */
  approvalBook?: (sessionId: string) => Promise<ApprovalBook>;
  /** True when the stored books changed in another process: the open ones are reopened. */
  approvalBooksChanged?: () => boolean;
  /**
   * Where a call is made, for binding answers (host: the saved script versions around it; see
   * policy/approvals.ts). Default: none, answers hold for the session.
   */
  approvalScope?: () => ApprovalScope | undefined;
  /** Extra commands registered in the shell (compatibility fixes). */
  engineCommands?: Command[];
  /** Lines at the end of `tools --help`. */
  helpFooter?: string;
  /** Receives every session event. */
  onEvent?: (event: SessionEvent) => void;
  /**
   * Durable state (docs/sessions.md): sessions, their files, events and steps survive a restart. The
   * default SQLite store is in `store/`; the top-level factory (`server/`'s `openHost`) wires it.
   */
  store?: SessionStore;
  /** Sources of one session, after the shared ones (its agent's saved scripts). */
  sessionSources?: (session: Session) => ToolSource[];
  /** More strings to redact besides the servers' `env` and `headers` values (e.g. API tokens). */
  secrets?: string[];
  /** Connect eager MCP servers before returning (default true). */
  connect?: boolean;
  /** OAuth sign-in of remote MCP servers: where credentials live, the sign-in broker (default: in memory). */
  oauth?: OAuthContext;
  /** Told which eager servers are still starting after a short wait (the CLI says so on stderr). */
  onServerWait?: (waiting: ServerWait[]) => void;
  /** Environment for `${VAR}` expansion (default process.env). */
  env?: Record<string, string | undefined>;
  /** Tools the model keeps as direct tools, added to the config's `keepVisible` (docs/agents.md). */
  keepVisible?: string[];
  /** The tools the agent may use at all (names or a predicate); `tools` reaches no other (catalog/split.ts). */
  allowedTools?: SplitRules["allowed"];
  /** Replaces the preflight that stops a script before it starts (tests and embedders). */
  preflight?: (script: string, catalog: Catalog, session: Session, signal?: AbortSignal) => Promise<PreflightOutcome>;
  /** `tools <word>` subcommands added to `help`, `search` and `plan` (a host adds `scripts`). */
  subcommands?: Record<string, RuntimeSubcommand>;
}

/** The host object: sources, sessions, listing, close. */
export interface ToolShell {
  readonly config: ToolshellConfig;
  /**
   * The time limit of one shell call in milliseconds: the `timeoutMs` option when given, else the
   * config's. Also the largest `timeout_ms` a caller may ask for (bash tool, HTTP API).
   */
  readonly timeoutMs: number;
  /** All sources in order: local tools first, then MCP servers, then extra ones. */
  readonly sources: ToolSource[];
  /**
   * Opens (or returns) a session by id; a new id when omitted. It acts for the principal its
   * metadata names (`principal`, else `agent_id`, else `default`); a session the store (or this
   * process) holds for another principal is refused: `session.ready` rejects, its shell calls
   * answer `denied` (docs/security.md "Who acts for whom"). `anyOwner`: the caller checked reach
   * itself (the HTTP API) and opens the session for whoever owns it.
   * @throws SessionOwnerError when a live session of that id belongs to another principal.
   */
  session(id?: string, metadata?: Record<string, unknown>, open?: { anyOwner?: boolean }): Session;
  /** A catalog over the current sources. */
  catalog(): Catalog;
  /** How many sessions the ToolShell holds in memory now. */
  sessionsInMemory(): number;
  /** The approval policy every call is judged by. */
  readonly policy: Policy;
  /** Removes config secrets (servers' `env` and `headers` values) from text and values. */
  readonly redactor: Redactor;
  /** The same listing as `tools --help`. */
  listing(): string;
  /** What decides which tools are direct and which sit behind `tools` (catalog/split.ts). */
  readonly splitRules: SplitRules;
  /** The tools known now, split into direct, behind `tools`, and hidden (docs/agents.md). */
  split(): ToolSplit;
  /** The hooks every call runs through (direct calls included). */
  readonly hooks: Hooks;
  /** The one pipeline every call goes through, whatever the surface (src/call/). */
  readonly pipeline: CallPipeline;
  /** OAuth sign-in of remote MCP servers: credentials, pending sign-ins (README "Sign-in"). */
  readonly oauth: OAuthContext;
  /**
   * Adds an MCP server while running, checked like a config file entry (`parseServerEntry`), the
   * reserved names, local-tool clashes and the workspace guard. The next shell call of every
   * session sees it. @throws Error on bad input; nothing changes then.
   */
  addServer(name: string, entry: unknown): Promise<void>;
  /** Replaces a server's entry (same checks as `addServer`); its old process ends. @throws Error when unknown or bad. */
  updateServer(name: string, entry: unknown): Promise<void>;
  /** Removes a server and ends its process. @throws Error when no server has that name. */
  removeServer(name: string): Promise<void>;
  /**
   * Makes the servers those of a reloaded config file: removed ones end, changed ones restart,
   * new ones start (each checked like `addServer`). @throws Error at the first change refused.
   */
  setServers(servers: readonly ServerConfig[]): Promise<void>;
  /**
   * Takes the approval rules of a reloaded config (mode, per-tool and per-server rules,
   * `trustAnnotations`): the next call is judged by them. @returns what changed, in words.
   */
  reloadRules(next: Pick<ToolshellConfig, "approval">): string[];
  /**
   * Loads the local tool files again (a file changed, was added or deleted): the next call sees
   * their definitions as they are now (hints, `needsApproval`). @returns the tool names changed
   * (definition or code), added (`NAME (new)`) or removed (`NAME (gone)`). @throws Error when a
   * file does not load; the tools in force stay.
   */
  reloadTools(): Promise<string[]>;
  /** Calls `listener` after each server change, and after a server's tools were listed again (the MCP gateway then sends `tools/list_changed` when its list changed). @returns unsubscribe. */
  onServersChanged(listener: () => void): () => void;
  /**
   * Calls `listener` each time an MCP server's tools were listed again: `cause` "server" after the
   * server's own `tools/list_changed`, "asked" after `McpServerSource.relist`. @returns unsubscribe.
   */
  onToolsChanged(listener: (server: string, cause: "server" | "asked") => void): () => void;
  /** Shell calls and steps running now, in every session. */
  readonly running: number;
  /**
   * Resolves true once no shell call or step runs in any session (at once when none does), false
   * after `waitMs`: a host that stops lets the work in flight end and be recorded first
   * (docs/deployment.md "Stopping a replica").
   */
  whenIdle(waitMs: number): Promise<boolean>;
  /** Ends every MCP server process and connection. */
  close(): Promise<void>;
}

