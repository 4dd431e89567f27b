/**
 * Redaction of secrets from config: the values of every server's `env` and `headers` (after
 * `${VAR}` expansion) never appear in an event, a tool's output as the script sees it, or a
 * shell call's result.
 *
 * The call pipeline applies it to every call's output and error (its `redact` step), whatever the
 * surface; sessions apply it to events and shell results. See docs/security.md ("Secrets").
 */
import type { ServerConfig } from "../config/index.js";
import type { ToolOutput } from "../tool/index.js";

/** What a redacted secret is replaced with. */
export const REDACTED = "[REDACTED]";

/**
 * Values shorter than this are not treated as secrets: redacting `true`, `1` or `dev` everywhere
 * would mangle ordinary output, and such values are not credentials.
 */
export const MIN_SECRET_LENGTH = 8;

/** Replaces known secrets in strings and in any JSON-like value. */
export interface Redactor {
  /** True when there is at least one secret to look for. */
  readonly active: boolean;
  /** `s` with every secret replaced by {@link REDACTED}. */
  text(s: string): string;
  /** `v` with secrets replaced in every string (keys included), number and base64 data; copied only where something matched. */
  value<T>(v: T): T;
  /** A tool output with secrets replaced in its text, JSON value, raw return and media data. */
  output(o: ToolOutput): ToolOutput;
  /**
   * Adds secrets learned while running (OAuth tokens obtained by a sign-in or a refresh); from
   * then on they are redacted like config secrets. Strings shorter than {@link MIN_SECRET_LENGTH} are ignored.
   */
  add(...secrets: string[]): void;
}

