/**
 * Reading a config: which file (`--config`, `TOOLSHELL_CONFIG`, then `toolshell.config.json` or
 * `.mcp.json` in the working folder), its JSON (errors with line and column), then the schema
 * with variables expanded and paths resolved. Read by the host only; nothing a script passes to
 * `tools` can point it at another config, server or credential.
 *
 * See README → Configuration, The CLI.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { ParseError } from "jsonc-parser";
import { expandDeep } from "./expand.js";
import { isPostgresUrl } from "./store-location.js";
import { ConfigError, sortUnknownKeys, toIssues, wording, type ConfigIssue } from "./messages.js";
import { configSchema, PROTOTYPE_KEYS, TOP_LEVEL_KEYS, type ParsedConfigFile } from "./schema.js";
import { expandContext, prepareServerGroups, resolveServerGroups, type ServerConfig } from "./servers.js";

/** The parsed configuration, paths absolute. */
export type ToolshellConfig = Omit<ParsedConfigFile, "$schema" | "mcpServers" | "servers" | "inputs" | "tools" | "skills" | "store" | "logDir" | "hooks" | "decisionService"> & {
  /** The file it came from (absent for an in-code config). */
  file?: string;
  baseDir: string;
  /** Every server of `mcpServers` then `servers`, in file order. */
  servers: ServerConfig[];
  /** Folder of `agent/tools/*.ts|js` (default `<baseDir>/agent/tools` when it exists). */
  toolsDir?: string;
  /** Folder of `agent/skills/<id>/SKILL.md` (default `<baseDir>/agent/skills` when it exists). */
  skillsDir?: string;
  /** Where state lives: an absolute path or `:memory:` (absent: the host's default). */
  store?: string;
  /** Server logs folder, default `<baseDir>/.toolshell/logs`. */
  logDir: string;
  /** Things the person should know that are not errors (keys toolshell does not read, kept as written). */
  notes: string[];
  /** Every top-level key as written. */
  raw: Record<string, unknown>;
};

/** Options of {@link parseConfig}. */
export interface ParseConfigOptions {
  /** Folder relative paths resolve against (the config file's folder). */
  baseDir: string;
  /** The file the config came from, for messages and `${workspaceFolder}`. */
  file?: string;
  /** Variables for `${VAR}` expansion and PATH look-up; default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * An issue for each `__proto__`, `constructor` or `prototype` key anywhere in the config (a
 * record of approval overrides, an env, headers…): such a key names no tool, variable or
 * header, and read into an object it would reach its prototype. Server names have their own
 * message (`serverNameProblem`), so the keys of `mcpServers` and `servers` are left to it.
 */
function prototypeKeys(root: Record<string, unknown>): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const stack: Array<[unknown, string]> = [[root, ""]];
  while (stack.length) {
    const [value, at] = stack.pop()!;
    if (value === null || typeof value !== "object") continue;
    const serverNames = at === "mcpServers" || at === "servers";
    for (const k of Object.keys(value)) {
      const p = Array.isArray(value) ? `${at}[${k}]` : at ? `${at}.${k}` : k;
      if (PROTOTYPE_KEYS.has(k) && !serverNames) issues.push({ path: p, message: `the key "${k}" is not allowed (it would reach an object's prototype, not name anything)` });
      else stack.push([(value as Record<string, unknown>)[k], p]);
    }
  }
  return issues;
}

/**
 * Parses a configuration object: top-level keys toolshell does not read are kept with a note
 * unless they are a near miss of one it does (`callLimt`: an error with "did you mean");
 * variables expand in server entries, `server` and `triggers`; the schema checks everything;
 * relative paths resolve against `baseDir`, and a `tools` / `skills` folder must exist.
 * @throws ConfigError listing every mistake, each line `<file>: <key>: <message>`.
 */
