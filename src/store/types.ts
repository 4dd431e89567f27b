/**
 * What the store holds, as plain JSON records, and the {@link Store} interface every store
 * implements (the SQLite default in sqlite.ts, `:memory:` for tests and benchmarks; PostgreSQL in
 * postgres/ for several processes on one database).
 *
 * See docs/sessions.md → The store, Saved scripts.
 */
import type { ApprovalBook, RatingCache } from "../policy/index.js";
import type { SessionEvent, SessionStore, StepRecord } from "../runtime/index.js";

/** The agent a session or script belongs to when nobody says. */
export const DEFAULT_AGENT = "default";

/** A session as stored. */
export interface SessionRecord {
  id: string;
  agent_id: string;
  metadata: Record<string, unknown>;
  /** Shell calls made so far. */
  shell_calls: number;
  created_at: string;
  updated_at: string;
}

/** An event as stored: the event itself plus its position in the store (`seq`, increasing). */
export type StoredEvent = SessionEvent & { seq: number };

/** One version of a saved script. */
export interface ScriptVersion {
  script_id: string;
  version: number;
  description: string;
  /** JSON Schema of the script's input (an object schema). */
  input_schema: Record<string, unknown>;
  body: string;
  created_at: string;
  /** Who saved it: a session id, `api`, or `config`. */
  created_by: string;
}

/** A saved script with its current (latest) version. */
export interface ScriptRecord {
  id: string;
  agent_id: string;
  name: string;
  /** The latest version's number (1 for a new script). */
  version: number;
  description: string;
  input_schema: Record<string, unknown>;
  body: string;
  archived: boolean;
  created_at: string;
  updated_at: string;
}

/** What saving a script takes. Saving a name that exists adds a version (and unarchives it). */
export interface ScriptInput {
  name: string;
  description: string;
  /** Absent: the previous version's schema, or none (no fields) for a first version. */
  input_schema?: Record<string, unknown>;
  body: string;
  created_by?: string;
}

/** A trigger: a schedule or a webhook that runs a saved script with no model. */
export interface TriggerRecord {
  id: string;
  agent_id: string;
  name: string;
  kind: "schedule" | "webhook";
  /** Cron expression (5 or 6 fields) of a schedule trigger. */
  cron?: string;
  /** IANA time zone of the cron expression (default UTC). */
  timezone?: string;
  /** Name of the saved script it runs. */
  script: string;
  /** The script's input; strings are templates over the payload (`{{payload.x}}`). */
  input: Record<string, unknown>;
  enabled: boolean;
  /** Call the configured wake-agent callback with the report when a run fails or stops. */
  wake_agent_on_failure: boolean;
  /**
   * A webhook caller holding only the trigger's secret may ask `?wait=true` and get the finished
   * run (its output and stop report). Off (absent) by default: such a caller gets 202 and a run id.
   */
  webhook_wait?: boolean;
  /** SHA-256 (hex) of a webhook trigger's secret; the secret itself is shown once, at creation. */
  secret_hash?: string;
  /** When a schedule trigger should next run (ISO time), kept to find runs missed while down. */
  next_run_at?: string;
  last_run_at?: string;
  /** `api` (created over HTTP), `cli` (`toolshell triggers create`) or `config` (from the config file's `triggers`). */
  origin: "api" | "cli" | "config";
  /**
   * Who the trigger's runs act for (whose OAuth sign-ins they use): the principal of the API token
   * that created or last changed it. Absent for triggers of the CLI and the config: the agent's.
   */
  principal?: string;
  /**
   * When {@link principal} last changed what the trigger does (created it, or changed its script,
   * input, schedule…; turning it on or off is not such a change). A trigger acting for a principal
   * other than its agent's runs only saved script versions saved before then (docs/security.md
   * "Who acts for whom"). Absent on older records: `updated_at`.
   */
  vouched_at?: string;
  created_at: string;
  updated_at: string;
}

