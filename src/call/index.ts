/** The call folder's public face: the one pipeline every tool call goes through. */
export { CallPipeline, STEPS } from "./pipeline.js";
export { going } from "./call.js";
export type { BeforeHookResult, CallEnv, CallScope, CallSession, CallState, CallStatus, HookCall, HookOutcome, Hooks, Replayed, ResumedTask, Step, StopReason, StopState } from "./call.js";
export { statusOf } from "./steps/event.js";
export { raiseRequest } from "./steps/policy.js";
export { createRedactor, configSecrets, REDACTED, MIN_SECRET_LENGTH } from "./redact/index.js";
export { redactValue, redactOutput, OFF_THREAD_CHARS } from "./redact/off-thread.js";
export type { Redactor } from "./redact/index.js";
export { previewFields, previewInput, shorten, trimResult, INPUT_PREVIEW_CHARS, RESULT_PREVIEW_CHARS, SCRIPT_PREVIEW_CHARS } from "./preview.js";
export type { SessionEvent, SessionEventInput, SessionEventType, ToolCallEvent, NestedCallEvent, NestedCallStatus } from "./events.js";
export { currentPerson, describeQuestion, personContext, progressLine, showSchema, tellPerson, withPerson } from "./person.js";
export type { AskedQuestion, CallProgress, Person, PersonSession } from "./person.js";
