/**
 * The gateway folder's public face: the MCP gateway (`toolshell mcp`), and, for the package's
 * `toolshell/gateway` entry, what the model sees (re-exported from surface/).
 */
export * from "../surface/index.js";
export { createGatewayServer, serveStdio, approveToolSpec, supportsFormElicitation, directResult } from "./mcp-server.js";
export { serveHttp, DEFAULT_MAX_HTTP_SESSIONS, DEFAULT_HTTP_SESSION_IDLE_MS } from "./http-server.js";
export type { HttpGatewayOptions } from "./http-server.js";
export type { GatewayOptions, RunningGateway } from "./mcp-server.js";
export { CLIENTS, clientConfigFiles, importClientServers, mergeImported, isToolshellGateway } from "./import.js";
export type { ClientName, ClientConfigFile, ImportPlace, ImportResult } from "./import.js";