/** One run of a trigger. */
export interface TriggerRunRecord {
  id: string;
  trigger_id: string;
  agent_id: string;
  /** Why it ran: its schedule, a schedule missed while down, a webhook, or a person (run now). */
  reason: "schedule" | "missed" | "webhook" | "manual";
  /** `skipped`: it did not start, as an earlier run waits for a person's answer (`skipped` says which). */
  status: "running" | "ok" | "failed" | "stopped" | "skipped";
  session_id: string;
  /** The shell call it was recorded as. */
  tool_call_id?: string;
  /** The payload the input templates were filled from. */
  payload: unknown;
  /** The script input after the templates were filled. */
  input?: Record<string, unknown>;
  /** The shell call's result (with its stop report when it stopped). */
  result?: unknown;
  error?: string;
  /** Approval request a stopped run waits on: when it is answered, the same run goes on. */
  request_id?: string;
  /**
   * A run that did not start: why ("the previous run run_… waits for approval (request apr_…)"),
   * and the run and request it waited behind (docs/sessions.md → Triggers).
   */
  skipped?: { reason: string; run_id: string; request_id: string };
  started_at: string;
  /** The due time a schedule's run (`schedule`, `missed`) was for. */
  scheduled_at?: string;
  /** When the run went on after each answer it stopped for (docs/sessions.md → Triggers). */
  resumed_at?: string[];
  /**
   * When the run ran again after the process running it ended mid-run (a replica killed): its
   * step resumed there, what had completed replayed (docs/deployment.md).
   */
  interrupted_at?: string[];
  /** The replicas that ran it, in order (each start on another replica than the last adds one; ids as `GET /v1/replicas` names them). */
  replicas?: string[];
  /**
   * A webhook delivery recorded before it started (so the run id the caller gets finds it): its
   * first start is not a run again. Gone once it starts.
   */
  queued?: true;
  /** Each approval the run waited for, in order: who answered, how, and how long it waited. */
  approvals?: RunApproval[];
  ended_at?: string;
}

/** An approval a trigger run waited for (docs/sessions.md → Triggers). */
export interface RunApproval {
  request_id: string;
  tool: string;
  decision?: string;
  /** Who answered and through which surface (`api`, `console`, `cli`, …), when known. */
  by?: string;
  surface?: string;
  asked_at: string;
  answered_at?: string;
  /** From the question to the answer, in milliseconds. */
  waited_ms?: number;
}

/**
 * What kinds of shared state every replica follows (docs/deployment.md "What is shared"):
 * `server` — an MCP server entry set through the HTTP API or console (`{ entry }`), or a config
 * file server removed there (`{ removed: true }`); `replica` — a live replica (its heartbeat);
 * `tools` — an MCP server whose tools changed (its `tools/list_changed` reached one replica:
 * `{ replica }`), so every other replica lists them again; `gateway` — the MCP gateway's
 * `requestState` key (`{ key }`), so a question one replica asks is answered on another;
 * `question` — a question an MCP server asks during an HTTP API shell call, waiting for a person
 * on any replica (server/questions.ts: the asking replica refreshes it while it waits; an answer
 * given elsewhere is written beside it).
 */
export type SharedKind = "server" | "replica" | "tools" | "gateway" | "question";

/** One record of shared state. */
export interface SharedRecord {
  kind: SharedKind;
  key: string;
  data: Record<string, unknown>;
  updated_at: string;
}

/**
 * The store: the runtime's {@link SessionStore} port plus everything else docs/sessions.md keeps.
 * Every method returns a promise so a networked database fits (docs/deployment.md); the SQLite
 * store answers from its synchronous driver at once.
 */
/** Which sessions a list holds: one agent's, one principal's (as `principalOf` reads metadata), at most `limit` (default 1000). */
export interface SessionListOptions {
  agentId?: string;
  principal?: string;
  limit?: number;
}

