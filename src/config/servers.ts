/**
 * MCP server entries: one entry (`parseServerEntry`, also for servers added at run time) or the
 * `mcpServers` / `servers` objects of a config (`parseServersConfig`), checked by the schema's
 * {@link serverEntrySchema} and resolved against the config's folder.
 *
 * See README → Configuration; MCP spec 2025-11-25 "Transports".
 */
import { accessSync, constants, existsSync, statSync } from "node:fs";
import path from "node:path";
import * as z from "zod";
import { expandDeep, workspaceFolderOf, type ExpandContext } from "./expand.js";
import { ConfigError, keyPath, parseWith, sortUnknownKeys, type ConfigIssue } from "./messages.js";
import { checkDuplicateNames, SERVER_ENTRY_KEYS, SERVER_NAME, serverEntrySchema, serverNameProblem, serverGroupsShape, type ServerEntry } from "./schema.js";

type StdioEntry = Extract<ServerEntry, { type: "stdio" }>;
type HttpEntry = Extract<ServerEntry, { type: "http" | "sse" }>;
/** What every server has, whatever its transport: its name and where it sits in the file. */
interface Placed {
  /** The server's name: its key in the config, used as `tools <name> …`. */
  name: string;
  /** Where the entry sits in the config file, e.g. `mcpServers.github` (for messages). */
  key: string;
  /**
   * The values environment variables (`${VAR}`) expanded to anywhere in the entry: redacted from
   * every output as secrets (docs/security.md "Secrets"); well-known non-secret variables
   * (`HOME`, `PATH`, …) and values naming an existing path are left out.
   */
  expanded?: string[];
}
/** A server spawned as a child process speaking MCP over stdin/stdout; `command` absolute when it has a slash or was found on PATH, `cwd` absolute. */
export type StdioServerConfig = Omit<StdioEntry, "cwd"> & Placed & { cwd: string };
/** A server reached over HTTP: `http` = Streamable HTTP (falling back to HTTP+SSE), `sse` = HTTP+SSE only. */
export type HttpServerConfig = HttpEntry & Placed;
/** One parsed server entry. */
export type ServerConfig = StdioServerConfig | HttpServerConfig;

/** Options of {@link parseServerEntry} and {@link parseServersConfig}. */
export interface ServerParseOptions {
  /** The config file's folder: relative `cwd` and `command` paths resolve against it. */
  baseDir: string;
  /** Variables for `${VAR}` expansion and PATH look-up; default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** The config file, when there is one (for `${workspaceFolder}`). */
  file?: string;
}

/** The variables of a config in `baseDir`. */
export function expandContext(options: ServerParseOptions): ExpandContext & { expanded: Expanded } {
  const baseDir = path.resolve(options.baseDir);
  const expanded: Expanded = [];
  const onValue = (where: string, name: string, value: string): void => {
    if (!NOT_SECRET.test(name) && !(path.isAbsolute(value) && existsSync(value))) expanded.push({ where, value });
  };
  return { env: options.env ?? process.env, configDir: baseDir, workspaceFolder: workspaceFolderOf(baseDir, options.file), onValue, expanded };
}

/** The values variables expanded to, with the key each was written in. */
type Expanded = { where: string; value: string }[];

/** The values expanded inside the entry at `key` (`mcpServers.github.args[0]` is inside `mcpServers.github`). */
function expandedIn(expanded: Expanded | undefined, key: string): Set<string> {
  return new Set((expanded ?? []).filter((e) => e.where === key || e.where.startsWith(`${key}.`) || e.where.startsWith(`${key}[`)).map((e) => e.value));
}

/** Environment variables whose values are not secrets (paths, names of the user and the machine). */
const NOT_SECRET = /^(HOME|PATH|PWD|OLDPWD|USER|USERNAME|LOGNAME|SHELL|TERM|LANG|LC_[A-Z]+|TMPDIR|TEMP|TMP|HOSTNAME|XDG_[A-Z_]+|NODE_ENV|PORT|HOST)$/;

/**
 * Expands an entry's variables and sorts its unknown keys (a near miss such as `arg` is an
 * issue; other clients' keys are left for `raw`).
 * @returns the expanded entry and the issues found (expansion stops at the first bad variable).
 */
export function prepareEntry(entry: unknown, key: string, ctx: ExpandContext): { value: unknown; issues: ConfigIssue[] } {
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) return { value: entry, issues: [] };
  const { issues } = sortUnknownKeys(entry as Record<string, unknown>, SERVER_ENTRY_KEYS, key);
  try {
    return { value: expandDeep(entry, ctx, key), issues };
  } catch (err) {
    if (err instanceof ConfigError) return { value: entry, issues: [...issues, ...err.issues] };
    throw err;
  }
}

/**
 * Resolves a checked entry's paths: `cwd` against `baseDir` (default `baseDir`), then a `command`
 * with a slash against `cwd` (as a process started in `cwd` would find it), a bare one on PATH.
 */
