/**
 * The HTTP API's settings as `toolshell serve` uses them (the config's `server` key plus tokens
 * from the environment), and a trigger posted to the API, checked by the config's own trigger
 * schema.
 *
 * See docs/sessions.md → HTTP API, Config keys.
 */
import { ConfigError, parseWith } from "./messages.js";
import { defaultRole, MIN_TOKEN_LENGTH, triggerSchema, type HttpApiConfig, type TokenRole, type TriggerSpec } from "./schema.js";
import { tokensSchema } from "./tokens-schema.js";
import type { ToolshellConfig } from "./load.js";

/**
 * The config's `server` settings with the tokens of the environment added: `TOOLSHELL_API_TOKENS`
 * (comma-separated) and `TOOLSHELL_API_TOKEN`, and every token's role settled (a token without
 * one: `operator` when it is the only token, else `agent`).
 * @throws ConfigError naming the variable when one of its tokens breaks the config's rule (too
 *   short, a bad name or role; the config's own tokens were checked at load).
 */
export function parseServerConfig(config: Pick<ToolshellConfig, "server">, env: Readonly<Record<string, string | undefined>> = process.env): HttpApiConfig {
  const tokens = [...config.server.tokens];
  const names = [...(config.server.tokenNames ?? [])];
  const written: Array<TokenRole | undefined> = [...(config.server.tokenRoles ?? [])];
  for (const name of ["TOOLSHELL_API_TOKENS", "TOOLSHELL_API_TOKEN"] as const) {
    for (const entry of envTokens(name, env[name])) {
      const t = typeof entry === "string" ? entry : entry.token;
      if (tokens.includes(t)) continue;
      tokens.push(t);
      names.push(typeof entry === "string" ? `token-${tokens.length}` : entry.name);
      written[tokens.length - 1] = typeof entry === "string" ? undefined : entry.role;
    }
  }
  // A token without a role: operator when it is the only one, else agent (tokens-schema.ts defaultRole).
  const roles = tokens.map((_, i) => written[i] ?? defaultRole(tokens.length));
  return { ...config.server, tokens, tokenNames: tokens.map((_, i) => names[i] ?? `token-${i + 1}`), tokenRoles: roles };
}

/**
 * The tokens an environment variable gives, by the config's one rule (`tokensSchema`): a JSON
 * array as `server.tokens` is written (`[{"name","token","role"}]`, so a token from the
 * environment carries a name and a role), else comma-separated plain tokens.
 * @throws ConfigError naming the variable when an entry breaks the rule.
 */
function envTokens(name: string, raw: string | undefined): Array<string | { name: string; token: string; role?: TokenRole }> {
  const text = (raw ?? "").trim();
  if (!text) return [];
  if (!text.startsWith("[")) {
    const plain = text.split(",").map((t) => t.trim()).filter(Boolean);
    if (plain.some((t) => t.length < MIN_TOKEN_LENGTH)) throw new ConfigError([{ path: name, message: `a token is shorter than ${MIN_TOKEN_LENGTH} characters` }], "environment");
    return plain;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ConfigError([{ path: name, message: `not JSON: ${(err as Error).message}` }], "environment");
  }
  return parseWith(tokensSchema, value, name, "environment");
}

/**
 * Checks a trigger posted to the HTTP API with the rules of the config's `triggers` entries and
 * normalises it: `schedule` (a cron expression, checked by parsing it with its `timezone`, IANA,
 * default UTC) or `webhook: true` (or `kind`), `script`, optional `input` (object), `enabled`
 * (default true), `wake_agent_on_failure` (default false).
 * @throws ConfigError `<where>.<key>: …` on a bad field.
 */
export function parseTriggerSpec(x: unknown, where: string): TriggerSpec {
  return parseWith(triggerSchema, x, where);
}
