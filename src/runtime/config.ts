/**
 * The toolshell configuration file: `toolshell.config.json` (or an `.mcp.json` / VS Code
 * `mcp.json`, which hold only servers). Read by the host only; nothing a script passes to
 * `tools` can point it at another config, server or credential.
 *
 * Rule source: issue 2 "MCP servers" and "The CLI and the demo" (file look-up order); seed
 * "Tools in Shell" → Configuration (`keep_visible`, `manage_scripts`, `rate_unlabeled_tools`).
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { closest } from "../catalog/index.js";
import { parseServersConfig, type ServerConfig } from "../mcp/index.js";
import { validate as validateSchema } from "./config-schema.generated.js";

/** Approval settings (issue 4). Kept as written; the policy folder interprets them. */
export interface ApprovalConfig {
  mode?: "normal" | "protective" | "off";
  /** Per-tool overrides by command (`github delete-branch`) or top-level name: always | never | block. */
  tools?: Record<string, "always" | "never" | "block">;
  /** Per-server overrides: always | never | block. */
  servers?: Record<string, "always" | "never" | "block">;
  /** Take annotations of untrusted servers as given (default false; see README). */
  trustAnnotations?: boolean;
}

/** The parsed configuration, paths absolute. */
export interface ToolshellConfig {
  /** The file it came from (absent for an in-code config). */
  file?: string;
  baseDir: string;
  servers: ServerConfig[];
  /** Folder of `agent/tools/*.ts|js` (default `<baseDir>/agent/tools` when it exists). */
  toolsDir?: string;
  /** Folder of `agent/skills/<id>/SKILL.md`. */
  skillsDir?: string;
  /** Nested calls per shell call (default 50). */
  callLimit: number;
  /** Time limit of one shell call in milliseconds (default 120 000). */
  timeoutMs: number;
  keepVisible: string[];
  manageScripts: boolean;
  rateUnlabeledTools: boolean;
  approval: ApprovalConfig;
  /** Where state lives (issue 5), default `<baseDir>/.toolshell/state.db`. */
  store?: string;
  /** Server logs folder, default `<baseDir>/.toolshell/logs`. */
  logDir: string;
  /** Every top-level key as written, for layers that read their own keys. */
  raw: Record<string, unknown>;
}

/** Default nested calls per shell call (seed: "More than 50 tool calls in one shell call"). */
export const DEFAULT_CALL_LIMIT = 50;
/** Default time limit of one shell call, in milliseconds. */
export const DEFAULT_TIMEOUT_MS = 120_000;

const TOP_KEYS = new Set([
  "$schema", "mcpServers", "servers", "inputs", "tools", "skills", "callLimit", "timeoutMs", "keepVisible",
  "manageScripts", "rateUnlabeledTools", "approval", "store", "logDir", "hooks", "triggers", "server", "decisionService",
]);

function fail(file: string | undefined, key: string, message: string): never {
  throw new Error(`${file ?? "config"}: ${key}: ${message}`);
}

/**
 * Parses a configuration object. `baseDir` resolves relative paths.
 * @throws Error naming the file and key on any bad value or unknown top-level key.
 */
export function parseConfig(json: unknown, options: { baseDir: string; file?: string; env?: Record<string, string | undefined> }): ToolshellConfig {
  const { file } = options;
  const baseDir = path.resolve(options.baseDir);
  if (typeof json !== "object" || json === null || Array.isArray(json)) fail(file, "(top level)", "expected a JSON object");
  const o = json as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    if (TOP_KEYS.has(k)) continue;
    const known = [...TOP_KEYS].filter((x) => x !== "$schema");
    const near = closest(k, known)[0];
    fail(file, k, `unknown key${near ? `; did you mean "${near}"?` : ""} (known: ${known.join(", ")})`);
  }
  let servers: ServerConfig[] = [];
  try {
    // `${TOOLSHELL_CONFIG_DIR}` names the config file's folder (absolute), for servers that
    // resolve relative paths against their own install folder.
    const env = { ...(options.env ?? process.env), TOOLSHELL_CONFIG_DIR: baseDir };
    servers = o.mcpServers === undefined && o.servers === undefined ? [] : parseServersConfig(o, { baseDir, env });
  } catch (err) {
    fail(file, "mcpServers", (err as Error).message);
  }
  const dir = (key: "tools" | "skills", dflt: string): string | undefined => {
    const v = o[key];
    if (v === undefined) {
      const d = path.join(baseDir, dflt);
      return existsSync(d) ? d : undefined;
    }
    if (typeof v !== "string" || !v) fail(file, key, "expected a folder path");
    const full = path.resolve(baseDir, v);
    if (!existsSync(full)) fail(file, key, `no such folder: ${full}`);
    return full;
  };
  const num = (key: string, dflt: number, min: number, max: number): number => {
    const v = o[key];
    if (v === undefined) return dflt;
    if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max) fail(file, key, `expected a whole number from ${min} to ${max}`);
    return v;
  };
  const bool = (key: string, dflt: boolean): boolean => {
    const v = o[key];
    if (v === undefined) return dflt;
    if (typeof v !== "boolean") fail(file, key, "expected true or false");
    return v;
  };
  const keepVisible = o.keepVisible ?? [];
  if (!Array.isArray(keepVisible) || keepVisible.some((x) => typeof x !== "string")) fail(file, "keepVisible", "expected an array of tool names");
  const approval = (o.approval ?? {}) as ApprovalConfig;
  if (typeof approval !== "object" || approval === null || Array.isArray(approval)) fail(file, "approval", "expected an object");
  if (approval.mode !== undefined && !["normal", "protective", "off"].includes(approval.mode)) fail(file, "approval.mode", "expected normal, protective or off");
  for (const group of ["tools", "servers"] as const) {
    const m = approval[group];
    if (m === undefined) continue;
    if (typeof m !== "object" || m === null) fail(file, `approval.${group}`, "expected an object");
    for (const [k, v] of Object.entries(m)) if (!["always", "never", "block"].includes(v)) fail(file, `approval.${group}.${k}`, "expected always, never or block");
  }
  if (approval.trustAnnotations !== undefined && typeof approval.trustAnnotations !== "boolean") fail(file, "approval.trustAnnotations", "expected true or false");
  const store = o.store;
  if (store !== undefined && (typeof store !== "string" || !store)) fail(file, "store", "expected a file path or \":memory:\"");
  const logDir = o.logDir;
  if (logDir !== undefined && (typeof logDir !== "string" || !logDir)) fail(file, "logDir", "expected a folder path");
  const parsed: ToolshellConfig = {
    file,
    baseDir,
    servers,
    toolsDir: dir("tools", "agent/tools"),
    skillsDir: dir("skills", "agent/skills"),
    callLimit: num("callLimit", DEFAULT_CALL_LIMIT, 1, 10_000),
    timeoutMs: num("timeoutMs", DEFAULT_TIMEOUT_MS, 100, 24 * 3600_000),
    keepVisible: keepVisible as string[],
    manageScripts: bool("manageScripts", false),
    rateUnlabeledTools: bool("rateUnlabeledTools", true),
    approval,
    store: typeof store === "string" ? (store === ":memory:" ? store : path.resolve(baseDir, store)) : undefined,
    logDir: path.resolve(baseDir, typeof logDir === "string" ? logDir : ".toolshell/logs"),
    raw: o,
  };
  checkSchema(o, file);
  return parsed;
}

