/**
 * The shell host: what every session of one ToolShell shares — the sources, the policy, the call
 * pipeline, the limits, the store, the `tools` subcommands — built once from the config by
 * `createToolShell` (src/runtime/toolshell.ts) and handed to each session as one typed object.
 *
 * See docs/architecture.md ("The composition root").
 */
import { InFlight } from "../async/in-flight.js";
import type { Command } from "just-bash";
import type { CallPipeline, Redactor, SessionEvent } from "../call/index.js";
import { Catalog } from "../catalog/index.js";
import type { Policy } from "../policy/index.js";
import { SHELL_SUBCOMMANDS, type SubcommandFactory, type SubcommandHandler } from "../shell/index.js";
import { readSkill, type Skill, type ToolSource } from "../tool/index.js";
import type { SessionStore } from "./durable.js";
import { planCommand, preflight, type PreflightOutcome, type ReplayedCalls } from "./plan-command.js";
import type { Session } from "./session.js";
import type { ShellCall } from "./shell-call.js";

/** A `tools` subcommand of the runtime: made for one shell call (which knows its session). */
export type RuntimeSubcommand = SubcommandFactory<ShellCall>;

/** The parts a ShellHost is made of. */
export interface ShellHostParts {
  /** The sources the shell's catalog sees (after the split). */
  shellSources: ToolSource[];
  policy: Policy;
  pipeline: CallPipeline;
  redactor: Redactor;
  callLimit: number;
  timeoutMs: number;
  /** What one shell call may print, stdout and stderr together, in bytes (config `maxOutputBytes`). */
  maxOutputBytes: number;
  /** What one session's in-memory files may hold together, in bytes (config `maxSessionFileBytes`). */
  maxSessionFileBytes: number;
  helpFooter: string;
  workspaceDir?: string;
  defenseInDepth?: boolean;
  engineCommands: Command[];
  skillsDir?: string;
  store?: SessionStore;
  /** Sources of one session (its agent's saved scripts), after the shared ones. */
  sessionSources?: (session: Session) => ToolSource[];
  /** Subcommands added to the built-in ones (`help`, `search`, `plan`). */
  subcommands?: Record<string, RuntimeSubcommand>;
  onEvent?: (event: SessionEvent) => void;
  /** Replaces the preflight (tests and embedders); default: plan the script and ask before start. */
  preflight?: (script: string, catalog: Catalog, session: Session, signal?: AbortSignal, toolCallId?: string, stdin?: string, replayed?: ReplayedCalls) => Promise<PreflightOutcome>;
}

/** What the sessions of one ToolShell share. */
export class ShellHost {
  readonly policy: Policy;
  readonly pipeline: CallPipeline;
  readonly redactor: Redactor;
  readonly callLimit: number;
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  readonly maxSessionFileBytes: number;
  readonly helpFooter: string;
  readonly workspaceDir?: string;
  readonly defenseInDepth?: boolean;
  readonly engineCommands: Command[];
  readonly store?: SessionStore;
  readonly onEvent?: (event: SessionEvent) => void;
  private parts: ShellHostParts;
  private readonly subcommands: Map<string, RuntimeSubcommand>;

  constructor(parts: ShellHostParts) {
    this.parts = parts;
    this.policy = parts.policy;
    this.pipeline = parts.pipeline;
    this.redactor = parts.redactor;
    this.callLimit = parts.callLimit;
    this.timeoutMs = parts.timeoutMs;
    this.maxOutputBytes = parts.maxOutputBytes;
    this.maxSessionFileBytes = parts.maxSessionFileBytes;
    this.helpFooter = parts.helpFooter;
    this.workspaceDir = parts.workspaceDir;
    this.defenseInDepth = parts.defenseInDepth;
    this.engineCommands = parts.engineCommands;
    this.store = parts.store;
    this.onEvent = parts.onEvent;
    const policy = parts.policy;
    this.subcommands = new Map<string, RuntimeSubcommand>([
      ...Object.entries(SHELL_SUBCOMMANDS),
      ["plan", (call: ShellCall) => planCommand(policy, call.session, call)],
      ...Object.entries(parts.subcommands ?? {}),
    ]);
  }

  /**
   * Replaces the shared sources the next shell call's catalog is built from; a shell call already
   * running keeps the catalog it started with (README "Changing servers while running").
   */
  setSources(shellSources: ToolSource[]): void {
    this.parts = { ...this.parts, shellSources };
  }

  /** The sources a session's catalog is built from: the shared ones, then the session's own. */
  catalog(session: Session): Catalog {
    const own = this.parts.sessionSources?.(session);
    return new Catalog(own?.length ? [...this.parts.shellSources, ...own] : this.parts.shellSources);
  }

  /** As {@link catalog}, after the session's own sources re-read what they list (saved scripts). */
  async freshCatalog(session: Session): Promise<Catalog> {
    const own = this.parts.sessionSources?.(session) ?? [];
    await Promise.all(own.map((s) => s.refresh?.()));
    return new Catalog(own.length ? [...this.parts.shellSources, ...own] : this.parts.shellSources);
  }

  /** The handler of `tools <word> …` for one shell call, if `word` is a subcommand. */
  subcommand(word: string, call: ShellCall): SubcommandHandler | undefined {
    return this.subcommands.get(word)?.(call);
  }

  /** Plans the script before it starts; a literal call that needs approval stops it (README "Approvals"). */
  preflight(script: string, catalog: Catalog, session: Session, signal: AbortSignal, toolCallId: string, stdin?: string, replayed?: ReplayedCalls): Promise<PreflightOutcome> {
    if (this.parts.preflight) return this.parts.preflight(script, catalog, session, signal, toolCallId, stdin, replayed);
    return preflight(script, catalog, this.policy, session, signal, toolCallId, stdin, replayed);
  }

  readonly #work = new InFlight();

  /** Shell calls and steps running now in every session of this host. */
  get running(): number {
    return this.#work.count;
  }

  /** Runs one unit of a session's work (a shell call, a step), counted in {@link running}. */
  work<T>(fn: () => Promise<T>): Promise<T> {
    return this.#work.track(fn);
  }

  /** Resolves true once no shell call or step runs (at once when none does), false after `waitMs`. */
  whenIdle(waitMs: number): Promise<boolean> {
    return this.#work.idle(waitMs);
  }

  /** Reads a packaged skill. @throws Error when no skills folder is configured or the skill is missing. */
  readSkill(id: string): Promise<Skill> {
    if (!this.parts.skillsDir) return Promise.reject(new Error(`no skills folder is configured (looked for skill ${id})`));
    return readSkill(this.parts.skillsDir, id);
  }
}
