/**
 * toolshell's public API: createToolShell, defineTool, the approval helpers, and the types.
 */
export { createToolShell, Session } from "./runtime/index.js";
export type { ToolShell, ToolShellOptions, ShellResult, StopReport, DoneCall, SessionEvent, SessionEventType, NestedCallEvent, ToolCallEvent, Hooks, HookCall, HookOutcome, BeforeHookResult, BashOptions } from "./runtime/index.js";
export { parseConfig, readConfigFile, findConfigFile, parseServerEntry, ConfigError, configSchema } from "./config/index.js";
export type { ToolshellConfig, ConfigFile, ServerConfig, OAuthConfig } from "./config/index.js";
export { defineTool, always, once, never, ToolCallError } from "./tool/index.js";
export type { ToolDefinition, ToolDefinitionOptions, CatalogTool, ToolOutput, InvokeContext, SandboxHandle, Skill, Hints, ErrorCode, ToolSource, ApprovalPolicy, ApprovalVerdict, ApprovalRequestInfo, JsonSchema, ToolCall, CallVia, ProgressUpdate, Question, QuestionAnswer } from "./tool/index.js";
export type { Person, CallProgress, AskedQuestion } from "./call/index.js";
export { aiSdkDecisionService, offlineRater, Policy, ApprovalBook, planScript } from "./policy/index.js";
export { showInput } from "./display/show-input.js";
export type { Decision, ApprovalRequest, DecisionService, RatedTool, Plan, PlanCall, ApprovalMode } from "./policy/index.js";
export type { ShownInput, InputFlag, ShowInputOptions } from "./display/show-input.js";