const TYPE_WORDS: Record<string, string> = { string: "a string", number: "a number", integer: "a whole number", boolean: "true or false", object: "an object", array: "an array", null: "null" };

/** Keys whose own parsers (server/) report their errors; the schema check leaves them to those. */
const PARSED_ELSEWHERE = new Set(["server", "triggers", "hooks", "decisionService"]);

/**
 * Checks the config against schema/toolshell.config.schema.json (ajv, compiled ahead of time:
 * config-schema.generated.ts). Runs after the checks above, so their messages come first.
 * @throws Error `<file>: <key>: <message>` for the first value the schema refuses.
 */
function checkSchema(o: Record<string, unknown>, file: string | undefined): void {
  if (validateSchema(o)) return;
  type AjvError = { instancePath: string; keyword: string; params: Record<string, unknown>; message?: string };
  const errors = ((validateSchema as unknown as { errors?: AjvError[] }).errors ?? []) as AjvError[];
  const e = errors[0];
  if (!e) return;
  const parts = e.instancePath.split("/").slice(1).map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
  if (PARSED_ELSEWHERE.has(parts[0])) return;
  let key = parts.reduce((acc, p) => (/^\d+$/.test(p) ? `${acc}[${p}]` : acc ? `${acc}.${p}` : p), "");
  let message = e.message ?? "is not valid";
  if (e.keyword === "additionalProperties") {
    key = key ? `${key}.${String(e.params.additionalProperty)}` : String(e.params.additionalProperty);
    message = "unknown key";
  } else if (e.keyword === "type") message = `expected ${String(e.params.type).split(",").map((t) => TYPE_WORDS[t] ?? t).join(" or ")}`;
  else if (e.keyword === "enum") message = `expected one of ${(e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
  else if (e.keyword === "minLength") message = "must not be empty";
  else if (e.keyword === "anyOf" && parts[0] && /[sS]ervers$/.test(parts[0])) message = 'expected "command" (stdio) or "url" (HTTP)';
  fail(file, key || "(top level)", `${message} (schema/toolshell.config.schema.json)`);
}

/**
 * Reads and parses a config file.
 * @throws Error naming the file when it is missing, not JSON, or has a bad key.
 */
export function readConfigFile(file: string, env?: Record<string, string | undefined>): ToolshellConfig {
  const full = path.resolve(file);
  let text: string;
  try {
    text = readFileSync(full, "utf8");
  } catch (err) {
    throw new Error(`${full}: cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { cause: err });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new Error(`${full}: not valid JSON: ${(err as Error).message}`, { cause: err });
  }
  return parseConfig(json, { baseDir: path.dirname(full), file: full, env });
}

/**
 * The configuration as `createToolShell` options give it: a file path, or an object whose
 * relative paths resolve against `baseDir` (default: the process's working directory).
 * @throws Error naming the file and key on a bad config.
 */
export function loadConfig(options: { config?: string | Record<string, unknown>; baseDir?: string; env?: Record<string, string | undefined> }): ToolshellConfig {
  const env = options.env ?? process.env;
  return typeof options.config === "string"
    ? readConfigFile(options.config, env)
    : parseConfig(options.config ?? {}, { baseDir: options.baseDir ?? process.cwd(), env });
}

export { findConfigFile } from "./config-file.js";
