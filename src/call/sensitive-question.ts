/**
 * The one rule for questions that ask a person for a secret. The MCP specification (2025-11-25,
 * "Client Features" → Elicitation → form mode) says servers MUST NOT request sensitive
 * information — passwords, API keys, tokens, payment credentials — through form mode: what the
 * person types goes back through the client and the server in clear, and a server can dress the
 * form up as anyone's. URL mode exists for that (the person types it on the server's own page).
 *
 * {@link sensitiveRequest} says why a question asks for one, or undefined. It looks at every field
 * a person could type a value into (a string or number without `enum`/`const`): its name, `title`,
 * `description` and `format` (`password`, or `writeOnly`), and at the question's message when it
 * asks the person to give one. Text is compared after NFKC and with invisible characters removed,
 * camelCase, `_`, `-` and `.` read as word breaks, so `apiKey`, `API_KEY`, `pass\u200bword` and
 * `ｐａｓｓｗｏｒｄ` are all seen. `call/person.ts` declines such a question before any surface
 * shows it (the console, the CLI prompt, the gateway's client, the HTTP API, the AI SDK).
 */
import type { JsonSchema } from "../tool/types.js";

/** What a field's text may say that makes it a request for a secret (whole words, lower case). */
const SECRET_WORDS = [
  "password", "passwd", "passphrase", "pass phrase", "passcode", "pwd",
  "secret", "client secret", "token", "access token", "refresh token", "bearer", "jwt", "session cookie",
  "api key", "apikey", "key", "private key", "secret key", "access key", "signing key", "ssh key", "encryption key", "license key",
  "credential", "credentials", "auth code", "authorization code", "otp", "one time code", "one time password", "totp", "2fa", "mfa", "verification code", "recovery code", "recovery phrase", "backup code",
  "seed phrase", "mnemonic", "pin", "cvv", "cvc", "card number", "credit card", "iban", "ssn", "social security number",
];

const WORDS = new RegExp(`\\b(?:${SECRET_WORDS.map((w) => w.replace(/ /g, "\\s+")).join("|")})\\b`);

/** The message asks the person to give one: a verb of giving, then a secret word in the same sentence. */
const ASKS = new RegExp(`\\b(?:enter|type|provide|paste|give|input|share|send|supply|submit|confirm|fill in|what\\s+is|what's|tell\\s+me)\\b[^.?!\\n]{0,80}?${WORDS.source}`);

/** Invisible and format characters a server may put inside a word to hide it. */
const INVISIBLE = /[\p{Cf}\p{Cc}\p{Variation_Selector}\u115f\u1160\u3164\uffa0\u2800]|\u034f/gu;

/** `text` as the rule reads it: NFKC, invisible characters gone, camelCase and `_-.` as spaces, lower case. */
export function readable(text: string): string {
  return text
    .normalize("NFKC")
    .replace(INVISIBLE, "")
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .replace(/[_\-./:]+/g, " ")
    .toLowerCase();
}

/** True when a person types the field's value (not a boolean, not a choice among given values). */
function typedIn(field: Record<string, unknown>): boolean {
  if ("enum" in field || "const" in field || "oneOf" in field || "anyOf" in field) return false;
  const type = field.type;
  const types = Array.isArray(type) ? type : [type];
  return type === undefined || types.some((t) => t === "string" || t === "number" || t === "integer");
}

/**
 * Why `question` asks the person for sensitive information in a form, in words, or undefined
 * when it does not (see the file comment).
 */
export function sensitiveRequest(question: { message: string; requestedSchema: JsonSchema }): string | undefined {
  const properties = (question.requestedSchema as { properties?: unknown } | undefined)?.properties;
  const fields = properties && typeof properties === "object" && !Array.isArray(properties) ? Object.entries(properties as Record<string, unknown>) : [];
  let typed = false;
  for (const [name, raw] of fields) {
    if (!raw || typeof raw !== "object" || Array.isArray(raw)) continue;
    const field = raw as Record<string, unknown>;
    if (!typedIn(field)) continue;
    typed = true;
    if (field.writeOnly === true) return `its field ${JSON.stringify(name)} is write-only`;
    if (typeof field.format === "string" && WORDS.test(readable(field.format))) return `its field ${JSON.stringify(name)} has format ${JSON.stringify(field.format)}`;
    for (const [what, text] of [["name", name], ["title", field.title], ["description", field.description]] as const) {
      if (typeof text !== "string") continue;
      const m = WORDS.exec(readable(text));
      if (m) return `the ${what} of its field ${JSON.stringify(name)} asks for a ${m[0].replace(/\s+/g, " ")}`;
    }
  }
  if (typed) {
    const m = ASKS.exec(readable(question.message));
    if (m) return `its message asks for a ${(WORDS.exec(m[0])?.[0] ?? "secret").replace(/\s+/g, " ")}`;
  }
  return undefined;
}

/** The reason a declined question gives (`question.answered`'s `unanswered`, the server's log). */
export function sensitiveRefusal(why: string): string {
  return `the question asks for sensitive information in a form (${why}); the MCP specification says servers must not request passwords, keys or tokens through form mode, so it was declined without being shown`;
}
