/**
 * The check folder's public face: `toolshell check`'s advisory findings. check/ sits just above
 * cli/ in the layering (it may import every folder but cli/).
 */
export { checkToolShell, checkConfigError, checkStoreError, renderFindings, SCHEMA_TOKEN_LIMIT, TOOL_SEARCH_NAMES } from "./check.js";
export type { Finding, Severity, Category, CheckOptions } from "./check.js";
