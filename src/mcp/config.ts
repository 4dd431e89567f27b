/**
 * MCP server configuration: the `mcpServers` object (Claude Desktop, Cursor, Claude Code
 * `.mcp.json`) and VS Code's `servers` object → a list of {@link ServerConfig}.
 *
 * Rule source: issue 2 "MCP servers" (formats, `${VAR}`, `load: "on_demand"`, timeouts; config
 * is read by the host only); MCP spec 2025-06-18 "Transports" (stdio, Streamable HTTP, the
 * HTTP+SSE fallback).
 */
import { accessSync, constants, statSync } from "node:fs";
import path from "node:path";
import { editDistance } from "../tool/index.js";
import { expandDeep } from "./expand.js";

/** Default time to start a server and list its tools, in milliseconds (issue 2: "defaults written in the README"). */
export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
/** Default time one `tools/call` may take, in milliseconds. */
export const DEFAULT_CALL_TIMEOUT_MS = 60_000;

/**
 * When a server connects: `eager` servers are connected when the host starts (the default);
 * `on_demand` servers are listed as `(not loaded)` and not spawned until a command or search
 * needs them (seed "Tools in Shell" → "Load tools on demand").
 */
export type LoadMode = "eager" | "on_demand";

/** What every server entry has, whatever its transport. */
interface BaseServerConfig {
  /** The server's name: its key in the config, used as `tools <name> …`. */
  name: string;
  /** Where the entry sits in the config file, e.g. `mcpServers.github` (for messages). */
  key: string;
  load: LoadMode;
  /** Milliseconds to start, initialise and list tools. */
  connectTimeoutMs: number;
  /** Milliseconds one tool call may take. */
  callTimeoutMs: number;
  /**
   * As written: `true`, `false`, or undefined when the entry says nothing (the approvals layer
   * reads undefined as "follow `approval.trustAnnotations`"). This folder does not interpret it.
   */
  trust?: boolean;
  /** A disabled server gets no source (see createMcpSources). */
  disabled: boolean;
  /** Every key of the entry this parser does not know, as written (after `${VAR}` expansion). */
  raw: Record<string, unknown>;
}

/** A server spawned as a child process speaking MCP over stdin/stdout. */
export interface StdioServerConfig extends BaseServerConfig {
  type: "stdio";
  /** Absolute path when the command has a slash or was found on PATH; else the bare name as written. */
  command: string;
  args: string[];
  /** Added to the SDK's safe default environment (HOME, PATH, SHELL, TERM, USER, LOGNAME). */
  env: Record<string, string>;
  /** Absolute working directory; defaults to the config file's folder. */
  cwd: string;
}

/** A server reached over HTTP: `http` = Streamable HTTP (falling back to HTTP+SSE), `sse` = HTTP+SSE only. */
export interface HttpServerConfig extends BaseServerConfig {
  type: "http" | "sse";
  url: string;
  headers: Record<string, string>;
}

/** One parsed server entry. */
export type ServerConfig = StdioServerConfig | HttpServerConfig;

