/**
 * The config keys this folder reads from `toolshell.config.json`:
 *
 * ```json
 * {
 *   "store": ".toolshell/state.db",
 *   "server": {
 *     "host": "127.0.0.1", "port": 8787,
 *     "tokens": ["${TOOLSHELL_API_TOKEN}"],
 *     "maxBodyBytes": 1048576,
 *     "wakeAgent": { "url": "https://agent.example/wake", "headers": { "authorization": "Bearer ${WAKE_TOKEN}" } }
 *   },
 *   "triggers": [
 *     { "name": "nightly", "schedule": "0 3 * * *", "timezone": "Europe/Berlin", "script": "triage-prs",
 *       "input": { "repo": "acme/api" }, "wake_agent_on_failure": true },
 *     { "name": "on-push", "webhook": true, "script": "label-push", "input": { "ref": "{{payload.ref}}" } }
 *   ]
 * }
 * ```
 * Tokens also come from the environment: `TOOLSHELL_API_TOKENS` (comma-separated) and
 * `TOOLSHELL_API_TOKEN`. `${VAR}` expands from the environment as in `mcpServers`.
 *
 * Rule source: issue 5 → HTTP API ("bearer-token auth (tokens from config/env …)", "request size
 * limits"), Triggers (`wake_agent_on_failure`, schedules with a time zone).
 */
import { Cron } from "croner";
import { expandVars } from "../mcp/index.js";
import type { ToolshellConfig } from "../runtime/index.js";
import type { TriggerRecord } from "../store/index.js";

/** Default port of `toolshell serve`. */
export const DEFAULT_PORT = 8787;
/** Default host: loopback only. */
export const DEFAULT_HOST = "127.0.0.1";
/** Default largest request body, in bytes (1 MiB). */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
/** Shortest accepted API token, in characters. */
export const MIN_TOKEN_LENGTH = 16;

/** Where to send a failed or stopped trigger run's report. */
export interface WakeAgentConfig {
  url: string;
  headers: Record<string, string>;
}

/** The `server` key, parsed. */
export interface ServerConfig {
  host: string;
  port: number;
  tokens: string[];
  maxBodyBytes: number;
  wakeAgent?: WakeAgentConfig;
}

/** A trigger as written in config (or posted to the API): the stored record's own fields. */
export type TriggerSpec = Pick<TriggerRecord, "name" | "kind" | "cron" | "timezone" | "script" | "input" | "enabled" | "wake_agent_on_failure"> & {
  agent_id?: string;
};

/** `${VAR}` expansion in every string of a JSON value (see mcp's expandVars). @throws Error naming the key. */
function expandDeep(value: unknown, env: Readonly<Record<string, string | undefined>>, where: string): unknown {
  if (typeof value === "string") return expandVars(value, env, where);
  if (Array.isArray(value)) return value.map((v, i) => expandDeep(v, env, `${where}[${i}]`));
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = expandDeep(v, env, `${where}.${k}`);
    return out;
  }
  return value;
}

function fail(config: Pick<ToolshellConfig, "file">, key: string, message: string): never {
  throw new Error(`${config.file ?? "config"}: ${key}: ${message}`);
}

/**
 * Parses `server` from a config (tokens from the environment added).
 * @throws Error naming the file and key on a bad value, an unknown key, or a token shorter than
 *         {@link MIN_TOKEN_LENGTH} characters.
 */
export function parseServerConfig(config: Pick<ToolshellConfig, "raw" | "file">, env: Readonly<Record<string, string | undefined>> = process.env): ServerConfig {
  const raw = config.raw.server ?? {};
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) fail(config, "server", "expected an object");
  const o = expandDeep(raw, env, "server") as Record<string, unknown>;
  const known = new Set(["host", "port", "tokens", "maxBodyBytes", "wakeAgent"]);
  for (const k of Object.keys(o)) if (!known.has(k)) fail(config, `server.${k}`, `unknown key (known: ${[...known].join(", ")})`);
  const host = o.host ?? DEFAULT_HOST;
  if (typeof host !== "string" || !host) fail(config, "server.host", "expected a host name or address");
  const port = o.port ?? DEFAULT_PORT;
  if (typeof port !== "number" || !Number.isInteger(port) || port < 0 || port > 65535) fail(config, "server.port", "expected a port number from 0 to 65535");
  const maxBodyBytes = o.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (typeof maxBodyBytes !== "number" || !Number.isInteger(maxBodyBytes) || maxBodyBytes < 1024 || maxBodyBytes > 512 * 1024 * 1024) fail(config, "server.maxBodyBytes", "expected a whole number of bytes from 1024 to 536870912");
  const tokens: string[] = [];
  if (o.tokens !== undefined) {
    if (!Array.isArray(o.tokens) || o.tokens.some((t) => typeof t !== "string")) fail(config, "server.tokens", "expected an array of strings");
    tokens.push(...(o.tokens as string[]).filter(Boolean));
  }
  for (const t of (env.TOOLSHELL_API_TOKENS ?? "").split(",")) if (t.trim()) tokens.push(t.trim());
  if (env.TOOLSHELL_API_TOKEN?.trim()) tokens.push(env.TOOLSHELL_API_TOKEN.trim());
  for (const t of tokens) if (t.length < MIN_TOKEN_LENGTH) fail(config, "server.tokens", `a token is shorter than ${MIN_TOKEN_LENGTH} characters`);
  let wakeAgent: WakeAgentConfig | undefined;
  if (o.wakeAgent !== undefined) {
    const w = o.wakeAgent as Record<string, unknown>;
    if (typeof w !== "object" || w === null || typeof w.url !== "string" || !/^https?:\/\//.test(w.url)) fail(config, "server.wakeAgent", 'expected { "url": "http(s)://…", "headers"?: {…} }');
    const headers = (w.headers ?? {}) as Record<string, unknown>;
    if (typeof headers !== "object" || headers === null || Object.values(headers).some((v) => typeof v !== "string")) fail(config, "server.wakeAgent.headers", "expected an object of strings");
    wakeAgent = { url: w.url, headers: headers as Record<string, string> };
  }
  return { host, port, tokens: [...new Set(tokens)], maxBodyBytes, ...(wakeAgent ? { wakeAgent } : {}) };
}

