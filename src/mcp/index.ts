/**
 * The MCP layer's public face: one {@link McpServerSource} per configured server (src/config/),
 * and helpers to create and start them.
 *
 * See docs/mcp.md; docs/architecture.md.
 */
import type { ServerConfig } from "../config/index.js";
import { McpServerSource, type McpSourceOptions } from "./source.js";

export { serverIdentity } from "./identity.js";
export { DEFAULT_LOG_DIR, logFileFor, type LogRedactor } from "./log.js";
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
export function createMcpSources(configs: readonly ServerConfig[], options: McpSourceOptions): McpServerSource[] {
  return configs.filter((config) => !config.disabled).map((config) => new McpServerSource(config, options));
}

/**
 * Loads every source whose config says `load: "eager"` (the default), all at once, and
 * resolves when each has either listed its tools or failed (a failed one has state `failed`
 * and its `failure()`; its next load or call tries again). `on_demand` sources are left
 * `not_loaded`. With `onWaiting`, the servers still starting after {@link WAIT_NOTICE_MS} are
 * named once, so a person at a terminal knows what the wait is. Never rejects.
 */
export async function loadEagerSources(sources: readonly McpServerSource[], signal?: AbortSignal, onWaiting?: (waiting: ServerWait[]) => void): Promise<void> {
  const eager = sources.filter((source) => source.config.load === "eager");
  const loading = new Set(eager);
  const timer = onWaiting
    ? setTimeout(() => {
        const waiting = [...loading].map((s) => ({ name: s.name, logFile: s.logFile, connectTimeoutMs: s.config.connectTimeoutMs }));
        if (waiting.length) onWaiting(waiting);
      }, WAIT_NOTICE_MS)
    : undefined;
  try {
    await Promise.allSettled(eager.map((source) => source.load(signal).finally(() => loading.delete(source))));
  } finally {
    clearTimeout(timer);
  }
}

/** How long eager servers may take to start before `onWaiting` names the ones still starting. */
export const WAIT_NOTICE_MS = 2000;

/** A server still starting: its name, its stderr log and how long it may take in all. */
export interface ServerWait {
  name: string;
  logFile: string;
  connectTimeoutMs: number;
}

/** The line a terminal shows for servers still starting (CLI and gateway, on stderr). */
export function describeServerWait(waiting: ServerWait[]): string {
  return waiting.map((w) => `waiting for server ${w.name} to start (gives up after ${Math.round(w.connectTimeoutMs / 1000)} s; its stderr: ${w.logFile})`).join("\n");
}

/** Closes every source (processes ended, connections closed). Never rejects. */
export async function closeSources(sources: readonly McpServerSource[]): Promise<void> {
  await Promise.allSettled(sources.map((source) => source.close()));
}
