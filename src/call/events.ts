/**
 * Every event a session records, as one closed union: the store, OpenTelemetry, the HTTP API
 * and the console are checked against it. Each event carries `session_id` and `at` (ISO time),
 * added when it is recorded.
 *
 * See docs/sessions.md → Events.
 */
import type { ErrorCode } from "../tool/index.js";
import type { CallStatus, StopReason } from "./call.js";

/** The fields every recorded event has. */
type Recorded = {
  session_id: string;
  at: string;
};

/** A tool call ended: `tool.nested_call` from a script (under its shell call), `tool.direct_call` otherwise. */
export type ToolCallEvent = Recorded & {
  type: "tool.nested_call" | "tool.direct_call";
  /** The shell call a nested call ran in. */
  parent_tool_call_id?: string;
  call_id: string;
  tool_name: string;
  command: string;
  status: CallStatus;
  /** The given input as JSON, at most 400 characters, then `…`. */
  input_preview: string;
  error?: { code: ErrorCode; message: string };
  duration_ms: number;
  /** True when a durable step's record stood in for the call. */
  replayed?: boolean;
};

/** The `tool.nested_call` event. */
export type NestedCallEvent = ToolCallEvent & { type: "tool.nested_call"; parent_tool_call_id: string };

/** Status of a nested call in its event. */
export type NestedCallStatus = CallStatus;

/** Any session event. */
export type SessionEvent =
  | ToolCallEvent
  | (Recorded & { type: "tool.progress"; call_id: string; parent_tool_call_id?: string; command: string; progress: number; total?: number; message?: string })
  | (Recorded & { type: "question.asked"; question_id: string; call_id: string; parent_tool_call_id?: string; server: string; command: string })
  | (Recorded & { type: "question.answered"; question_id: string; call_id: string; action: "accept" | "decline" | "cancel"; unanswered?: string })
  | (Recorded & { type: "shell_call.started"; tool_call_id: string; script_preview: string })
  | (Recorded & { type: "shell_call.ended"; tool_call_id: string; exit_code: number; stopped?: StopReason })
  | (Recorded & { type: "preflight.failed"; tool_call_id: string; message: string })
  | (Recorded & { type: "approval.requested"; request_id: string; tool: string; tool_call_id?: string; line?: number; before_start?: boolean })
  | (Recorded & { type: "approval.answered"; request_id: string; tool: string; decision: string; step_id?: string; by?: string; surface?: string; warned?: string; replica?: string })
  | (Recorded & { type: "change.made"; surface: string; by: string; method: string; path: string; status: number; what: string; replica?: string })
  | (Recorded & { type: "step.replayed"; step_id: string; tool_call_id: string })
  | (Recorded & { type: "step.resumed"; step_id: string; tool_call_id: string; attempt: number; after: "interrupted" | "approval" })
  | (Recorded & { type: "step.waiting"; step_id: string; tool_call_id: string; request_id: string })
  | (Recorded & { type: "store.failed"; tool_call_id?: string; message: string })
  /** What the redactor failed on is not kept: a shell call's result (`tool_call_id`), or an event (`event`, its type). */
  | (Recorded & { type: "redaction.failed"; tool_call_id?: string; event?: string; message: string })
  | (Recorded & { type: "script.saved"; agent_id: string; script_id: string; name: string; version: number })
  | (Recorded & { type: "script.archived"; agent_id: string; script_id: string; name: string; archived: boolean })
  | (Recorded & { type: "trigger.run"; trigger_id: string; trigger_name: string; run_id: string; reason: string; status: string; tool_call_id: string; request_id?: string });

/** The names of every event type. */
export type SessionEventType = SessionEvent["type"];

/** An event as a producer writes it: `session_id` and `at` are added when it is recorded. */
export type SessionEventInput = SessionEvent extends infer E ? (E extends SessionEvent ? Omit<E, "session_id" | "at"> : never) : never;
