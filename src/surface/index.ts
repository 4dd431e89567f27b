/**
 * The surface folder's public face: what the model sees — the split of tools into direct ones and
 * those behind `tools`, the `bash` tool, direct tool calls, token counts. The AI SDK adapter
 * (ai/) and the MCP gateway (gateway/) both build on it.
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
export { placeTool, explainPlacement, splitTools, reachableFromShell, callableDirectly, namesTool, FilteredSource, TURN_CONTROL_NAMES, IMAGE_RESULT_NAMES, FILE_EDIT_NAMES } from "./split.js";
export type { Placement, PlacementReason, SplitRules, ToolSplit } from "./split.js";
