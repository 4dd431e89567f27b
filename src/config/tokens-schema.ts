/**
 * `server.tokens`: the HTTP API's bearer tokens, each a string or `{ name, token }`; the name is
 * who acted with it (docs/sessions.md "Who acted").
 */
import * as z from "zod";
import { strictObject } from "./messages.js";

/** The shortest API token accepted. */
export const MIN_TOKEN_LENGTH = 16;

/** What a token's name may be: who acted, as events and the console show it. */
const TOKEN_NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;
const TOKEN_NAME_RULE = 'expected 1-64 letters, digits, ".", "_", "@" or "-"';

/** The tokens as written; blank ones (an unset `${VAR:-}`) dropped. */
export const tokensSchema = z
  .array(
    z.union([z.string(), strictObject({ name: z.string().regex(TOKEN_NAME, { error: TOKEN_NAME_RULE }), token: z.string({ error: "expected the token, a string" }) }, 'expected a token: "…" or { "name": "…", "token": "…" }')], {
      error: 'expected a token: "…" or { "name": "…", "token": "…" }',
    }),
    { error: "expected an array of tokens" },
  )
  .superRefine((tokens, ctx) => {
    const names = new Set<string>();
    tokens.forEach((x, i) => {
      const t = typeof x === "string" ? x : x.token;
      if (t && t.length < MIN_TOKEN_LENGTH) ctx.addIssue({ code: "custom", path: typeof x === "string" ? [i] : [i, "token"], message: `a token is shorter than ${MIN_TOKEN_LENGTH} characters`, input: t });
      if (typeof x !== "string") {
        if (names.has(x.name)) ctx.addIssue({ code: "custom", path: [i, "name"], message: `the name ${x.name} is given to two tokens`, input: x.name });
        names.add(x.name);
      }
    });
  })
  .transform((tokens) => tokens.filter((x) => (typeof x === "string" ? x : x.token)))
  .default([])
  .describe(`Bearer tokens (${MIN_TOKEN_LENGTH} characters or more), each a string or { "name", "token" }: the name is who answered or changed something with it (events, the console); a token without one is token-N (its place). Also from TOOLSHELL_API_TOKENS (comma-separated) and TOOLSHELL_API_TOKEN.`);
