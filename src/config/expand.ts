/**
 * Variables in config strings: `${VAR}`, `${VAR:-default}` and `${env:VAR}` from the environment
 * (the syntax of Claude Code's `.mcp.json` and VS Code's `mcp.json`), `${TOOLSHELL_CONFIG_DIR}`
 * (the config file's folder), and VS Code's `${workspaceFolder}` and `${userHome}`. VS Code's
 * `${input:…}` asks the person in the editor; toolshell cannot, so it is an error naming it.
 *
 * See README → Configuration; VS Code's "Variables reference".
 */
import os from "node:os";
import path from "node:path";
import { ConfigError } from "./messages.js";

/** What variables expand to. */
export interface ExpandContext {
  /** The environment (`${VAR}`, `${env:VAR}`). */
  env: Readonly<Record<string, string | undefined>>;
  /** `${TOOLSHELL_CONFIG_DIR}`: the config file's folder (absolute). */
  configDir: string;
  /** `${workspaceFolder}`: see {@link workspaceFolderOf}. */
  workspaceFolder: string;
  /** `${userHome}`: the user's home folder (default `os.homedir()`). */
  userHome?: string;
  /**
   * Told each value an environment variable expanded to, with the key it was written in: such
   * values are redacted as secrets (call/redact/parts.ts `configSecrets`).
   */
  onValue?: (where: string, name: string, value: string) => void;
}

/**
 * The folder `${workspaceFolder}` names for a config in `configDir`: the folder holding `.vscode/`
 * when the config is VS Code's `.vscode/mcp.json`, else the config's own folder.
 */
export function workspaceFolderOf(configDir: string, file?: string): string {
  const dir = path.resolve(configDir);
  return file && path.basename(dir) === ".vscode" && path.basename(file) === "mcp.json" ? path.dirname(dir) : dir;
}

const PATTERN = /\$\{([^}]*)\}/g;

/**
 * Expands every variable in `text`. `${VAR:-default}` uses the default when VAR is unset or
 * empty (as the shell does). `TOOLSHELL_CONFIG_DIR` is always the config's folder, whatever the
 * environment says.
 * @param where names the config key for error messages, e.g. `mcpServers.github.env.TOKEN`.
 * @throws ConfigError `<where>: environment variable VAR is not set` when a variable without a
 *   default is missing; `<where>: "${input:id}" is a VS Code input prompt …` for `${input:…}`;
 *   `<where>: "${...}" is not a variable reference` for anything else in braces.
 */
export function expandVars(text: string, ctx: ExpandContext, where: string): string {
  return text.replace(PATTERN, (_whole, inner: string) => {
    if (inner === "workspaceFolder") return ctx.workspaceFolder;
    if (inner === "userHome") return ctx.userHome ?? os.homedir();
    if (inner.startsWith("input:")) {
      throw new ConfigError([{ path: where, message: `"\${${inner}}" is a VS Code input prompt, which toolshell cannot ask: put the value in an environment variable and write \${NAME} instead` }]);
    }
    const body = inner.startsWith("env:") ? inner.slice(4) : inner;
    const match = /^([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?$/s.exec(body);
    if (!match) throw new ConfigError([{ path: where, message: `"\${${inner}}" is not a variable reference (use \${NAME} or \${NAME:-default})` }]);
    const [, name, fallback] = match;
    const value = name === "TOOLSHELL_CONFIG_DIR" ? ctx.configDir : ctx.env[name];
    if (fallback !== undefined && (value === undefined || value === "")) return fallback;
    if (value === undefined) throw new ConfigError([{ path: where, message: `environment variable ${name} is not set` }]);
    if (name !== "TOOLSHELL_CONFIG_DIR") ctx.onValue?.(where, name, value);
    return value;
  });
}

/**
 * Expands variables in every string of a JSON value (objects and arrays walked, keys kept).
 * @throws ConfigError from {@link expandVars}, naming the key path below `where`.
 */
export function expandDeep(value: unknown, ctx: ExpandContext, where: string): unknown {
  if (typeof value === "string") return expandVars(value, ctx, where);
  if (Array.isArray(value)) return value.map((item, i) => expandDeep(item, ctx, `${where}[${i}]`));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = expandDeep(item, ctx, `${where}.${key}`);
    return out;
  }
  return value;
}
