/**
 * The forms a secret takes in text and data (encoded, escaped, wrapped), and the decoders that
 * redaction reads text with. See docs/security.md ("Secrets").
 */

/**
 * Values shorter than this are not treated as secrets: redacting `true`, `1` or `dev` everywhere
 * would mangle ordinary output, and such values are not credentials.
 */
export const MIN_SECRET_LENGTH = 8;

export const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

export const BASE64URL = /^[A-Za-z0-9_-]+={0,2}$/;
export const NUMBER = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
export const PRINTABLE = /^[^\p{Cc}\uFFFD]*$/u;

/** A run of URL text holding percent-escapes (decoded to look for a secret inside), in pieces of at most 10,000 units (decoders.ts `replaceRuns`). */
export const PERCENT_RUN = /(?:%u[0-9A-Fa-f]{4}|%[0-9A-Fa-f]{2}|[A-Za-z0-9._~+!*'()-]){1,10000}/g;
/** A JSON escape (`\uXXXX`, or a backslash and one character). */
export const JSON_ESCAPE = /\\u([0-9A-Fa-f]{4})|\\[\s\S]/g;
const BASE64_TEXT = /^[A-Za-z0-9+/]*(={0,2})$/;

/**
 * Whether `s` is base64 (RFC 4648 §4): the alphabet, then `=` padding to a group of four, or an
 * unpadded tail of two or three characters. Checked by length, not by a regular expression over
 * repeated groups, which overflows the stack on megabytes of text.
 */
export function isBase64(s: string): boolean {
  const m = BASE64_TEXT.exec(s);
  if (!m) return false;
  return m[1]!.length ? s.length % 4 === 0 : s.length % 4 !== 1;
}

/** Percent-escapes decoded as UTF-8 bytes (a malformed sequence decodes to U+FFFD, never throws). */
export function percentDecoded(s: string): string {
  // `%uXXXX` (JavaScript's old `escape()`, IIS) is one UTF-16 unit, written here as its UTF-8 bytes.
  const units = s.replace(/%u([0-9A-Fa-f]{4})/g, (_m, h: string) => Buffer.from(String.fromCharCode(parseInt(h, 16)), "utf8").toString("latin1"));
  return Buffer.from(units.replace(/%([0-9A-Fa-f]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16))), "latin1").toString("utf8");
}

/**
 * The base64 text a secret shows wherever it sits in encoded data: for each of the three
 * alignments, the characters that depend on the secret's bytes only (RFC 4648 §4, and §5's
 * URL-safe alphabet).
 */
export function base64Cores(secret: string | Buffer): string[] {
  const bytes = typeof secret === "string" ? Buffer.from(secret, "utf8") : secret;
  const out: string[] = [];
  for (const k of [0, 1, 2]) {
    const m = k + bytes.length;
    const known = Math.floor(m / 3) * 4 + [0, 1, 2][m % 3];
    const core = Buffer.concat([Buffer.alloc(k), bytes]).toString("base64").slice([0, 2, 3][k], known);
    if (core.length >= MIN_SECRET_LENGTH) out.push(core, core.replace(/\+/g, "-").replace(/\//g, "_"));
  }
  return out;
}

/** `s` decoded from base64 (standard or URL-safe) when it is base64 of printable UTF-8 text. */
export function decodedBase64(s: string): string | undefined {
  if (s.length < MIN_SECRET_LENGTH || !(isBase64(s) || BASE64URL.test(s))) return undefined;
  const bytes = Buffer.from(s, isBase64(s) ? "base64" : "base64url");
  const text = bytes.toString("utf8");
  return PRINTABLE.test(text) && Buffer.from(text, "utf8").equals(bytes) ? text : undefined;
}

/**
 * Every form a secret takes that must be redacted: as written; as toolshell rewrites names a
 * server gives (an untrusted server may name a tool after its key: shown with hyphens, looked up
 * folded); URL-encoded (percent and form encoding, RFC 3986 §2.1) and URL-decoded; decoded from
 * base64 (the `user:password` of a `Basic` credential, RFC 7617, and the password alone); and,
 * for each of those, inside a JSON string (escaped).
 */
export function formsOf(secret: string): string[] {
  const forms = new Set<string>([secret, secret.replace(/_/g, "-"), secret.replace(/-/g, "_").toLowerCase()]);
  // A hex secret is the same value in either case (a digest or key printed upper-case).
  if (/^[0-9a-f]+$/i.test(secret)) forms.add(secret.toUpperCase()).add(secret.toLowerCase());
  const encoded = encodeURIComponent(secret);
  forms.add(encoded).add(encoded.replace(/%20/g, "+"));
  for (const s of [secret, secret.replace(/\+/g, " ")]) {
    try {
      forms.add(decodeURIComponent(s));
    } catch {}
  }
  const decoded = decodedBase64(secret);
  if (decoded !== undefined) {
    forms.add(decoded);
    const colon = decoded.indexOf(":");
    if (colon >= 0) forms.add(decoded.slice(colon + 1));
  }
  for (const f of [...forms]) forms.add(JSON.stringify(f).slice(1, -1));
  return [...forms].filter((f) => f.length >= MIN_SECRET_LENGTH);
}

/** One alternation over strings, longest first (so one that contains another is replaced whole). */
export const alternation = (strings: Iterable<string>, flags = "g"): RegExp | undefined => {
  const sorted = [...new Set(strings)].sort((a, b) => b.length - a.length);
  return sorted.length ? new RegExp(sorted.map(escape).join("|"), flags) : undefined;
};