/** Names of URL query parameters, flags and `key=value` pairs that carry credentials. */
const SECRET_NAME = /key|token|secret|passw|^pass$|pwd|auth|credential|signature|sig$/i;
/** Names of env variables and headers whose value is a cookie (every pair's value is secret). */
const COOKIE_NAME = /cookie|session/i;
/** A URL with a scheme, inside any text (a DSN, a flag's value). */
const URL_IN_TEXT = /[A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s"'<>]+/g;

/** The user name and password of `url` (as written and decoded) and its credential-named query parameters' values. */
function urlParts(url: URL, add: (v: string) => void): void {
  for (const part of [url.username, url.password]) {
    add(part);
    try {
      add(decodeURIComponent(part));
    } catch {}
  }
  for (const [name, value] of url.searchParams) if (SECRET_NAME.test(name)) add(value);
  // As written too (`+`, `%2F`, `=` left encoded): errors and logs quote the URL as written.
  for (const pair of url.search.slice(1).split("&")) {
    const eq = pair.indexOf("=");
    if (eq > 0 && SECRET_NAME.test(pair.slice(0, eq))) add(pair.slice(eq + 1));
  }
}

/**
 * The credential parts of a compound value (a DSN, a connection string, a cookie): the password
 * of every URL in it (with its credential-named query parameters), and the values of its
 * `key=value` pairs (separated by spaces, `;` or `&`, libpq and ODBC style) whose key names a
 * credential, or every pair's value when `cookie` (a Cookie value: `sid=…; theme=…`). Returns
 * whether it found any, so that an argument holding one is known to be a secret source.
 */
function credentialParts(value: string, add: (v: string) => void, cookie = false): boolean {
  let found = false;
  const take = (v: string): void => {
    const t = v.trim().replace(/^(["'])(.*)\1$/s, "$2");
    if (t.length >= MIN_SECRET_LENGTH) found = true;
    add(t);
  };
  for (const m of value.match(URL_IN_TEXT) ?? []) {
    let url: URL | undefined;
    try {
      url = new URL(m);
    } catch {}
    if (url && (url.password || [...url.searchParams.keys()].some((k) => SECRET_NAME.test(k)))) urlParts(url, take);
  }
  for (const piece of value.split(/[\s;&?]+/)) {
    // `--dsn=password=…`: a pair's value may itself be a pair.
    for (let rest = piece.replace(/^-+/, ""), eq = rest.indexOf("="); eq > 0; rest = rest.slice(eq + 1), eq = rest.indexOf("=")) {
      if (cookie || SECRET_NAME.test(rest.slice(0, eq))) take(rest.slice(eq + 1));
    }
  }
  return found;
}

/**
 * The secrets of a config: every `env` value of a stdio server and every `headers` value of an
 * HTTP server, plus the token part of `Bearer …`/`Basic …`-style header values; the user name and
 * password of a server URL and the values of its credential-named query parameters (`api_key=…`);
 * the values of a stdio server's credential-named flags (`--token X`, `--api-key=X`); and an HTTP
 * server's `oauth.clientSecret`; and every value an environment variable (`${VAR}`) expanded to
 * anywhere in a server's entry (a connection string's password, a URL's key). Of each such value,
 * and of each argument, the credential parts too (see {@link credentialParts}).
 * Values shorter than {@link MIN_SECRET_LENGTH} characters are left out.
 */
export function configSecrets(config: { servers: readonly ServerConfig[] }): string[] {
  const out = new Set<string>();
  const part = (v: string): void => {
    if (v.length >= MIN_SECRET_LENGTH) out.add(v);
  };
  const add = (v: unknown, name = ""): void => {
    if (typeof v !== "string") return;
    const t = v.trim();
    if (t.length >= MIN_SECRET_LENGTH) out.add(t);
    const m = /^[A-Za-z-]+\s+(\S{8,})$/.exec(t);
    if (m) out.add(m[1]);
    credentialParts(t, part, COOKIE_NAME.test(name));
  };
  for (const s of config.servers) {
    for (const v of s.expanded ?? []) add(v);
    if (s.type === "stdio") {
      for (const [k, v] of Object.entries(s.env)) add(v, k);
      s.args.forEach((arg, i) => {
        credentialParts(arg, part);
        const flag = /^--?([A-Za-z0-9_-]+)(?:=(.*))?$/s.exec(arg);
        if (!flag || !SECRET_NAME.test(flag[1])) return;
        add(flag[2] !== undefined ? flag[2] : s.args[i + 1]);
      });
    } else {
      for (const [k, v] of Object.entries(s.headers)) add(v, k);
      if (s.oauth) add(s.oauth.clientSecret);
      let url: URL | undefined;
      try {
        url = new URL(s.url);
      } catch {}
      if (url) urlParts(url, (v) => add(v));
    }
  }
  return [...out];
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{2,3})?$/;
const BASE64URL = /^[A-Za-z0-9_-]+={0,2}$/;
const NUMBER = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const PRINTABLE = /^[^\p{Cc}\uFFFD]*$/u;

/** A run of URL text holding percent-escapes (decoded to look for a secret inside). */
const PERCENT_RUN = /(?:%[0-9A-Fa-f]{2}|[A-Za-z0-9._~+!*'()-])+/g;
/** A JSON escape (`\uXXXX`, or a backslash and one character). */
const JSON_ESCAPE = /\\u([0-9A-Fa-f]{4})|\\[\s\S]/g;

/**
 * `s` with each quoted JSON string token holding an escape that `change` rewrites (given the
 * decoded text) written again; one pass, so linear in `s` however its quotes pair up.
 */
function jsonStrings(s: string, change: (decoded: string) => string | undefined): string {
  let out = "";
  let i = 0;
  while (i < s.length) {
    const start = s.indexOf('"', i);
    if (start < 0) break;
    let j = start + 1;
    let escaped = false;
    while (j < s.length && s[j] !== '"' && s[j] !== "\n") {
      if (s[j] === "\\") {
        escaped = true;
        j++;
      }
      j++;
    }
    if (j >= s.length || s[j] !== '"') {
      out += s.slice(i, j);
      i = j;
      continue;
    }
    const token = s.slice(start, j + 1);
    let next: string | undefined;
    if (escaped) {
      try {
        const d: unknown = JSON.parse(token);
        const c = typeof d === "string" ? change(d) : undefined;
        if (c !== undefined) next = JSON.stringify(c);
      } catch {}
    }
    out += s.slice(i, start) + (next ?? token);
    i = j + 1;
  }
  return out + s.slice(i);
}
/** Base64 wrapped over two or more lines, from a line's start (so a long line is scanned once). */
const WRAPPED_BASE64 = /^(?:[A-Za-z0-9+/]{16,}\r?\n)+[A-Za-z0-9+/]*={0,2}/gm;

/** Percent-escapes decoded as UTF-8 bytes (a malformed sequence decodes to U+FFFD, never throws). */
function percentDecoded(s: string): string {
  return Buffer.from(s.replace(/%([0-9A-Fa-f]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16))), "latin1").toString("utf8");
}

/**
 * The base64 text a secret shows wherever it sits in encoded data: for each of the three
 * alignments, the characters that depend on the secret's bytes only (RFC 4648 §4, and §5's
 * URL-safe alphabet).
 */
function base64Cores(secret: string): string[] {
  const bytes = Buffer.from(secret, "utf8");
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
function decodedBase64(s: string): string | undefined {
  if (s.length < MIN_SECRET_LENGTH || !(BASE64.test(s) || BASE64URL.test(s))) return undefined;
  const bytes = Buffer.from(s, BASE64.test(s) ? "base64" : "base64url");
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
function formsOf(secret: string): string[] {
  const forms = new Set<string>([secret, secret.replace(/_/g, "-"), secret.replace(/-/g, "_").toLowerCase()]);
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
const alternation = (strings: Iterable<string>, flags = "g"): RegExp | undefined => {
  const sorted = [...new Set(strings)].sort((a, b) => b.length - a.length);
  return sorted.length ? new RegExp(sorted.map(escape).join("|"), flags) : undefined;
};

/**
 * A redactor over `secrets` (strings shorter than {@link MIN_SECRET_LENGTH} are ignored), by
 * every form a secret takes (see {@link formsOf}): in text, also as its base64 text; in a JSON
 * value, in every string and key, a number that spells a secret (or that a numeric secret
 * rounds to: its digits beyond 2^53 are not there to compare) becomes the string
 * {@link REDACTED}; base64 data (a media block, a resource's `blob`) is decoded, redacted as
 * bytes and encoded again.
 */
export function createRedactor(secrets: Iterable<string>): Redactor {
  const known = new Set<string>();
  /** Forms matched in text (with the base64 cores). */
  let re: RegExp | undefined;
  /** Forms matched in decoded bytes (each form's UTF-8 bytes as latin1 text). */
  let bytesRe: RegExp | undefined;
  /** The numbers a numeric form stands for. */
  const numbers = new Set<number>();
  const learn = (more: Iterable<string>): void => {
    const size = known.size;
    for (const secret of more) if (typeof secret === "string" && secret.length >= MIN_SECRET_LENGTH) known.add(secret);
    if (known.size === size && re !== undefined) return;
    const forms = new Set<string>();
    for (const secret of known) for (const f of formsOf(secret)) forms.add(f);
    numbers.clear();
    for (const f of forms) if (NUMBER.test(f)) numbers.add(Number(f));
    bytesRe = alternation([...forms].map((f) => Buffer.from(f, "utf8").toString("latin1")));
    re = alternation([...forms, ...[...known].flatMap(base64Cores)]);
  };
  learn(secrets);
  const plain = (s: string): string => (re && s ? s.replace(re, REDACTED) : s);
  /** Base64 data with the secrets in its bytes redacted; `s` itself when it is not base64 or holds none. */
  const blob = (s: string): string => {
    if (!bytesRe || s.length < 12) return s;
    const compact = s.replace(/\s+/g, "");
    const url = !BASE64.test(compact);
    if (url && !BASE64URL.test(compact)) return s;
    const latin1 = Buffer.from(compact, url ? "base64url" : "base64").toString("latin1");
    bytesRe.lastIndex = 0;
    if (!bytesRe.test(latin1)) return s;
    return Buffer.from(latin1.replace(bytesRe, REDACTED), "latin1").toString(url ? "base64url" : "base64");
  };
  /**
   * `s` with every secret replaced, also where the text wraps it in a form the plain match misses:
   * percent-encoding however written (lower-case hex, every byte encoded, encoded twice; RFC 3986
   * §2.1); a JSON string written with escapes (`\u0073k_…`, `\/`); base64 wrapped over lines (RFC
   * 2045 §6.8). Such a run is replaced whole.
   */
  const text = (s: string): string => {
    let out = plain(s);
    if (!re || !out) return out;
    const hides = (d: string): boolean => plain(d) !== d;
    if (out.includes("%")) {
      out = out.replace(PERCENT_RUN, (run) => {
        // Runs are matched whole (linear); only those holding an escape are decoded.
        for (let d = run, i = 0; i < 3 && /%[0-9A-Fa-f]{2}/.test(d); i++) {
          d = percentDecoded(d);
          if (hides(d) || hides(d.replace(/\+/g, " "))) return REDACTED;
        }
        return run;
      });
    }
    if (out.includes("\\") && hides(out.replace(JSON_ESCAPE, (m, hex?: string) => (hex ? String.fromCharCode(parseInt(hex, 16)) : m[1])))) out = jsonStrings(out, (d) => (hides(d) ? plain(d) : undefined));
    if (out.includes("\n")) {
      out = out.replace(WRAPPED_BASE64, (block) => {
        const compact = block.replace(/\s+/g, "");
        const b = blob(compact);
        return b === compact ? block : b;
      });
    }
    return out;
  };
  const str = (s: string): string => text(blob(s));
  const secretNumber = (n: number | bigint): boolean => numbers.has(Number(n)) || text(String(n)) !== String(n);
  // JSON text as a source wrote it: a string may spell a secret with escapes (`\u0073k_…`), and
  // a key written twice hides one from the parsed value; each string token is decoded, and
  // written again redacted when it holds a secret; a number token spelling one becomes the
  // string REDACTED, so the text stays JSON (docs/mcp.md "Integers beyond 2^53").
  const jsonTokens = (j: string): string =>
    text(
      j.replace(/"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g, (token) => {
        if (token[0] !== '"') return secretNumber(Number(token)) || text(token) !== token ? JSON.stringify(REDACTED) : token;
        let decoded: unknown;
        try {
          decoded = JSON.parse(token);
        } catch {
          return token;
        }
        if (typeof decoded !== "string") return token;
        const redacted = str(decoded);
        return redacted === decoded ? token : JSON.stringify(redacted);
      }),
    );
  // A copy only where something changed: most values hold no secret and are returned as they are.
  const deep = (v: unknown, seen: WeakSet<object>): unknown => {
    if (typeof v === "string") return str(v);
    if (typeof v === "number" || typeof v === "bigint") return secretNumber(v) ? REDACTED : v;
    if (v === null || typeof v !== "object") return v;
    if (seen.has(v) || ArrayBuffer.isView(v)) return v;
    seen.add(v);
    if (Array.isArray(v)) {
      const items = v.map((x) => deep(x, seen));
      return items.some((x, i) => x !== v[i]) ? items : v;
    }
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      const key = text(k);
      const item = deep(x, seen);
      if (key !== k || item !== x) changed = true;
      out[key] = item;
    }
    return changed ? out : v;
  };
  const value = <T>(v: T): T => (re ? (deep(v, new WeakSet()) as T) : v);
  return {
    get active() {
      return re !== undefined;
    },
    add: (...more: string[]) => learn(more),
    text,
    value,
    output(o) {
      if (!re) return o;
      const media = o.media?.map((m) => {
        const data = blob(m.data);
        return data === m.data ? m : { ...m, data };
      });
      return {
        ...o,
        ...(o.text !== undefined ? { text: text(o.text) } : {}),
        ...(o.value !== undefined ? { value: value(o.value) } : {}),
        ...(o.raw !== undefined ? { raw: value(o.raw) } : {}),
        ...(o.json !== undefined ? { json: jsonTokens(o.json) } : {}),
        ...(media && media.some((m, i) => m !== o.media![i]) ? { media } : {}),
      };
    },
  };
}
