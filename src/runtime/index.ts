/** The runtime folder's public face: ToolShell, sessions, shell calls. */
export { createToolShell, buildToolShell, checkWorkspace, ServerChangeError } from "./toolshell.js";
export { watchConfigFile, type ConfigWatch } from "./config-watch.js";
export type { ToolShell, ToolShellOptions } from "./toolshell.js";
export { ShellHost } from "./host.js";
export { withOrigin, currentOrigins, authOf, sessionOrigins, SessionOwnerError } from "./lineage.js";
export { triggerStepId } from "./stop-report.js";
export type { ShellHostParts, RuntimeSubcommand } from "./host.js";
export { Session } from "./session.js";
export type { BashOptions, PreflightOutcome } from "./session.js";
export { ShellCall } from "./shell-call.js";
export type { StopState, ShellCallOptions } from "./shell-call.js";
export { previewInput, trimResult, INPUT_PREVIEW_CHARS, createRedactor, configSecrets, REDACTED, MIN_SECRET_LENGTH } from "../call/index.js";
export type { Redactor } from "../call/index.js";
export type * from "./types.js";
export { runShellStep, runStep, requestHash, waitingRequestId } from "./durable.js";
export { createReplayer, type Replayer } from "./replay.js";
export type { SessionStore, SessionLease, SessionSnapshot, SessionFiles, StepRecord, StepStatus, RecordedCall, DurableRun, DurableSessionView } from "./durable.js";
export type { Replayed } from "../call/index.js";
