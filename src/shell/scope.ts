/**
 * The link between one shell call and the `tools` command running inside it. The runtime
 * implements `ShellScope`; the command finds the scope of the shell call that runs it through
 * async context, so one engine serves many shell calls and sessions at once.
 *
 * See docs/architecture.md.
 */
import { contextSlot } from "../async/context.js";
import type { IFileSystem } from "just-bash";
import type { Catalog } from "../catalog/index.js";
import type { ToolCall, ToolCallError, ToolOutput } from "../tool/index.js";

/** What the `tools` command hands the runtime for one nested call: the resolved tool and the input as written. */
export type NestedCallRequest = Pick<ToolCall, "tool" | "command"> & { input: Record<string, unknown> };

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
   * Runs one nested call through the call pipeline (budget, input, schema, policy, hooks, invoke,
   * redaction, record, event). @throws ToolCallError; when `stopsScript(err)` is true the script
   * must stop at once.
   */
  callTool(call: NestedCallRequest): Promise<ToolOutput>;
  /** True when this error ends the shell call (needs_approval without an answer, call_limit, …). */
  stopsScript(err: ToolCallError): boolean;
  /** True once the shell call has stopped: every later `tools` call answers `stopped`. */
  isStopped(): boolean;
  /** Stops the shell call with `error` (the host's own limits, e.g. its memory; the first stop wins). */
  stopWith?(error: ToolCallError): void;
  /** Notes files the command wrote (tool-images) for the stop report. */
  noteFiles(paths: string[]): void;
  /** Notes that a write failed at a bound of files (the session's `maxSessionFileBytes`, or the host's): the shell call's stderr ends with `line`. */
  noteFilesFull?(line: string): void;
  /** The handler of a reserved first word (`help`, `search`, `plan`, `scripts`), if there is one. */
  subcommand(word: string): SubcommandHandler | undefined;
  /** Replaces configured secrets in text the command prints (help, errors, results). */
  redact?(text: string): string;
}

const storage = contextSlot<ShellScope>("toolshell.shell-scope");

/** Runs `fn` with `scope` as the current shell call's scope. */
export function runInScope<T>(scope: ShellScope, fn: () => Promise<T>): Promise<T> {
  return storage.run(scope, fn);
}

/** The scope of the shell call running now, if any. */
export function currentScope(): ShellScope | undefined {
  return storage.get();
}