export function parseConfig(json: unknown, options: ParseConfigOptions): ToolshellConfig {
  const file = options.file;
  const where = file ?? "config";
  const ctx = expandContext(options);
  const baseDir = ctx.configDir;
  if (typeof json !== "object" || json === null || Array.isArray(json)) throw new ConfigError([{ path: "", message: "expected a JSON object" }], where);
  const o = json as Record<string, unknown>;
  const { issues, others } = sortUnknownKeys(o, TOP_LEVEL_KEYS, "");
  issues.push(...prototypeKeys(o));
  const prepared = prepareServerGroups(o, ctx);
  issues.push(...prepared.issues);
  const value = prepared.value;
  // Keys whose variables did not expand: their values are checked as written, so a check of a
  // `${VAR}` text itself (a token's length, say) would blame an entry that is fine once expanded.
  const unexpanded = new Set<string>();
  for (const key of ["server", "triggers", "store"] as const) {
    if (o[key] === undefined) continue;
    try {
      value[key] = expandDeep(o[key], ctx, key);
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      // Every command loads the config, but only serve needs tokens, and it reads them from the environment itself.
      for (const i of err.issues) if (i.path.startsWith("server.tokens") && i.message.startsWith("environment variable ")) i.message += `; toolshell serve reads TOOLSHELL_API_TOKEN and TOOLSHELL_API_TOKENS from the environment itself, so leave server.tokens out (docs/deployment.md)`;
      issues.push(...err.issues);
      unexpanded.add(key);
    }
  }
  const result = configSchema.safeParse(value, { error: wording, reportInput: true });
  const judgedAsWritten = (i: { path: PropertyKey[]; input?: unknown }) => unexpanded.has(String(i.path[0])) && typeof i.input === "string" && i.input.includes("${");
  if (!result.success) issues.push(...toIssues(result.error.issues.filter((i) => !judgedAsWritten(i))));
  if (!result.success || issues.length) throw new ConfigError(issues, where);
  const p = result.data;
  const folderIssues: ConfigIssue[] = [];
  const folder = (key: "tools" | "skills", dflt: string): string | undefined => {
    const v = p[key];
    if (v === undefined) {
      const d = path.join(baseDir, dflt);
      return existsSync(d) ? d : undefined;
    }
    const full = path.resolve(baseDir, v);
    if (!existsSync(full)) folderIssues.push({ path: key, message: `no such folder: ${full}` });
    else if (!statSync(full).isDirectory()) folderIssues.push({ path: key, message: `not a folder: ${full}` });
    return full;
  };
  const toolsDir = folder("tools", "agent/tools");
  const skillsDir = folder("skills", "agent/skills");
  if (folderIssues.length) throw new ConfigError(folderIssues, where);
  const servers = resolveServerGroups(p, ctx);
  const kept = [...others, ...servers.flatMap((s) => Object.keys(s.raw).map((k) => `${s.key}.${k}`))];
  return {
    file,
    baseDir,
    servers,
    toolsDir,
    skillsDir,
    callLimit: p.callLimit,
    timeoutMs: p.timeoutMs,
    maxOutputBytes: p.maxOutputBytes,
    maxSessionFileBytes: p.maxSessionFileBytes,
    keepVisible: p.keepVisible,
    manageScripts: p.manageScripts,
    rateUnlabeledTools: p.rateUnlabeledTools,
    approval: p.approval,
    store: p.store === undefined ? undefined : p.store === ":memory:" || isPostgresUrl(p.store) ? p.store : path.resolve(baseDir, p.store),
    storePool: p.storePool,
    logDir: path.resolve(baseDir, p.logDir ?? ".toolshell/logs"),
    server: p.server.tls ? { ...p.server, tls: { cert: path.resolve(baseDir, p.server.tls.cert), key: path.resolve(baseDir, p.server.tls.key) } } : p.server,
    triggers: p.triggers,
    notes: kept.length ? [`not toolshell keys, kept as written (another client's settings): ${kept.join(", ")}`] : [],
    raw: o,
  };
}