/** Options of {@link parseServersConfig}. */
export interface ParseOptions {
  /** The config file's folder: relative `cwd` and `command` paths resolve against it. */
  baseDir: string;
  /** Variables for `${VAR}` expansion and PATH look-up; default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
}

const KNOWN_KEYS = new Set([
  "type", "transport", "command", "args", "env", "cwd", "url", "headers",
  "load", "connectTimeoutMs", "callTimeoutMs", "trust", "disabled",
]);
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * Parses the servers of a config file.
 *
 * Accepts an object with `mcpServers` (Claude Desktop, Cursor, Claude Code) and/or `servers`
 * (VS Code); other top-level keys are ignored, and a file with neither gives `[]`. Each entry is
 * stdio (`command`, `args`, `env`, `cwd`) or HTTP (`url`, `headers`), chosen by `type`
 * (`stdio` | `http` | `sse`; `streamable-http` / `streamableHttp` mean `http`) or, without it, by
 * which of `command` / `url` is present. `${VAR}`, `${VAR:-default}` and `${env:VAR}` expand in
 * every string of an entry. Per-entry `load` (`eager` default, or `on_demand`, `on-demand`),
 * `connectTimeoutMs` (default {@link DEFAULT_CONNECT_TIMEOUT_MS}), `callTimeoutMs` (default
 * {@link DEFAULT_CALL_TIMEOUT_MS}), `trust`, `disabled`; unknown keys are kept in `raw`.
 *
 * Paths: a relative `cwd` resolves against `baseDir` (and `cwd` defaults to `baseDir`); a command
 * containing a slash resolves against `baseDir`; a bare command name is looked up on the PATH of
 * `env` and kept as written when not found there (spawning then fails with a clear error).
 *
 * @returns the servers in file order, `mcpServers` first.
 * @throws Error whose message starts with the offending key, e.g.
 *   `mcpServers.github.headers.Authorization: environment variable GITHUB_TOKEN is not set`.
 */
export function parseServersConfig(json: unknown, options: ParseOptions): ServerConfig[] {
  const env = options.env ?? process.env;
  const baseDir = path.resolve(options.baseDir);
  if (!isObject(json)) throw new Error("config: expected a JSON object with `mcpServers` or `servers`");
  const out: ServerConfig[] = [];
  const seen = new Map<string, string>();
  for (const group of ["mcpServers", "servers"] as const) {
    const servers = json[group];
    if (servers === undefined) continue;
    if (!isObject(servers)) throw new Error(`${group}: expected an object of servers by name`);
    for (const [name, entry] of Object.entries(servers)) {
      const key = `${group}.${name}`;
      if (!NAME.test(name)) throw new Error(`${key}: a server name must be letters, digits, ".", "_" or "-", starting with a letter or digit`);
      const earlier = seen.get(name);
      if (earlier) throw new Error(`${key}: server "${name}" is also defined at ${earlier}`);
      seen.set(name, key);
      out.push(parseEntry(name, key, entry, baseDir, env));
    }
  }
  return out;
}

function parseEntry(
  name: string,
  key: string,
  entry: unknown,
  baseDir: string,
  env: Readonly<Record<string, string | undefined>>,
): ServerConfig {
  if (!isObject(entry)) throw new Error(`${key}: expected an object with "command" or "url"`);
  const e = expandDeep(entry, env, key) as Record<string, unknown>;
  const raw: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(e)) {
    if (KNOWN_KEYS.has(k)) continue;
    // Other clients' keys are kept; a near-miss of a key we know is a typo (`arg`, `tust`).
    const near = [...KNOWN_KEYS].find((known) => known !== k && nearMiss(k, known));
    if (near) throw new Error(`${key}.${k}: unknown key; did you mean "${near}"?`);
    raw[k] = v;
  }
  const base = {
    name,
    key,
    load: loadMode(e.load, `${key}.load`),
    connectTimeoutMs: positiveInt(e.connectTimeoutMs, `${key}.connectTimeoutMs`, DEFAULT_CONNECT_TIMEOUT_MS),
    callTimeoutMs: positiveInt(e.callTimeoutMs, `${key}.callTimeoutMs`, DEFAULT_CALL_TIMEOUT_MS),
    trust: e.trust === undefined ? undefined : bool(e.trust, `${key}.trust`),
    disabled: bool(e.disabled, `${key}.disabled`),
    raw,
  };
  const type = transportType(e, key);
  if (type === "stdio") {
    const command = str(e.command, `${key}.command`);
    if (command.trim() === "") throw new Error(`${key}.command: must not be empty`);
    if (e.url !== undefined) throw new Error(`${key}: has both "command" and "url"; keep one`);
    const envVars = stringMap(e.env, `${key}.env`);
    const cwd = e.cwd === undefined ? baseDir : path.resolve(baseDir, str(e.cwd, `${key}.cwd`));
    return {
      ...base,
      type,
      command: resolveCommand(command, baseDir, envVars.PATH ?? env.PATH),
      args: stringList(e.args, `${key}.args`),
      env: envVars,
      cwd,
    };
  }
  if (e.command !== undefined) throw new Error(`${key}: has both "command" and "url"; keep one`);
  const url = str(e.url, `${key}.url`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`${key}.url: "${url}" is not a URL`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new Error(`${key}.url: must be http:// or https://`);
  return { ...base, type, url: parsed.href, headers: stringMap(e.headers, `${key}.headers`) };
}

function transportType(e: Record<string, unknown>, key: string): ServerConfig["type"] {
  const given = e.type ?? e.transport;
  const where = e.type !== undefined ? `${key}.type` : `${key}.transport`;
  if (given === undefined) {
    if (e.command !== undefined) return "stdio";
    if (e.url !== undefined) return "http";
    throw new Error(`${key}: expected "command" (stdio) or "url" (HTTP)`);
  }
  switch (given) {
    case "stdio":
      return "stdio";
    case "http":
    case "streamable-http":
    case "streamableHttp":
    case "streamable_http":
      return "http";
    case "sse":
      return "sse";
    default:
      throw new Error(`${where}: "${String(given)}" is not one of "stdio", "http", "sse"`);
  }
}

function resolveCommand(command: string, baseDir: string, pathVar: string | undefined): string {
  if (command.includes("/") || command.includes("\\")) return path.resolve(baseDir, command);
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

function loadMode(value: unknown, where: string): LoadMode {
  if (value === undefined || value === "eager") return "eager";
  if (value === "on_demand" || value === "on-demand") return "on_demand";
  throw new Error(`${where}: "${String(value)}" is not "eager" or "on_demand"`);
}

function positiveInt(value: unknown, where: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value === "number" && Number.isInteger(value) && value > 0) return value;
  throw new Error(`${where}: expected a positive whole number of milliseconds`);
}

function bool(value: unknown, where: string): boolean {
  if (value === undefined) return false;
  if (typeof value === "boolean") return value;
  throw new Error(`${where}: expected true or false`);
}

function str(value: unknown, where: string): string {
  if (typeof value === "string") return value;
  throw new Error(`${where}: expected a string`);
}

function stringList(value: unknown, where: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new Error(`${where}: expected an array of strings`);
  return value.map((item, i) => {
    if (typeof item === "string") return item;
    if (typeof item === "number" || typeof item === "boolean") return String(item);
    throw new Error(`${where}[${i}]: expected a string`);
  });
}

function stringMap(value: unknown, where: string): Record<string, string> {
  if (value === undefined) return {};
  if (!isObject(value)) throw new Error(`${where}: expected an object of strings`);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) {
    if (typeof v === "string") out[k] = v;
    else if (typeof v === "number" || typeof v === "boolean") out[k] = String(v);
    else throw new Error(`${where}.${k}: expected a string`);
  }
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** True when `a` is one edit from `b` (case folded; two for keys longer than four characters). */
function nearMiss(a: string, b: string): boolean {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  if (x === y) return true;
  if (Math.abs(x.length - y.length) > 2 || Math.min(x.length, y.length) < 3) return false;
  return editDistance(x, y) <= (y.length <= 4 ? 1 : 2);
}
