/**
 * `toolshell/ai`: the AI SDK adapter. `createToolshellTools({ shell, session })` returns an AI SDK
 * 7 `ToolSet` (the `bash` tool plus the direct tools) for `generateText` / `streamText`.
 */
export { createToolshellTools, defaultDecision, outcomeToModelOutput } from "./tools.js";
export type { ToolshellToolsOptions, ToolshellToolSet, AiApprovalResponse } from "./tools.js";
