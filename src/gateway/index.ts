/**
 * The gateway folder's public face: what the model sees (the `bash` tool, direct tools, token
 * counts) — shared with the AI SDK adapter in ai/ — and the MCP gateway (`toolshell mcp`).
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
  approvalsBeforeBash,
  describeRequests,
  loadKeptServers,
} from "./surface.js";
export type { BashToolInput, BashToolResult, ToolSpec, DirectTool } from "./surface.js";
export { callDirect, directApprovalNeeded, modelView } from "./direct.js";
export type { DirectOutcome, DirectCallOptions, ModelView } from "./direct.js";
export { countTokens, toolTokens, toolListTokens, toolDefinitionJson } from "./tokens.js";
export { createGatewayServer, serveStdio, approveToolSpec, supportsFormElicitation, directResult } from "./mcp-server.js";
export { serveHttp, DEFAULT_MAX_HTTP_SESSIONS, DEFAULT_HTTP_SESSION_IDLE_MS } from "./http-server.js";
export type { HttpGatewayOptions } from "./http-server.js";
export type { GatewayOptions, RunningGateway } from "./mcp-server.js";
export { CLIENTS, clientConfigFiles, importClientServers, mergeImported, isToolshellGateway } from "./import.js";
export type { ClientName, ClientConfigFile, ImportPlace, ImportResult } from "./import.js";
