/** The server folder's public face: the host (store + scripts + triggers wired), the HTTP API, triggers. */
export { openHost, defaultStorePath, postWake } from "./host.js";
export type { Host, HostNote, HostOptions } from "./host.js";
export { createApp, ApiError, tokenMatches } from "./app.js";
export type { AppOptions } from "./app.js";
export { startApi } from "./serve.js";
export type { RunningApi } from "./serve.js";
export { listServers } from "./servers-api.js";
export type { ServerListing } from "./servers-api.js";
export { openApiDocument } from "./openapi.js";
export { TriggerService, publicTrigger, triggerSessionId, secretHash, sameSecret } from "./triggers.js";
export type { WakeCall, TriggerServiceOptions } from "./triggers.js";
export { fillTemplates, lookup } from "./template.js";
// The `server` and `triggers` keys are part of the one config schema (src/config/); their names stay here too.
export { parseServerConfig, parseTriggerSpec, DEFAULT_PORT, DEFAULT_HOST, DEFAULT_MAX_BODY_BYTES, MIN_TOKEN_LENGTH } from "../config/index.js";
export type { HttpApiConfig as ServerConfig, TriggerSpec, WakeAgentConfig } from "../config/index.js";
