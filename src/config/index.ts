/**
 * The config folder's public face: the one schema of the config file, the types derived from it,
 * and reading, checking and resolving a config (a whole file or one server entry).
 *
 * See README → Configuration; docs/agents.md → Configuration.
 */
export {
  configSchema,
  serverEntrySchema,
  approvalSchema,
  httpApiSchema,
  triggerSchema,
  oauthSchema,
  TOP_LEVEL_KEYS,
  SERVER_ENTRY_KEYS,
  SERVER_NAME,
  RESERVED_SERVER_NAMES,
  PROTOTYPE_KEYS,
  serverNameProblem,
  DEFAULT_CALL_LIMIT,
  DEFAULT_TIMEOUT_MS,
  DEFAULT_MAX_OUTPUT_BYTES,
  MAX_OUTPUT_BYTES_RANGE,
  DEFAULT_MAX_SESSION_FILE_BYTES,
  MAX_SESSION_FILE_BYTES_RANGE,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_PORT,
  DEFAULT_HOST,
  DEFAULT_MAX_BODY_BYTES,
  MIN_TOKEN_LENGTH,
  TOKEN_ROLES,
  defaultRole,
} from "./schema.js";
export type { TokenRole } from "./schema.js";
export type { ConfigFile, ParsedConfigFile, ApprovalConfig, HttpApiConfig, WakeAgentConfig, TriggerSpec, OAuthConfig, ServerEntry, LoadMode } from "./schema.js";
export { parseConfig, parseConfigText, readConfigFile, readConfigJson, loadConfig } from "./load.js";
export { readConfigServers, editServerEntry, writeConfigText } from "./edit.js";
export type { WrittenServer, ConfigFileServers, ServerEdit } from "./edit.js";
export { findConfigFile, resolveConfigFile } from "./locate.js";
export type { ToolshellConfig, ParseConfigOptions } from "./load.js";
export { parseServerEntry, parseServersConfig } from "./servers.js";
export type { ServerConfig, StdioServerConfig, HttpServerConfig, ServerParseOptions } from "./servers.js";
export { parseServerConfig, parseTriggerSpec } from "./http-api.js";
export { expandVars, expandDeep, workspaceFolderOf } from "./expand.js";
export { isPostgresUrl } from "./store-location.js";
export { rebaseConfig } from "./rebase.js";
export { privateDir, writePrivateFile, openPrivateLog, narrowPrivateFile, isPrivateFile } from "./private-files.js";
export type { ExpandContext } from "./expand.js";
export { ConfigError, unknownKeyMessage } from "./messages.js";
export type { ConfigIssue } from "./messages.js";
export { configJsonSchema, configJsonSchemaText } from "./json-schema.js";
