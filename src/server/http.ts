/**
 * Request helpers of the HTTP API: the error shape, bearer tokens (compared in constant time),
 * JSON bodies, ids, and the conversion of a tool error into an API error.
 *
 * See docs/sessions.md → HTTP API.
 */
import type { Context } from "hono";
import { ToolCallError } from "../tool/index.js";
import { CHANGES_SESSION } from "./changes.js";
import type { Actor } from "./changes.js";
import type { Logger } from "./log.js";
import { defaultRole, unknownKeyMessage, type TokenRole } from "../config/index.js";
import { TokenGuard, tokenIndex, tokenMatches } from "./token-guard.js";
import { refuseDeepInput, refuseUnsafeParts } from "../shell/index.js";

export { tokenIndex, tokenMatches };

/** An API error: HTTP status, a stable code, a message. */
export class ApiError extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 405 | 409 | 413 | 415 | 422 | 429 | 500 | 503,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Options of {@link createApp}. */
export interface AppOptions {
  /** Accepted bearer tokens. With none, every authenticated route answers 401. */
  tokens: string[];
  /** Who each token is (same order; default `token-N`): recorded with what it answers or changes. */
  tokenNames?: string[];
  /** What each token may do (same order; default: `defaultRole`, operator when it is the only token). */
  tokenRoles?: ReadonlyArray<TokenRole | undefined>;
  /** Largest request body in bytes. */
  maxBodyBytes: number;
  /** The server terminates TLS itself (reach.ts). */
  tls?: boolean;
  /** A TLS proxy in front is believed: X-Forwarded-Proto and X-Forwarded-For (reach.ts). */
  trustProxy?: boolean;
  /** The operator's log: one line per request (log.ts). */
  log?: Logger;
  /** Wrong tokens per source address (token-guard.ts); default: one for this app. */
  guard?: TokenGuard;
  /** True once the server is stopping: new requests are refused (503) while the work in flight ends (serve.ts). */
  stopping?: () => boolean;
}

/** What an id in a path or body may be (session, agent, step): 1-128 letters, digits, `.`, `_`, `:`, `-`. */
export const ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/** The environment the console hands to the API app with each form it sends on (never set by a network request). */
export const CONSOLE_ENV = Object.freeze({ toolshellSurface: "console" });

/** The name of the token at index `i` of `options.tokens` (`server.tokens[].name`, else `token-N`; -1: `unknown`). */
export function tokenName(i: number, options: Pick<AppOptions, "tokenNames">): string {
  return i < 0 ? "unknown" : (options.tokenNames?.[i] ?? `token-${i + 1}`);
}

/** The actor of an authenticated API request: the token's name, and `console` for the console's own forms. */
export function actorOf(c: Context, options: AppOptions): Actor {
  const by = tokenName(tokenIndex(bearer(c) ?? "", options.tokens), options);
  const surface = (c.env as { toolshellSurface?: unknown } | undefined)?.toolshellSurface === "console" ? "console" : "api";
  return { surface, by };
}

/**
 * The principal an API request acts for: its token's name (`server.tokens[].name`, else
 * `token-N`). A session the API creates acts for it, and only it runs shell calls there, so its
 * calls use that person's OAuth sign-ins (README "Sign-in"); nothing a caller sends changes it.
 */
export function principalOfToken(c: Context, options: AppOptions): string {
  return actorOf(c, options).by;
}

/** The role of a token (its index in `options.tokens`; -1: none). */
export function roleAt(i: number, options: Pick<AppOptions, "tokens" | "tokenRoles">): TokenRole | undefined {
  if (i < 0) return undefined;
  return options.tokenRoles?.[i] ?? defaultRole(options.tokens.length);
}

/** The role of an authenticated API request's token (docs/security.md "Who acts for whom"). */
export function roleOf(c: Context, options: AppOptions): TokenRole | undefined {
  return roleAt(tokenIndex(bearer(c) ?? "", options.tokens), options);
}

/**
 * Refuses (403) a request whose token is not an operator's: what changes what the host runs or
 * how it judges calls (its MCP servers) is the deployment's people's to change, never an agent's.
 */
export function requireOperator(c: Context, options: AppOptions, what: string): void {
  const role = roleOf(c, options);
  if (role !== "operator") throw new ApiError(403, "forbidden", `${what} needs an operator token; this API token's role is ${role ?? "unknown"} (server.tokens[].role)`);
}

/**
 * Whether the request may see and act on a session acting for `owner`: an operator's token on
 * every session, any other token only on its own principal's. The one rule for every
 * `/v1/sessions/{id}/…` route and every list of sessions, approvals and questions.
 */
export function mayReach(c: Context, options: AppOptions, owner: string): boolean {
  return roleOf(c, options) === "operator" || principalOfToken(c, options) === owner;
}

/**
 * Refuses (403) a request that may not reach what acts for `owner` (mayReach): an agent's saved
 * scripts and triggers (owner: the agent id as a principal, `principalOf`), a trigger (its
 * `principal`, else its agent). The same rule as sessions, for every `/v1/agents/{id}/…` route.
 */
