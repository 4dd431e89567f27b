/**
 * The shapes of the call pipeline: what a surface hands it (a {@link ToolCall} and its
 * {@link CallScope}), what every surface shares (the {@link CallEnv}: policy, hooks, redactor),
 * the state the steps pass along, and the hooks a host can register.
 *
 * Surfaces differ only in data: a shell call's scope has a budget, a stop state, a replay of an
 * earlier attempt and a `done` list; a direct call's scope has none of them. See
 * docs/architecture.md ("One call, one path").
 */
import type { Decision, Judgement, Policy } from "../policy/index.js";
import type { ErrorCode, InvokeContext, MaybePromise, ToolCall, ToolCallError, ToolOutput } from "../tool/index.js";
import type { SessionEventInput } from "./events.js";
import type { Redactor } from "./redact/index.js";

/** What a before-hook may answer. */
export type BeforeHookResult = void | undefined | { action: "allow" } | { action: "deny"; reason: string } | { action: "replace"; input: Record<string, unknown> };

/** The call a hook sees (the one call shape: see `ToolCall`). */
export type HookCall = ToolCall;

/** What an after-hook sees of the outcome. */
export type HookOutcome = { ok: true; output: ToolOutput } | { ok: false; error: { code: ErrorCode; message: string } };

/** Hooks run for every call, on every surface: before the policy, and after the tool. */
export interface Hooks {
  beforeToolCall?: (call: HookCall) => BeforeHookResult | Promise<BeforeHookResult>;
  afterToolCall?: (call: HookCall, result: HookOutcome) => void | { output: ToolOutput } | Promise<void | { output: ToolOutput }>;
}

/** Status of a call in its event. */
export type CallStatus = "completed" | "failed" | "needs_approval" | "refused" | "stopped";

/** Why a shell call stopped. */
export type StopReason = "needs_approval" | "call_limit" | "timeout" | "denied" | "error";

/** The stop state of a shell call (the first stop wins). */
export interface StopState {
  reason: StopReason;
  error: ToolCallError;
  call?: { tool: string; input: Record<string, unknown> };
  requestId?: string;
  why?: string;
  line?: number;
}

/** A call that completed in an earlier attempt of a durable step, given back instead of running. */
export interface Replayed {
  output: ToolOutput;
  readOnly: boolean;
  done?: { tool: string; input: Record<string, unknown>; ok: boolean; result?: unknown; error?: { code: ErrorCode; message: string } };
}

/**
 * A call of an earlier attempt of a durable step that was following an upstream task (MCP Tasks
 * extension) when the attempt ended: the call follows that task instead of starting the work again.
 */
export interface ResumedTask {
  task: string;
}

/** The session a call runs in, as the pipeline needs it. `Session` implements it. */
export interface CallSession {
  /** Records an event in the session's timeline (redacted there). */
  emit(event: SessionEventInput): void;
  /** The `ctx` a tool's `execute` receives for this call. */
  invokeContext(call: ToolCall, signal: AbortSignal): InvokeContext;
}

/**
 * What one surface gives the pipeline besides the call: the data that differs between a nested
 * call and a direct one. Everything optional is absent for a direct call.
 */
export interface CallScope {
  readonly session: CallSession;
  /** Aborts the tool when the caller stops or goes away. */
  readonly signal: AbortSignal;
  /** Nested calls allowed in the shell call (its budget); absent = no budget. */
  readonly callLimit?: number;
  /** The shell call's stop state, read fresh. */
  stopState?(): StopState | undefined;
  /** Stops the shell call (the first stop wins). */
  setStop?(state: StopState): void;
  /** The script line of a call written out literally (asked when a request is raised). */
  lineOf?(call: ToolCall): number | undefined;
  /** The recorded call at this position of an earlier attempt, when it matches (durable steps). */
  replay?(index: number, command: string, givenKey: string): Replayed | ResumedTask | undefined;
  /** Keeps the upstream task a running call was answered with, so a later attempt re-attaches to it (durable steps). */
  recordTask?(call: ToolCall, taskId: string): void;
  /**
   * Marks a call a one-off `allow` let through as started, before the tool runs (durable steps):
   * an attempt that dies while it is in flight leaves the mark. A promise settles once the mark is
   * written (never rejects): the tool runs after it.
   */
  recordStart?(call: ToolCall): void | Promise<void>;
  /** Keeps the outcome (the stop report's `done` list, the durable record). */
  record?(state: CallState): void;
  /**
   * In a durable step resumed once its approval was answered: the answer given, for the call the
   * step held (the first call with that command and input), once; else undefined.
   */
  heldAnswer?(call: ToolCall): Decision | undefined;
}

/** What every surface shares: the one policy, the hooks, the redactor. */
export interface CallEnv {
  readonly policy: Policy;
  readonly hooks: Hooks;
  readonly redactor?: Redactor;
}

/** One call going through the pipeline. Steps read and write it; nothing else does. */
export interface CallState {
  readonly call: ToolCall;
  readonly scope: CallScope;
  readonly env: CallEnv;
  /** `performance.now()` when the call started. */
  readonly started: number;
  judgement?: Judgement;
  output?: ToolOutput;
  error?: ToolCallError;
  /** Set when an earlier attempt's record stood in for the call. */
  replayed?: Replayed;
  /** The upstream task an earlier attempt of this call started, followed instead of calling again. */
  resumeTask?: string;
  /** True once the tool was invoked (after-hooks then run, on success or failure). */
  invoked: boolean;
  /** The status the event reports, when a step decided it (else derived from the outcome). */
  status?: CallStatus;
  /** The approval request raised for this call. */
  requestId?: string;
  /** The shell call stopped while the tool ran: the result is kept but the script stops. */
  stoppedWhileRunning?: StopState;
}

/** One step of the pipeline. */
export interface Step {
  readonly name: string;
  /** Whether the step runs for this state; default: while the call is still going. */
  when?(state: CallState): boolean;
  run(state: CallState): MaybePromise<void>;
}

/** True while no step has ended the call (no error, no replayed result). */
export function going(state: CallState): boolean {
  return state.error === undefined && state.replayed === undefined;
}
