/**
 * The surface folder's public face: what the model sees — the `bash` tool, direct tool calls,
 * token counts. The split of tools into direct ones and those behind `tools` is the catalog's
 * (catalog/split.ts). The AI SDK adapter (ai/) and the MCP gateway (gateway/) both build on it.
 */
export {
  BASH_TOOL_NAME,
  APPROVE_TOOL_NAME,
  DEFAULT_MAX_OUTPUT_CHARS,
  bashInputSchema,
  describeSources,
  bashToolDescription,
  bashToolSpec,
  boundText,
  shapeShellResult,
  checkBashInput,
  runBashTool,
  directToolName,
  directTools,
  directDescription,
  commandOf,
  isShellRequest,
  describeRequests,
  loadKeptServers,
} from "./bash-tool.js";
export type { BashToolInput, BashToolResult, ToolSpec, DirectTool } from "./bash-tool.js";
export { callDirect, directApprovalNeeded, modelView } from "./direct.js";
export type { DirectOutcome, DirectCallOptions, ModelView } from "./direct.js";
export { countTokens, toolTokens, toolListTokens, toolDefinitionJson } from "./tokens.js";