export interface Store extends SessionStore {
  /** Where it lives: a file path, `:memory:`, or a `postgres://` URL without its password. */
  readonly location: string;
  getSession(id: string): Promise<SessionRecord | undefined>;
  /** Sessions, newest first. */
  listSessions(options?: SessionListOptions): Promise<SessionRecord[]>;
  /** Events of a session in order; `after` is a `seq` (exclusive); `limit` default 1000. */
  listEvents(sessionId: string, options?: { after?: number; limit?: number }): Promise<StoredEvent[]>;
  /** Steps of a session in start order, optionally by status. */
  listSteps(sessionId: string, options?: { status?: StepRecord["status"] }): Promise<StepRecord[]>;
  /** Every session's running steps, with the replica holding each (its id; none for a library host's). */
  runningSteps(): Promise<Array<{ sessionId: string; stepId: string; holder?: string }>>;

  /** The approval book of a session, restored from the store and saved on every change. */
  approvalBook(sessionId: string): Promise<ApprovalBook>;
  /**
   * True when another process has changed approvals since the last call (a `toolshell approve`
   * beside a running server, or another replica): books opened before may be out of date.
   */
  changedElsewhere(): boolean;
  /** Pending approval requests across sessions (or of one agent's sessions). */
  pendingApprovals(options?: { agentId?: string }): Promise<Array<import("../policy/index.js").ApprovalRequest>>;
  /**
   * Tool ratings (store/ratings.ts): what this process has seen from memory, any other key from
   * the database, so a rating another process kept is used, not made again.
   */
  readonly ratings: RatingCache;
  /** OAuth sign-ins to MCP servers, per server and principal (README "Sign-in"). */
  readonly credentials: import("../mcp/auth/index.js").CredentialStore;

  listScripts(agentId: string, options?: { includeArchived?: boolean }): Promise<ScriptRecord[]>;
  /** A script by id or name (current version, or `version`). */
  getScript(agentId: string, idOrName: string, options?: { version?: number }): Promise<ScriptRecord | undefined>;
  /** Saves a new script or a new version of one. */
  saveScript(agentId: string, input: ScriptInput): Promise<ScriptRecord>;
  scriptVersions(agentId: string, idOrName: string): Promise<ScriptVersion[]>;
  /** Archives or unarchives; undefined when there is no such script. */
  setScriptArchived(agentId: string, idOrName: string, archived: boolean): Promise<ScriptRecord | undefined>;

  listTriggers(options?: { agentId?: string }): Promise<TriggerRecord[]>;
  getTrigger(id: string): Promise<TriggerRecord | undefined>;
  /** A trigger by agent and name. */
  findTrigger(agentId: string, name: string): Promise<TriggerRecord | undefined>;
  putTrigger(trigger: TriggerRecord): Promise<void>;
  /**
   * Sets only a trigger's run times (what a run writes), leaving every other field as it is in
   * the store: a change a person makes meanwhile is not written over. No-op when there is none.
   */
  setTriggerTimes(id: string, times: Pick<TriggerRecord, "last_run_at" | "next_run_at">): Promise<void>;
  deleteTrigger(id: string): Promise<boolean>;
  putTriggerRun(run: TriggerRunRecord): Promise<void>;
  getTriggerRun(id: string): Promise<TriggerRunRecord | undefined>;
  /** Runs of a trigger, newest first. */
  listTriggerRuns(triggerId: string, options?: { limit?: number }): Promise<TriggerRunRecord[]>;

  /** The shared records of one kind, by key. */
  listShared(kind: SharedKind): Promise<SharedRecord[]>;
  /**
   * Sets (or, with `data` null, deletes) a shared record. Unless `quiet` (a heartbeat), the
   * change count grows, so every replica reads the shared state again.
   */
  putShared(kind: SharedKind, key: string, data: Record<string, unknown> | null, options?: { quiet?: boolean }): Promise<void>;
  /** Makes the change count grow: a change replicas follow (a trigger created or changed) was written. */
  noteChange(): Promise<void>;
  /** A number that grows with every change every replica follows (servers, triggers). */
  changeCount(): Promise<number>;

  /**
   * Asks the database server one trivial query; rejects with why when it cannot answer. Absent
   * for a store in a file, which has no connection to lose (`/readyz`, docs/deployment.md).
   */
  ping?(): Promise<void>;

  /** Waits for pending writes, then closes the database (later calls reject). */
  close(): Promise<void>;
}
