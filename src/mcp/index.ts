/**
 * The MCP layer's public face: one {@link McpServerSource} per configured server (src/config/),
 * and helpers to create and start them.
 *
 * Rule source: issue 2 "MCP servers"; DESIGN.md "Layout" (mcp/).
 */
import type { ServerConfig } from "../config/index.js";
import { McpServerSource, type McpSourceOptions } from "./source.js";

export { serverIdentity } from "./identity.js";
export { DEFAULT_LOG_DIR, logFileFor } from "./log.js";
export { toToolOutput, type McpCallResult } from "./result.js";
export { hintsFromAnnotations } from "./tool.js";
export { McpServerSource, type McpSourceOptions } from "./source.js";
export {
  DEFAULT_PRINCIPAL,
  MemoryCredentialStore,
  actingFor,
  SignInBroker,
  principalOf,
  type CredentialStore,
  type OAuthContext,
  type OAuthCredentials,
  type PendingSignIn,
  type SignInStatus,
} from "./auth/index.js";

/**
 * One source per server that is not `disabled`, in config order. Nothing is spawned or
 * connected here: call {@link loadEagerSources} (or each source's `load()`) for that.
 */
export function createMcpSources(configs: readonly ServerConfig[], options: McpSourceOptions = {}): McpServerSource[] {
  return configs.filter((config) => !config.disabled).map((config) => new McpServerSource(config, options));
}

/**
 * Loads every source whose config says `load: "eager"` (the default), all at once, and
 * resolves when each has either listed its tools or failed (a failed one has state `failed`
 * and its `failure()`; its next load or call tries again). `on_demand` sources are left
 * `not_loaded`. Never rejects.
 */
export async function loadEagerSources(sources: readonly McpServerSource[], signal?: AbortSignal): Promise<void> {
  await Promise.allSettled(sources.filter((source) => source.config.load === "eager").map((source) => source.load(signal)));
}

/** Closes every source (processes ended, connections closed). Never rejects. */
export async function closeSources(sources: readonly McpServerSource[]): Promise<void> {
  await Promise.allSettled(sources.map((source) => source.close()));
}
