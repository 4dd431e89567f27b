/**
 * Durable steps: the port a store implements (sessions, their files, events, steps and the
 * nested calls of a step) and the step logic the session runs over it.
 *
 * A step is one unit of a session's work with a stable id: a shell call (`session.bash(script,
 * { stepId })`) or any other unit (`session.step(stepId, fn)`, e.g. a direct tool call).
 * - A step that completed is never run again: asking for it again returns the recorded result.
 * - A step interrupted mid-way (the process died) runs again when asked again. Inside a shell
 *   call that runs again, each nested call that completed in an earlier attempt — same position,
 *   same command, same input — returns its recorded output instead of running; the first call
 *   that differs or has no record runs for real, and so does every call after it.
 * - A shell call that did not start because a literal call needs approval (`before_start`) waits:
 *   asked again while the request is pending, it returns the same report; once answered it runs.
 *
 * The runtime defines this port; `store/` implements it (layering rule of DESIGN.md).
 *
 * Rule source: issue 5 → Durable steps; seed "Tools" ("Completed steps never re-run; eve replays
 * the recorded result. A step interrupted mid-execution re-runs"); seed "Tools in Shell" →
 * Approvals ("after they answer the agent can run the same script again").
 */
import { createHash } from "node:crypto";
import type { IFileSystem } from "just-bash";
import type { ToolOutput } from "../tool/index.js";
import type { DoneCall, SessionEvent, ShellResult } from "./types.js";

/** A nested call that completed inside a shell-call step, kept to replay it. */
export interface RecordedCall {
  /** Position of the call in its shell call (0-based), as in its call id. */
  index: number;
  /** `call_bash_<n>:tools:<index>:<tool>`. */
  callId: string;
  /** `tools <server> <tool>` as the catalog spells it. */
  command: string;
  /** {@link canonicalJson} of the checked input. */
  inputKey: string;
  /** The output (without `raw`), after redaction. */
  output: ToolOutput;
  /** True when the call was judged read-only (counted, not listed in `done`). */
  readOnly: boolean;
  /** The `done` entry it made, when it was not read-only. */
  done?: DoneCall;
}

/** Where a step is. */
export type StepStatus = "running" | "completed" | "waiting_approval";

/** One recorded step. */
export interface StepRecord {
  sessionId: string;
  stepId: string;
  /** `shell` for a shell call; anything else for `session.step()` units. */
  kind: string;
  /** The shell call id of a shell step (`call_bash_<n>`), or the step id. */
  toolCallId: string;
  /** SHA-256 of the canonical request: asking again with another request is refused. */
  requestHash: string;
  request: unknown;
  status: StepStatus;
  /** 1 on the first run, +1 each time an interrupted or waiting step runs again. */
  attempt: number;
  /** The result (a ShellResult for shell steps), when not running. */
  result?: unknown;
  /** The approval request a waiting step waits on. */
  requestId?: string;
  startedAt: string;
  endedAt?: string;
}

/** A session's sandbox filesystem as the store snapshots it. */
export interface SessionFiles {
  fs: IFileSystem;
  /** Path prefixes not to save (a real folder mounted as the workspace persists by itself). */
  exclude: string[];
}

/** What a store knows of a session when it opens. */
export interface SessionSnapshot {
  metadata: Record<string, unknown>;
  /** Shell calls made so far (the next one is `call_bash_<shellCalls + 1>`). */
  shellCalls: number;
  /** True when the store had no record of it. */
  created: boolean;
}

/**
 * The persistence port of sessions. Methods may be sync or async; the runtime awaits them.
 * `appendEvent` and `recordCall` are called synchronously on the hot path and must not throw.
 */
export interface SessionStore {
  /** Creates the session's record (with `metadata`) or loads it and restores its files into `files.fs`. */
  openSession(session: { id: string; metadata: Record<string, unknown>; files: SessionFiles }): Promise<SessionSnapshot>;
  /** Persists one event (already redacted). A completed `tool.nested_call` event is written with its pending {@link recordCall} in one transaction. */
  appendEvent(event: SessionEvent): void;
  /** The step `stepId` of a session, if recorded. */
  getStep(sessionId: string, stepId: string): Promise<StepRecord | undefined>;
  /** Records a step as running (insert or update), and the session's shell-call count. */
  beginStep(step: StepRecord, shellCalls: number): Promise<void>;
  /** Keeps a completed nested call of a running shell step (written with its event). */
  recordCall(sessionId: string, toolCallId: string, call: RecordedCall): void;
  /** Completed nested calls of a shell call, by index. */
  recordedCalls(sessionId: string, toolCallId: string): Promise<RecordedCall[]>;
  /** Ends a step: status, result and the session's files, in one transaction. */
  endStep(end: { sessionId: string; stepId: string; status: StepStatus; result: unknown; requestId?: string; files: SessionFiles }): Promise<void>;
}

/** What a replayed nested call gives back to the shell call. */
export interface Replayed {
  output: ToolOutput;
  readOnly: boolean;
  done?: DoneCall;
}

/** Replays the recorded calls of an earlier attempt, in order, until the script diverges. */
export interface Replayer {
  /** The recorded call at `index` when it matches `command` and `input`; else undefined (and replay ends). */
  take(index: number, command: string, input: Record<string, unknown>): Replayed | undefined;
}

/** JSON with object keys sorted at every level: equal inputs give equal strings whatever the key order. */
export function canonicalJson(value: unknown): string {
  const norm = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(norm);
    if (v && typeof v === "object") {
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(v).sort()) out[k] = norm((v as Record<string, unknown>)[k]);
      return out;
    }
    return v;
  };
  return JSON.stringify(norm(value)) ?? "null";
}

/** SHA-256 hex of {@link canonicalJson} of `value`. */
export function requestHash(value: unknown): string {
  return createHash("sha256").update(canonicalJson(value)).digest("hex");
}

/** A replayer over the calls of an earlier attempt (sorted by index). */
export function createReplayer(calls: RecordedCall[]): Replayer {
  const byIndex = new Map(calls.map((c) => [c.index, c]));
  let diverged = byIndex.size === 0;
  return {
    take(index, command, input) {
      if (diverged) return undefined;
      const c = byIndex.get(index);
      if (!c || c.command !== command || c.inputKey !== canonicalJson(input)) {
        diverged = true;
        return undefined;
      }
      return { output: c.output, readOnly: c.readOnly, ...(c.done ? { done: c.done } : {}) };
    },
  };
}

/** A ShellResult for a step that cannot run (a reused step id with another request). */
export function stepErrorResult(toolCallId: string, message: string): ShellResult {
  const line = JSON.stringify({ error: { code: "invalid_input", message, retryable: false } }) + "\n";
  return { stdout: "", stderr: line, exit_code: 1, success: false, tool_call_id: toolCallId };
}

/** The request id of a shell result that stopped before start for approval, if any. */
export function waitingRequestId(result: ShellResult): string | undefined {
  const s = result.tools?.stopped;
  return s && s.reason === "needs_approval" && s.before_start ? s.request_id : undefined;
}