/**
 * Checks a trigger spec (config entry or API body) and normalises it: `schedule` (a cron
 * expression) or `webhook: true` (or `kind`), `script`, optional `input` (object), `timezone`
 * (IANA, default UTC), `enabled` (default true), `wake_agent_on_failure` (default false).
 * @throws Error `<where>: …` on a bad field; the cron expression and time zone are checked by
 *         parsing them.
 */
export function parseTriggerSpec(x: unknown, where: string): TriggerSpec {
  if (typeof x !== "object" || x === null || Array.isArray(x)) throw new Error(`${where}: expected an object`);
  const o = x as Record<string, unknown>;
  const known = new Set(["name", "agent_id", "kind", "schedule", "cron", "timezone", "webhook", "script", "input", "enabled", "wake_agent_on_failure"]);
  for (const k of Object.keys(o)) if (!known.has(k)) throw new Error(`${where}.${k}: unknown key (known: ${[...known].join(", ")})`);
  if (typeof o.name !== "string" || !/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(o.name)) throw new Error(`${where}.name: expected 1-64 letters, digits, ".", "_" or "-"`);
  const cron = (o.schedule ?? o.cron) as unknown;
  let kind = o.kind as string | undefined;
  if (kind === undefined) kind = o.webhook === true ? "webhook" : cron !== undefined ? "schedule" : undefined;
  if (kind !== "schedule" && kind !== "webhook") throw new Error(`${where}: say "schedule": "<cron>" or "webhook": true (or "kind")`);
  const timezone = o.timezone ?? "UTC";
  if (typeof timezone !== "string") throw new Error(`${where}.timezone: expected an IANA time zone such as "Europe/Berlin"`);
  if (kind === "schedule") {
    if (typeof cron !== "string" || !cron.trim()) throw new Error(`${where}.schedule: expected a cron expression such as "0 3 * * *"`);
    try {
      const job = new Cron(cron, { timezone, paused: true });
      // An unknown time zone is refused only when a run time is computed.
      job.nextRun();
      job.stop();
    } catch (err) {
      throw new Error(`${where}.schedule: ${(err as Error).message}`, { cause: err });
    }
  } else if (cron !== undefined) throw new Error(`${where}: a webhook trigger has no schedule`);
  if (typeof o.script !== "string" || !o.script) throw new Error(`${where}.script: expected the name of a saved script`);
  // The name goes into the run's command line: only a plain script name is accepted.
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/.test(o.script)) throw new Error(`${where}.script: ${JSON.stringify(o.script)} is not a script name (letters, digits, - and _)`);
  const input = o.input ?? {};
  if (typeof input !== "object" || input === null || Array.isArray(input)) throw new Error(`${where}.input: expected an object (strings may be templates such as "{{payload.ref}}")`);
  for (const k of ["enabled", "wake_agent_on_failure"] as const) if (o[k] !== undefined && typeof o[k] !== "boolean") throw new Error(`${where}.${k}: expected true or false`);
  if (o.agent_id !== undefined && (typeof o.agent_id !== "string" || !o.agent_id)) throw new Error(`${where}.agent_id: expected an agent id`);
  return {
    name: o.name,
    ...(typeof o.agent_id === "string" ? { agent_id: o.agent_id } : {}),
    kind,
    ...(kind === "schedule" ? { cron: (cron as string).trim(), timezone } : {}),
    script: o.script.toLowerCase().replace(/_/g, "-"),
    input: input as Record<string, unknown>,
    enabled: o.enabled !== false,
    wake_agent_on_failure: o.wake_agent_on_failure === true,
  };
}

/**
 * The `triggers` key of a config: an array of {@link parseTriggerSpec} entries with unique names.
 * @throws Error naming the file and entry on a bad one.
 */
export function parseTriggersConfig(config: Pick<ToolshellConfig, "raw" | "file">, env: Readonly<Record<string, string | undefined>> = process.env): TriggerSpec[] {
  const raw = config.raw.triggers;
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) fail(config, "triggers", "expected an array");
  const out: TriggerSpec[] = [];
  raw.forEach((t, i) => {
    try {
      out.push(parseTriggerSpec(expandDeep(t, env, `triggers[${i}]`), `triggers[${i}]`));
    } catch (err) {
      fail(config, `triggers[${i}]`, (err as Error).message);
    }
  });
  const seen = new Set<string>();
  for (const t of out) {
    const key = `${t.agent_id ?? ""}/${t.name}`;
    if (seen.has(key)) fail(config, "triggers", `two triggers are named ${t.name}`);
    seen.add(key);
  }
  return out;
}
