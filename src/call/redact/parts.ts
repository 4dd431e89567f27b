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
  const part = (v: string): void => {
    if (v.length >= MIN_SECRET_LENGTH) out.add(v);
  };
  const t = value.trim();
  part(t);
  const scheme = /^[A-Za-z-]+\s+(\S{8,})$/.exec(t);
  const token = scheme ? scheme[1] : t;
  if (scheme) part(token);
  const jwt = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.([A-Za-z0-9_-]+)$/.exec(token);
  if (jwt) part(jwt[1]);
  credentialParts(t, part, COOKIE_NAME.test(name));
  structuredParts(t, part);
  return [...out];
}

/** A PEM armor line (`-----BEGIN PRIVATE KEY-----`): the same in every key, not a secret. */
const PEM_ARMOR = /^-----(BEGIN|END) [A-Z0-9 ]+-----$/;
/** Lines of a multi-line secret at least this long are secret alone (a PEM body's lines are 64). */
const MIN_LINE = 16;
/** How many leaves of a JSON secret are read, and how deep: a credential file is small. */
const MAX_LEAVES = 500;
const MAX_DEPTH = 10;

/**
 * The parts of a structured secret a program may print alone: each line (of at least
 * {@link MIN_LINE} characters, armor lines left out) of a multi-line value, as a PEM private key's
 * body; and of a JSON value (a service account's credential file, `{"client_secret": …}`), every
 * string whose key names a credential, by the one rule of {@link secretParts} (so a `private_key`
 * holding PEM gives its lines), and every URL's credential parts. A JSON string under a neutral
 * key (`type`, `client_email`, `token_uri`'s public URL) is not a secret alone.
 */
function structuredParts(value: string, part: (v: string) => void): void {
  if (value.includes("\n")) {
    for (const line of value.split(/\r?\n/)) {
      const l = line.trim();
      if (l.length >= MIN_LINE && !PEM_ARMOR.test(l)) part(l);
    }
  }
  if (!/^[[{]/.test(value)) return;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return;
  }
  let leaves = 0;
  const walk = (v: unknown, key: string, depth: number): void => {
    if (leaves >= MAX_LEAVES || depth > MAX_DEPTH) return;
    if (typeof v === "string") {
      leaves++;
      credentialParts(v, part);
      if (SECRET_NAME.test(key) && !/^[A-Za-z][A-Za-z0-9+.-]*:\/\/\S+$/.test(v)) for (const p of secretParts(v, key)) part(p);
    } else if (Array.isArray(v)) {
      for (const x of v) walk(x, key, depth + 1);
    } else if (v && typeof v === "object") {
      for (const [k, x] of Object.entries(v)) walk(x, k, depth + 1);
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
