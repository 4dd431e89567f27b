/**
 * Shapes of the runtime: the result of a shell call, its stop report, nested-call events, hooks.
 *
 * Rule source: seed "Tools in Shell" → Approvals (the `bash` result and its `tools` report), In the
 * session timeline (`tool.nested_call`); issue 4 (stop report fields, hooks); issue 5 (event fields).
 */
import type { CatalogTool, ErrorCode, ToolOutput } from "../tool/index.js";

/** Why a shell call stopped. */
export type StopReason = "needs_approval" | "call_limit" | "timeout" | "denied" | "error";

/** One call that may have changed something, as the stop report lists it. */
export interface DoneCall {
  tool: string;
  input: Record<string, unknown>;
  ok: boolean;
  /** The result, trimmed to a preview when large. */
  result?: unknown;
  error?: { code: ErrorCode; message: string };
}

/** The report of a stopped (or failed-after-changes) shell call. Issue 4 → While it runs. */
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

/** Status of a nested call in its event. Issue 5 → Events. */
export type NestedCallStatus = "completed" | "failed" | "needs_approval" | "refused" | "stopped";

/** The `tool.nested_call` event. */
export interface NestedCallEvent {
  type: "tool.nested_call";
  session_id: string;
  parent_tool_call_id: string;
  call_id: string;
  tool_name: string;
  command: string;
  status: NestedCallStatus;
  input_preview: string;
  error?: { code: ErrorCode; message: string };
  duration_ms: number;
  at: string;
}

/** Any session event. */
export type SessionEvent =
  | NestedCallEvent
  | { type: "shell_call.started" | "shell_call.ended"; session_id: string; tool_call_id: string; at: string; script_preview?: string; exit_code?: number; stopped?: StopReason }
  | { type: "approval.requested" | "approval.answered"; session_id: string; request_id: string; at: string; tool: string; decision?: string }
  | { type: string; session_id: string; at: string; [key: string]: unknown };

/** What a before-hook may answer. */
export type BeforeHookResult = void | undefined | { action: "allow" } | { action: "deny"; reason: string } | { action: "replace"; input: Record<string, unknown> };

/** Context a hook receives. */
export interface HookCall {
  tool: CatalogTool;
  command: string;
  input: Record<string, unknown>;
  sessionId: string;
  callId: string;
  /** `shell` for a nested call, `direct` for a direct call. */
  via: "shell" | "direct";
}

/** Hooks run for every call, after the schema check (issue 4 → While it runs). */
export interface Hooks {
  beforeToolCall?: (call: HookCall) => BeforeHookResult | Promise<BeforeHookResult>;
  afterToolCall?: (call: HookCall, result: { ok: true; output: ToolOutput } | { ok: false; error: { code: ErrorCode; message: string } }) => void | { output: ToolOutput } | Promise<void | { output: ToolOutput }>;
}