const SYNTAX_WORDS: Record<string, string> = {
  InvalidSymbol: "unexpected character",
  InvalidNumberFormat: "not a number",
  PropertyNameExpected: "expected a property name in double quotes (a trailing comma?)",
  ValueExpected: "expected a value",
  ColonExpected: 'expected ":"',
  CommaExpected: 'expected "," or a closing bracket',
  CloseBraceExpected: 'expected "}"',
  CloseBracketExpected: 'expected "]"',
  EndOfFileExpected: "expected the end of the file",
  InvalidCommentToken: "comments are not allowed in JSON",
  UnexpectedEndOfComment: "a comment is not closed",
  UnexpectedEndOfString: "a string is not closed",
  InvalidCharacter: "a control character inside a string",
  InvalidEscapeCharacter: "an unknown escape in a string",
  InvalidUnicode: "a bad \\u escape in a string",
};

/**
 * Reads a config file's JSON. VS Code's `mcp.json` may hold comments and trailing commas (as
 * VS Code allows); every other file is plain JSON.
 * @throws Error `<file>: cannot read: ENOENT`, or `<file>: not valid JSON at line L, column C: …`.
 */
export function readConfigJson(file: string): unknown {
  const full = path.resolve(file);
  let text: string;
  try {
    text = readFileSync(full, "utf8");
  } catch (err) {
    throw new Error(`${full}: cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { cause: err });
  }
  return parseConfigText(text, full);
}

/**
 * Parses the text of config file `file` as {@link readConfigJson} does (comments and trailing
 * commas only in a VS Code `mcp.json`): also for a file's next text before it is written.
 * @throws Error `<file>: not valid JSON at line L, column C: …`.
 */
export function parseConfigText(text: string, file: string): unknown {
  const full = path.resolve(file);
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const jsonc = path.basename(full) === "mcp.json";
  let jsonError: Error | undefined;
  if (!jsonc) {
    try {
      return JSON.parse(text);
    } catch (err) {
      jsonError = err as Error;
    }
  }
  // Loaded only here (a syntax error, or a VS Code file): every CLI start reads a config.
  const { parse: parseJsonc, printParseErrorCode } = createRequire(import.meta.url)("jsonc-parser") as typeof import("jsonc-parser");
  const errors: ParseError[] = [];
  const value: unknown = parseJsonc(text, errors, { disallowComments: !jsonc, allowTrailingComma: jsonc, allowEmptyContent: false });
  const first = errors[0];
  if (!first) {
    if (jsonError) throw new Error(`${full}: not valid JSON: ${jsonError.message}`, { cause: jsonError });
    return value;
  }
  const before = text.slice(0, first.offset).split("\n");
  const code = printParseErrorCode(first.error);
  throw new Error(`${full}: not valid JSON at line ${before.length}, column ${before[before.length - 1].length + 1}: ${SYNTAX_WORDS[code] ?? code}`);
}

/**
 * Reads and parses a config file.
 * @throws Error naming the file when it is missing or not JSON; ConfigError on a bad key.
 */
export function readConfigFile(file: string, env?: Readonly<Record<string, string | undefined>>): ToolshellConfig {
  const full = path.resolve(file);
  return parseConfig(readConfigJson(full), { baseDir: path.dirname(full), file: full, env });
}

/**
 * The configuration as `createToolShell` options give it: a file path, or an object whose
 * relative paths resolve against `baseDir` (default: the process's working directory).
 * @throws Error naming the file and key on a bad config.
 */
export function loadConfig(options: { config?: string | Record<string, unknown>; baseDir?: string; env?: Readonly<Record<string, string | undefined>> }): ToolshellConfig {
  const env = options.env ?? process.env;
  return typeof options.config === "string" ? readConfigFile(options.config, env) : parseConfig(options.config ?? {}, { baseDir: options.baseDir ?? process.cwd(), env });
}