export function resolveEntry(name: string, key: string, entry: ServerEntry, baseDir: string, env: Readonly<Record<string, string | undefined>>, expanded?: Set<string>): ServerConfig {
  const secrets = expanded?.size ? { expanded: [...expanded] } : {};
  if (entry.type !== "stdio") return { name, key, ...entry, ...secrets };
  const cwd = entry.cwd === undefined ? baseDir : path.resolve(baseDir, entry.cwd);
  return { name, key, ...entry, cwd, command: resolveCommand(entry.command, cwd, entry.env.PATH ?? env.PATH), ...secrets };
}

/**
 * Checks and resolves one server entry with the rules of the config file: `${VAR}` expansion,
 * the schema, near-miss keys, paths. For servers added at run time.
 * @param key where the entry is reported as being (default `mcpServers.<name>`).
 * @throws ConfigError naming the key (`mcpServers.github.url: "x" is not a URL`).
 */
export function parseServerEntry(name: string, entry: unknown, options: ServerParseOptions & { key?: string }): ServerConfig {
  const key = options.key ?? keyPath([name], "mcpServers");
  const problem = serverNameProblem(name);
  if (problem) throw new ConfigError([{ path: key, message: problem }], options.file);
  const ctx = expandContext(options);
  const { value, issues } = prepareEntry(entry, key, ctx);
  if (issues.length) throw new ConfigError(issues, options.file);
  const parsed = parseWith(serverEntrySchema, value, key, options.file);
  return resolveEntry(name, key, parsed, ctx.configDir, ctx.env, expandedIn(ctx.expanded, key));
}

const serverGroupsSchema = z.looseObject(serverGroupsShape).superRefine(checkDuplicateNames);

/**
 * Expands every entry of `mcpServers` and `servers` in a copy of `o` (other keys left as they are).
 * @returns the copy and the issues found.
 */
export function prepareServerGroups(o: Record<string, unknown>, ctx: ExpandContext): { value: Record<string, unknown>; issues: ConfigIssue[] } {
  const value = { ...o };
  const issues: ConfigIssue[] = [];
  for (const group of ["mcpServers", "servers"] as const) {
    const servers = o[group];
    if (typeof servers !== "object" || servers === null || Array.isArray(servers)) continue;
    const out: Record<string, unknown> = {};
    for (const [name, entry] of Object.entries(servers)) {
      // A badly formed name is the schema's to report (its key regex); a reserved one is found here,
      // and `__proto__`, which `out[name]` would swallow before the schema sees it.
      const problem = SERVER_NAME.test(name) || name === "__proto__" ? serverNameProblem(name) : undefined;
      if (problem) issues.push({ path: keyPath([name], group), message: problem });
      const prepared = prepareEntry(entry, keyPath([name], group), ctx);
      out[name] = prepared.value;
      issues.push(...prepared.issues);
    }
    value[group] = out;
  }
  return { value, issues };
}

/** The parsed servers of both groups, `mcpServers` first, in file order. */
export function resolveServerGroups(parsed: { mcpServers?: Record<string, ServerEntry>; servers?: Record<string, ServerEntry> }, ctx: ExpandContext & { expanded?: Expanded }): ServerConfig[] {
  const out: ServerConfig[] = [];
  for (const group of ["mcpServers", "servers"] as const) {
    for (const [name, entry] of Object.entries(parsed[group] ?? {})) {
      const key = keyPath([name], group);
      out.push(resolveEntry(name, key, entry, ctx.configDir, ctx.env, expandedIn(ctx.expanded, key)));
    }
  }
  return out;
}

/**
 * The servers of a config object: `mcpServers` (Claude Desktop, Cursor, Claude Code) and/or
 * `servers` (VS Code); other top-level keys are ignored, and an object with neither gives `[]`.
 * Each entry as {@link parseServerEntry}. A bare command name is looked up on the PATH of `env`
 * and kept as written when not found there (spawning then fails with a clear error).
 * @returns the servers in file order, `mcpServers` first.
 * @throws ConfigError whose lines start with the offending key, e.g.
 *   `mcpServers.github.headers.Authorization: environment variable GITHUB_TOKEN is not set`.
 */
export function parseServersConfig(json: unknown, options: ServerParseOptions): ServerConfig[] {
  if (typeof json !== "object" || json === null || Array.isArray(json)) throw new ConfigError([{ path: "", message: "expected a JSON object with `mcpServers` or `servers`" }], options.file ?? "config");
  const ctx = expandContext(options);
  const { value, issues } = prepareServerGroups(json as Record<string, unknown>, ctx);
  if (issues.length) throw new ConfigError(issues, options.file);
  return resolveServerGroups(parseWith(serverGroupsSchema, value, "", options.file), ctx);
}

function resolveCommand(command: string, cwd: string, pathVar: string | undefined): string {
  if (command.includes("/") || command.includes("\\")) return path.resolve(cwd, command);
  for (const dir of (pathVar ?? "").split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.resolve(dir, command);
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {}
  }
  return command;
}
