/**
 * What is a secret: the values of a config that redaction looks for, and the credential parts of
 * compound values (a DSN, a connection string, a cookie). See docs/security.md ("Secrets").
 */
import type { ServerConfig } from "../../config/index.js";
import { MIN_SECRET_LENGTH } from "./encodings.js";

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
export function credentialParts(value: string, add: (v: string) => void, cookie = false): boolean {
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
 * A secret value and the parts of it that are secret alone, one rule for config values and for
 * secrets learned while running (OAuth tokens, the host's tokens): the value trimmed; the token of
 * a `Bearer …`/`Basic …`-style value; its credential parts (see {@link credentialParts}; every
 * pair's value when `name` names a cookie or session); and a JWT's signature (RFC 7519 §3: the
 * header is the same for every token and the claims are readable by design, the signature is
 * what makes the token valid). Values shorter than {@link MIN_SECRET_LENGTH} are left out.
 */
export function secretParts(value: string, name = ""): string[] {
  const out = new Set<string>();
  partsOf(value, name, 0, (v) => {
    if (v.length >= MIN_SECRET_LENGTH) out.add(v);
  });
  return [...out];
}

/** {@link secretParts} into `part`, `depth` levels of JSON-in-a-string down (bounded by {@link MAX_DEPTH}). */
function partsOf(value: string, name: string, depth: number, part: (v: string) => void): void {
  const t = value.trim();
  part(t);
  const scheme = /^[A-Za-z-]+\s+(\S{8,})$/.exec(t);
  const token = scheme ? scheme[1] : t;
  if (scheme) part(token);
  const jwt = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.([A-Za-z0-9_-]+)$/.exec(token);
  if (jwt) part(jwt[1]);
  credentialParts(t, part, COOKIE_NAME.test(name));
  structuredParts(t, part, depth);
}

/** A PEM armor line (`-----BEGIN PRIVATE KEY-----`): the same in every key, not a secret. */
const PEM_ARMOR = /^-----(BEGIN|END) [A-Z0-9 ]+-----$/;
/** Lines of a multi-line secret that are opaque text (base64, hex, a token) and at least this long are secret alone (a PEM body's lines are 64). */
const MIN_LINE = 16;
const OPAQUE_LINE = /^[A-Za-z0-9+/=_.~-]+$/;
/** How many leaves of a JSON secret are read, and how deep: a credential file is small. */
const MAX_LEAVES = 2000;
const MAX_DEPTH = 32;
/** Words of a key that make its value a credential, alone or with others (`client_secret`, `private_key_id`). */
const CREDENTIAL_WORDS = new Set(["secret", "password", "passwd", "passphrase", "pwd", "pass", "credential", "credentials", "key", "token", "apikey", "signature", "sig", "cookie"]);
/** Last words of a key that name something about a credential, not the credential (`token_uri`, `key_type`). */
const ABOUT_WORDS = new Set(["uri", "url", "urls", "endpoint", "type", "name", "names", "path", "file", "expiry", "expires", "expiration", "ttl", "length", "size", "count", "format", "algorithm", "alg", "kind", "scheme", "header", "prefix", "hint", "label", "location", "region", "version", "field", "env", "provider", "required", "enabled"]);
/** `key: value` and `key = value` lines (YAML, TOML, INI, dotenv with spaces). */
const ASSIGNMENT_LINE = /^\s*(?:export\s+)?["']?([A-Za-z_][A-Za-z0-9_.-]*)["']?\s*[:=]\s*["']?([^"'\s#,;]+)["']?\s*(?:[#;].*)?$/;

/**
 * True when a key names a credential: one of its words (split at `_`, `-`, `.` and camelCase) is
 * a credential word and its last word does not name something about one (`token_uri`,
 * `key_type`, `auth_required`, `keyboard`, `author` are not credentials).
 */
export function credentialKey(key: string): boolean {
  const words = key.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);
  if (!words.length || ABOUT_WORDS.has(words[words.length - 1])) return false;
  return words.some((w) => CREDENTIAL_WORDS.has(w));
}

/**
 * The parts of a structured secret a program may print alone: each opaque line (base64, hex, a
 * token: {@link MIN_LINE} characters or more, armor lines left out) of a multi-line value, as a
 * PEM private key's body, whatever its line breaks; the value of each `key: value` / `key =
 * value` line whose key names a credential (YAML, TOML, INI); and of a JSON value (a credential
 * file such as a service account's) every string or number under a key that names a credential
 * ({@link credentialKey}), by the one rule of {@link secretParts} (so a `private_key` holding PEM
 * gives its lines), every `{"name": "api_key", "value": …}` pair's value, JSON held in a string,
 * and every URL's credential parts. A JSON string under a neutral key (`type`, `client_email`,
 * `token_uri`'s public URL) is not a secret alone.
 */
function structuredParts(value: string, part: (v: string) => void, depth = 0): void {
  const multiLine = /[\r\n]/.test(value);
  for (const line of value.split(/\r\n|\r|\n/)) {
    const l = line.trim();
    if (multiLine && l.length >= MIN_LINE && OPAQUE_LINE.test(l) && !PEM_ARMOR.test(l)) part(l);
    const assigned = ASSIGNMENT_LINE.exec(line);
    if (assigned && credentialKey(assigned[1])) part(assigned[2]);
  }
  if (!/^\s*[[{]/.test(value) || depth > MAX_DEPTH) return;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return;
  }
  let leaves = 0;
  const walk = (v: unknown, key: string, d: number): void => {
    if (leaves >= MAX_LEAVES || d > MAX_DEPTH) return;
    if (typeof v === "string" || typeof v === "number") {
      leaves++;
      const text = String(v);
      // A credential whole (and its parts); else only what a neutral string may hold: a URL's
      // password, credential-named pairs, JSON written inside it (a config value holding a credential file).
      if (credentialKey(key)) partsOf(text, key, depth + 1, part);
      else if (typeof v === "string") {
        credentialParts(text, part);
        structuredParts(text, part, depth + 1);
      }
    } else if (Array.isArray(v)) {
      for (const x of v) walk(x, key, d + 1);
    } else if (v && typeof v === "object") {
      const o = v as Record<string, unknown>;
      // A name/value pair (`[{"name": "api_key", "value": "…"}]`, as Kubernetes and AWS write them).
      const named = o.name ?? o.Name ?? o.key ?? o.Key;
      const val = o.value ?? o.Value;
      if (typeof named === "string" && (typeof val === "string" || typeof val === "number") && credentialKey(named)) partsOf(String(val), named, depth + 1, part);
      for (const [k, x] of Object.entries(o)) walk(x, k, d + 1);
    }
  };
  walk(parsed, "", 0);
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
    if (typeof v === "string") for (const p of secretParts(v, name)) out.add(p);
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
