/** The runtime folder's public face: ToolShell, sessions, shell calls. */
export { createToolShell, checkWorkspace } from "./toolshell.js";
export type { ToolShell, ToolShellOptions } from "./toolshell.js";
export { Session } from "./session.js";
export type { BashOptions, PreflightOutcome, SessionHost } from "./session.js";
export { ShellCall } from "./shell-call.js";
export type { StopState } from "./shell-call.js";
export { previewInput, trimResult, INPUT_PREVIEW_CHARS } from "./preview.js";
export type * from "./types.js";
export { runShellStep, runStep, requestHash, createReplayer, waitingRequestId } from "./durable.js";
export type { SessionStore, SessionSnapshot, SessionFiles, StepRecord, StepStatus, RecordedCall, Replayed, Replayer, DurableRun } from "./durable.js";
export { createRedactor, configSecrets, REDACTED, MIN_SECRET_LENGTH } from "./redact.js";
export type { Redactor } from "./redact.js";
export { placeTool, explainPlacement, splitTools, reachableFromShell, callableDirectly, namesTool, toolKeys, FilteredSource, TURN_CONTROL_NAMES, IMAGE_RESULT_NAMES, FILE_EDIT_NAMES } from "./split.js";
export type { Placement, PlacementReason, SplitRules, ToolSplit } from "./split.js";
