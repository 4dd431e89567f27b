/**
 * `server.tokens`: the HTTP API's bearer tokens, each a string or `{ name, token, role }`; the name
 * is who acted with it (docs/sessions.md "Who acted"), the role what it may do (docs/security.md
 * "Who acts for whom").
 */
import * as z from "zod";
import { strictObject } from "./messages.js";

/**
 * What a token may do: `operator` (a person running the deployment: changes servers, sees and
 * answers every session, signs in to the console) or `agent` (acts in its own principal's
 * sessions only).
 */
export const TOKEN_ROLES = ["operator", "agent"] as const;
export type TokenRole = (typeof TOKEN_ROLES)[number];

/**
 * The role of a token written without one: `operator` when it is the server's only token (one
 * token is one person, as before roles existed), else `agent` (docs/security.md).
 */
export function defaultRole(tokenCount: number): TokenRole {
  return tokenCount === 1 ? "operator" : "agent";
}

/** The shortest API token accepted. */
export const MIN_TOKEN_LENGTH = 16;

/** What a token's name may be: who acted, as events and the console show it. */
const TOKEN_NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;
const TOKEN_NAME_RULE = 'expected 1-64 letters, digits, ".", "_", "@" or "-"';
/** Names a token may not take: principals of sessions no token made, and the names of unnamed tokens. */
const RESERVED_TOKEN_NAME = /^(default|local|stdio)$/;

/** The tokens as written; blank ones (an unset `${VAR:-}`) dropped. */
export const tokensSchema = z
  .array(
    z.union([z.string(), strictObject({ name: z.string().regex(TOKEN_NAME, { error: TOKEN_NAME_RULE }), token: z.string({ error: "expected the token, a string" }), role: z.enum(TOKEN_ROLES, { error: "expected operator or agent" }).optional() }, 'expected a token: "…" or { "name": "…", "token": "…", "role"?: "operator" | "agent" }')], {
      error: 'expected a token: "…" or { "name": "…", "token": "…", "role"?: "operator" | "agent" }',
    }),
    { error: "expected an array of tokens" },
  )
  .superRefine((tokens, ctx) => {
    // Two tokens may share a name (one person, one principal) while one replaces the other
    // (docs/deployment.md "Rotating an API token"), with the same role.
    const roles = new Map<string, string | undefined>();
    tokens.forEach((x, i) => {
      const t = typeof x === "string" ? x : x.token;
      if (t && t.length < MIN_TOKEN_LENGTH) ctx.addIssue({ code: "custom", path: typeof x === "string" ? [i] : [i, "token"], message: `a token is shorter than ${MIN_TOKEN_LENGTH} characters`, input: t });
      if (typeof x !== "string") {
        // A token's name is the principal it acts for: not one that stands for sessions no token made.
        // token-N is the name of the N-th token when it has none: a token may take its own, not another's.
        const numbered = /^token-(\d+)$/.exec(x.name);
        if (RESERVED_TOKEN_NAME.test(x.name) || (numbered && Number(numbered[1]) !== i + 1)) {
          ctx.addIssue({ code: "custom", path: [i, "name"], message: `the name ${x.name} is reserved: "default", "local" and "stdio" are the principals of sessions no API token made (the CLI's, the change log, the gateway's), and token-N is the N-th token's own name; choose another`, input: x.name });
        }
        if (roles.has(x.name) && roles.get(x.name) !== x.role) {
          ctx.addIssue({ code: "custom", path: [i, "name"], message: `the name ${x.name} is given to two tokens with different roles (tokens share a name only while one replaces the other, with the same role)`, input: x.name });
        }
        roles.set(x.name, x.role);
      }
    });
  })
  .transform((tokens) => tokens.filter((x) => (typeof x === "string" ? x : x.token)))
  .default([])
  .describe(`Bearer tokens (${MIN_TOKEN_LENGTH} characters or more), each a string or { "name", "token", "role" }: the name is who answered or changed something with it (events, the console); a token without one is token-N (its place). role: operator (changes servers, sees every session, signs in to the console) or agent (its own principal's sessions only); a token without a role is operator when it is the server's only token, else agent. Also from TOOLSHELL_API_TOKENS (comma-separated) and TOOLSHELL_API_TOKEN.`);
