/**
 * The HTTP API's settings as `toolshell serve` uses them (the config's `server` key plus tokens
 * from the environment), and a trigger posted to the API, checked by the config's own trigger
 * schema.
 *
 * Rule source: docs/sessions.md (bearer tokens from the config, `TOOLSHELL_API_TOKENS` and
 * `TOOLSHELL_API_TOKEN`; triggers).
 */
import { ConfigError, parseWith } from "./messages.js";
import { defaultRole, MIN_TOKEN_LENGTH, triggerSchema, type HttpApiConfig, type TriggerSpec } from "./schema.js";
import type { ToolshellConfig } from "./load.js";

/**
 * The config's `server` settings with the tokens of the environment added: `TOOLSHELL_API_TOKENS`
 * (comma-separated) and `TOOLSHELL_API_TOKEN`, and every token's role settled (a token without
 * one: `operator` when it is the only token, else `agent`).
 * @throws ConfigError naming the variable when one of its tokens is shorter than
 *   {@link MIN_TOKEN_LENGTH} characters (the config's own tokens were checked at load).
 */
export function parseServerConfig(config: Pick<ToolshellConfig, "server">, env: Readonly<Record<string, string | undefined>> = process.env): HttpApiConfig {
  const tokens = [...config.server.tokens];
  const names = [...(config.server.tokenNames ?? [])];
  const fromEnv: Array<[string, string[]]> = [
    ["TOOLSHELL_API_TOKENS", (env.TOOLSHELL_API_TOKENS ?? "").split(",")],
    ["TOOLSHELL_API_TOKEN", [env.TOOLSHELL_API_TOKEN ?? ""]],
  ];
  for (const [name, list] of fromEnv) {
    for (const raw of list) {
      const t = raw.trim();
      if (!t) continue;
      if (t.length < MIN_TOKEN_LENGTH) throw new ConfigError([{ path: name, message: `a token is shorter than ${MIN_TOKEN_LENGTH} characters` }], "environment");
      if (tokens.includes(t)) continue;
      tokens.push(t);
      names.push(`token-${tokens.length}`);
    }
  }
  // A token without a role: operator when it is the only one, else agent (tokens-schema.ts defaultRole).
  const roles = tokens.map((_, i) => config.server.tokenRoles?.[i] ?? defaultRole(tokens.length));
  return { ...config.server, tokens, tokenNames: tokens.map((_, i) => names[i] ?? `token-${i + 1}`), tokenRoles: roles };
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