export function requireReach(c: Context, options: AppOptions, owner: string, what: string): void {
  if (!mayReach(c, options, owner)) throw new ApiError(403, "forbidden", `${what} acts for principal ${JSON.stringify(owner)}; this API token acts for ${JSON.stringify(principalOfToken(c, options))} and cannot reach it (an operator token reaches every agent)`);
}

/** Metadata keys only toolshell sets: a gateway session's `initialize`, a trigger's own. */
export const RESERVED_METADATA = ["mcp_initialize", "trigger_id", "trigger_name"] as const;

/**
 * What a session id is reserved for, or undefined: `changes` (the change log), `mcp_…` (the MCP
 * gateway's sessions, revived from their stored `initialize`), `trg_…` (triggers' sessions).
 */
export function reservedSession(id: string): string | undefined {
  if (id === CHANGES_SESSION) return "the change log";
  if (/^mcp_/i.test(id)) return "the MCP gateway's sessions";
  if (/^trg_/i.test(id)) return "triggers' sessions";
  return undefined;
}

/**
 * Checks a token a caller presented at one of the API's doors against the guard of wrong tokens
 * (token-guard.ts): throws 429 with `Retry-After` while `from` must wait, else runs `check` and
 * counts a wrong token (false) or clears the count (true). @returns what `check` said.
 */
export function guardedCheck(c: Context, guard: TokenGuard, from: string, check: () => boolean): boolean {
  const { ok, wait } = guard.weigh(from, check);
  if (wait > 0) {
    c.header("Retry-After", String(wait));
    throw new ApiError(429, "too_many_requests", TokenGuard.message(wait));
  }
  return ok;
}

export function bearer(c: Context): string | undefined {
  const h = c.req.header("authorization") ?? "";
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m?.[1];
}

/**
 * The request's JSON body. `known`: the fields the route takes; any other is refused naming it
 * (with a near miss, the config's rule: `unknownKeyMessage`), so a misspelled option is not
 * silently ignored.
 */
export async function body(c: Context, known?: readonly string[]): Promise<Record<string, unknown>> {
  const type = c.req.header("content-type") ?? "";
  const text = await c.req.text();
  if (!text.trim()) return {};
  if (type && !/^application\/(.+\+)?json\b/i.test(type)) throw new ApiError(415, "unsupported_media_type", "send JSON (content-type: application/json)");
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (err) {
    throw new ApiError(400, "invalid_json", `the body is not JSON: ${(err as Error).message}`);
  }
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw new ApiError(400, "invalid_request", "the body must be a JSON object");
  // Every body of the API comes through here (webhook payloads too): each field nests no deeper
  // than a tool's input may (refuseDeepInput), and carries no field name that would reach an
  // object's prototype when copied (`__proto__`, `constructor`, `prototype`) and no number JSON
  // cannot keep (refuseUnsafeParts, the rule of tool inputs), before anything is accepted or stored.
  for (const [k, field] of Object.entries(v)) {
    try {
      refuseDeepInput(field, JSON.stringify(k));
    } catch (err) {
      throw new ApiError(400, "invalid_request", `${(err as Error).message}: send a flatter value`);
    }
  }
  try {
    refuseUnsafeParts(v);
  } catch (err) {
    throw new ApiError(400, "invalid_request", `the body: ${(err as Error).message}`);
  }
  if (known) {
    const extra = Object.keys(v).find((k) => !known.includes(k));
    if (extra !== undefined) throw new ApiError(400, "invalid_request", `the body's "${extra}": ${unknownKeyMessage(extra, known)}`);
  }
  return v as Record<string, unknown>;
}

export function str(o: Record<string, unknown>, key: string, required: true): string;
export function str(o: Record<string, unknown>, key: string, required?: false): string | undefined;
export function str(o: Record<string, unknown>, key: string, required = false): string | undefined {
  const v = o[key];
  if (v === undefined || v === null) {
    if (required) throw new ApiError(400, "invalid_request", `"${key}" is required`);
    return undefined;
  }
  if (typeof v !== "string") throw new ApiError(400, "invalid_request", `"${key}" must be a string`);
  return v;
}

/**
 * What a step id may be (docs/sessions.md "Durable steps"): an id as above, or several joined by
 * `/` (`turn-3/bash-1`), 1-128 characters. It never appears in a path.
 */
export const STEP_ID = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$/;

/** A step id from a body. @throws ApiError 400 naming what it may be. */
export function stepIdOf(v: string): string {
  if (!STEP_ID.test(v) || v.includes("//") || v.endsWith("/")) throw new ApiError(400, "invalid_request", 'step_id must be 1-128 letters, digits, ".", "_", ":", "-" or "/" (between parts, as in "turn-3/bash-1")');
  return v;
}

export function id(v: string | undefined, what: string): string {
  if (!v || !ID.test(v)) throw new ApiError(400, "invalid_request", `${what} must be 1-128 letters, digits, ".", "_", ":" or "-"`);
  return v;
}

export function fromToolError(err: unknown): never {
  if (err instanceof ApiError) throw err;
  if (err instanceof ToolCallError) throw new ApiError(err.code === "unknown_command" ? 404 : 400, err.code, err.message);
  throw new ApiError(400, "invalid_request", err instanceof Error ? err.message : String(err));
}
