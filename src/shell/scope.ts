/**
 * The link between one shell call and the `tools` command running inside it. The runtime
 * implements `ShellScope`; the command finds the scope of the shell call that runs it through
 * async context, so one engine serves many shell calls and sessions at once.
 *
 * Rule source: DESIGN.md "The path of one nested call".
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { IFileSystem } from "just-bash";
import type { Catalog } from "../catalog/index.js";
import type { CatalogTool, ToolCallError, ToolOutput, ToolSource } from "../tool/index.js";

/** One nested call, resolved and with its input built (not yet checked against the schema). */
export interface NestedCallRequest {
  tool: CatalogTool;
  source: ToolSource;
  /** The command words as the catalog spells them, e.g. `tools github list-pulls`. */
  command: string;
  input: Record<string, unknown>;
  /** True when the input came (in part) from stdin. */
  fromStdin: boolean;
}

/** What a subcommand handler gives back; `undefined` passes the words on to normal resolution. */
export type SubcommandResult = { stdout: string; stderr: string; exitCode: number } | undefined;

/** The I/O of one `tools` invocation, for subcommand handlers. */
export interface CommandIo {
  stdin: string;
  cwd: string;
  fs: IFileSystem;
  /** Runs a script in the same shell (used by saved scripts). */
  exec?: (script: string, options: { cwd: string; stdin?: string; env?: Record<string, string> }) => Promise<{ stdout: string; stderr: string; exitCode: number }>;
}

/** Handles a `tools <word> …` subcommand such as `plan` or `scripts save`. */
export type SubcommandHandler = (args: string[], io: CommandIo) => Promise<SubcommandResult>;

/** The runtime's side of one shell call, as the `tools` command sees it. */
export interface ShellScope {
  catalog: Catalog;
  signal: AbortSignal;
  /** Lines added at the end of `tools --help` (the shell's notes). */
  helpFooter: string;
  /**
   * Runs one nested call: schema check, budget, policy, hooks, invoke, events.
   * @throws ToolCallError; when `stopsScript(err)` is true the script must stop at once.
   */
  callTool(call: NestedCallRequest): Promise<ToolOutput>;
  /** True when this error ends the shell call (needs_approval without an answer, call_limit, …). */
  stopsScript(err: ToolCallError): boolean;
  /** True once the shell call has stopped: every later `tools` call answers `stopped`. */
  isStopped(): boolean;
  /** Notes files the command wrote (tool-images) for the stop report. */
  noteFiles(paths: string[]): void;
  /** The handler of a reserved first word (`plan`, `scripts`), if the runtime provides one. */
  subcommand(word: string): SubcommandHandler | undefined;
  /** Replaces configured secrets in text the command prints (help, errors, results). */
  redact?(text: string): string;
}

const storage = new AsyncLocalStorage<ShellScope>();

/** Runs `fn` with `scope` as the current shell call's scope. */
export function runInScope<T>(scope: ShellScope, fn: () => Promise<T>): Promise<T> {
  return storage.run(scope, fn);
}

/** The scope of the shell call running now, if any. */
export function currentScope(): ShellScope | undefined {
  return storage.getStore();
}
