/**
 * Shapes of the runtime: the result of a shell call and its stop report. Events and hooks are
 * the call pipeline's (src/call/), re-exported here.
 *
 * See README → Approvals.
 */
import type { StopReason } from "../call/index.js";
import type { ErrorCode } from "../tool/index.js";

export type { BeforeHookResult, HookCall, HookOutcome, Hooks, StopReason, SessionEvent, SessionEventInput, SessionEventType, ToolCallEvent, NestedCallEvent, NestedCallStatus } from "../call/index.js";

/** One call that may have changed something, as the stop report lists it. */
export interface DoneCall {
  tool: string;
  /** The input as the script gave it. */
  input: Record<string, unknown>;
  ok: boolean;
  /** The result, trimmed to a preview when large. */
  result?: unknown;
  error?: { code: ErrorCode; message: string };
}

/** The report of a stopped (or failed-after-changes) shell call (README "Approvals"). */
export interface StopReport {
  done: DoneCall[];
  read_only_calls: number;
  stopped?: {
    reason: StopReason;
    /** 1-based script line of the stopped call, when it is written out literally. */
    line?: number;
    call?: { tool: string; input: Record<string, unknown> };
    /** For needs_approval: `requested` (a request was raised), with its id. */
    approval?: "requested";
    request_id?: string;
    /** For needs_approval: why the call needs approval. */
    why?: string;
    before_start?: boolean;
    message?: string;
    /** Before start: the script's other literal calls that need approval, each with its request. */
    also_needs_approval?: Array<{ line: number; call: { tool: string; input: Record<string, unknown> }; request_id: string; why?: string }>;
  };
  not_reached?: string;
  stdout: string;
  stderr: string;
  files_written: string[];
}

/** What `session.bash()` returns: the `bash` tool's result. */
export interface ShellResult {
  stdout: string;
  stderr: string;
  exit_code: number;
  success: boolean;
  /** Present when the call stopped, or ended with an error after changing something. */
  tools?: StopReport;
  /** The id of this shell call within the session (`call_bash_<n>`). */
  tool_call_id: string;
}
