/** The server folder's public face: the host (store + scripts + triggers wired), the HTTP API, triggers. */
export { openHost, defaultStorePath, postWake } from "./host.js";
export type { Host, HostOptions } from "./host.js";
export { createApp, ApiError, tokenMatches } from "./app.js";
export type { AppOptions } from "./app.js";
export { startApi } from "./serve.js";
export type { RunningApi } from "./serve.js";
export { openApiDocument } from "./openapi.js";
export { TriggerService, publicTrigger, triggerSessionId, secretHash, sameSecret } from "./triggers.js";
export type { WakeCall, TriggerServiceOptions } from "./triggers.js";
export { fillTemplates, lookup } from "./template.js";
export { parseServerConfig, parseTriggerSpec, parseTriggersConfig, DEFAULT_PORT, DEFAULT_HOST, DEFAULT_MAX_BODY_BYTES, MIN_TOKEN_LENGTH } from "./config.js";
export type { ServerConfig, TriggerSpec, WakeAgentConfig } from "./config.js";
