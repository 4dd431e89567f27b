/**
 * `${VAR}` expansion in MCP server configuration strings.
 *
 * Rule source: issue 2 "MCP servers" ("`${VAR}` in strings expands from the environment"); the
 * syntax follows Claude Code's `.mcp.json` (`${VAR}`, `${VAR:-default}`) and VS Code's
 * `${env:VAR}`.
 */

const PATTERN = /\$\{([^}]*)\}/g;

/**
 * Expands every `${VAR}`, `${VAR:-default}` and `${env:VAR}` in `text` from `env`.
 * `${VAR:-default}` uses the default when VAR is unset or empty (as the shell does).
 * @param where names the config key for error messages, e.g. `mcpServers.github.env.TOKEN`.
 * @throws Error `<where>: environment variable VAR is not set` when a variable without a default
 *   is missing, and `<where>: "${...}" is not a variable reference` for anything else in braces.
 */
export function expandVars(text: string, env: Readonly<Record<string, string | undefined>>, where: string): string {
  return text.replace(PATTERN, (_whole, inner: string) => {
    const body = inner.startsWith("env:") ? inner.slice(4) : inner;
    const match = /^([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?$/s.exec(body);
    if (!match) throw new Error(`${where}: "\${${inner}}" is not a variable reference (use \${NAME} or \${NAME:-default})`);
    const [, name, fallback] = match;
    const value = env[name];
    if (fallback !== undefined) return value === undefined || value === "" ? fallback : value;
    if (value === undefined) throw new Error(`${where}: environment variable ${name} is not set`);
    return value;
  });
}

/**
 * Expands variables in every string of a JSON value (objects and arrays walked, keys kept).
 * @throws Error from {@link expandVars}, naming the key path below `where`.
 */
export function expandDeep(value: unknown, env: Readonly<Record<string, string | undefined>>, where: string): unknown {
  if (typeof value === "string") return expandVars(value, env, where);
  if (Array.isArray(value)) return value.map((item, i) => expandDeep(item, env, `${where}[${i}]`));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = expandDeep(item, env, `${where}.${key}`);
    return out;
  }
  return value;
}
