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
  /** A deep copy of `v` with secrets replaced in every string (keys included); `v` itself when nothing matched. */
  value<T>(v: T): T;
  /** A tool output with secrets replaced in its text, JSON value and raw return (media data left as is). */
  output(o: ToolOutput): ToolOutput;
  /**
   * Adds secrets learned while running (OAuth tokens obtained by a sign-in or a refresh); from
   * then on they are redacted like config secrets. Strings shorter than {@link MIN_SECRET_LENGTH} are ignored.
   */
  add(...secrets: string[]): void;
}

/** Names of URL query parameters and command-line flags that carry credentials. */
const SECRET_NAME = /key|token|secret|passw|pwd|auth|credential|signature|sig$/i;

/**
 * The secrets of a config: every `env` value of a stdio server and every `headers` value of an
 * HTTP server, plus the token part of `Bearer …`/`Basic …`-style header values; the user name and
 * password of a server URL and the values of its credential-named query parameters (`api_key=…`);
 * the values of a stdio server's credential-named flags (`--token X`, `--api-key=X`); and an HTTP
 * server's `oauth.clientSecret`.
 * Values shorter than {@link MIN_SECRET_LENGTH} characters are left out.
 */
export function configSecrets(config: { servers: readonly ServerConfig[] }): string[] {
  const out = new Set<string>();
  const add = (v: unknown): void => {
    if (typeof v !== "string") return;
    const t = v.trim();
    if (t.length >= MIN_SECRET_LENGTH) out.add(t);
    const m = /^[A-Za-z-]+\s+(\S{8,})$/.exec(t);
    if (m) out.add(m[1]);
  };
  for (const s of config.servers) {
    if (s.type === "stdio") {
      for (const v of Object.values(s.env)) add(v);
      s.args.forEach((arg, i) => {
        const flag = /^--?([A-Za-z0-9_-]+)(?:=(.*))?$/s.exec(arg);
        if (!flag || !SECRET_NAME.test(flag[1])) return;
        add(flag[2] !== undefined ? flag[2] : s.args[i + 1]);
      });
    } else {
      for (const v of Object.values(s.headers)) add(v);
      if (s.oauth) add(s.oauth.clientSecret);
      let url: URL | undefined;
      try {
        url = new URL(s.url);
      } catch {}
      if (url) {
        // As written in the URL (errors quote it) and decoded (what the server receives).
        for (const part of [url.username, url.password]) {
          add(part);
          try {
            add(decodeURIComponent(part));
          } catch {}
        }
        for (const [name, value] of url.searchParams) if (SECRET_NAME.test(name)) add(value);
      }
    }
  }
  return [...out];
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * A redactor over `secrets` (strings shorter than {@link MIN_SECRET_LENGTH} are ignored). Longer
 * secrets are matched first so one that contains another is replaced whole. Also matches a
 * secret as it appears inside a JSON string (quotes and backslashes escaped).
 */
export function createRedactor(secrets: Iterable<string>): Redactor {
  const list = new Set<string>();
  let re: RegExp | undefined;
  const learn = (more: Iterable<string>): void => {
    const size = list.size;
    for (const secret of more) {
      if (typeof secret !== "string" || secret.length < MIN_SECRET_LENGTH) continue;
      // Also as toolshell itself rewrites names a server gives (an untrusted server may name a
      // tool after its key): shown with hyphens (displayName), looked up folded (foldName).
      for (const s of new Set([secret, secret.replace(/_/g, "-"), secret.replace(/-/g, "_").toLowerCase()])) {
        list.add(s);
        const json = JSON.stringify(s).slice(1, -1);
        if (json !== s) list.add(json);
      }
    }
    if (list.size === size && re !== undefined) return;
    const sorted = [...list].sort((a, b) => b.length - a.length);
    re = sorted.length ? new RegExp(sorted.map(escape).join("|"), "g") : undefined;
  };
  learn(secrets);
  const text = (s: string): string => (re && s ? s.replace(re, REDACTED) : s);
  // JSON text as a source wrote it: a string may spell a secret with escapes (`\u0073k_…`), and
  // a key written twice hides one from the parsed value; each string token is decoded, and
  // written again redacted when it holds a secret (docs/mcp.md "Integers beyond 2^53").
  const jsonTokens = (j: string): string =>
    text(
      j.replace(/"(?:[^"\\]|\\.)*"/g, (token) => {
        let decoded: unknown;
        try {
          decoded = JSON.parse(token);
        } catch {
          return token;
        }
        if (typeof decoded !== "string") return token;
        const redacted = text(decoded);
        return redacted === decoded ? token : JSON.stringify(redacted);
      }),
    );
  const deep = (v: unknown, seen: WeakSet<object>): unknown => {
    if (typeof v === "string") return text(v);
    if (v === null || typeof v !== "object") return v;
    if (seen.has(v)) return v;
    seen.add(v);
    if (Array.isArray(v)) return v.map((x) => deep(x, seen));
    if (ArrayBuffer.isView(v)) return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[text(k)] = deep(x, seen);
    return out;
  };
  const value = <T>(v: T): T => {
    if (!re) return v;
    // Cheap check first: most values hold no secret and are returned as they are.
    let probe: string | undefined;
    try {
      probe = typeof v === "string" ? v : JSON.stringify(v);
    } catch {
      probe = undefined;
    }
    if (probe !== undefined && !new RegExp(re.source).test(probe)) return v;
    return deep(v, new WeakSet()) as T;
  };
  return {
    get active() {
      return re !== undefined;
    },
    add: (...more: string[]) => learn(more),
    text,
    value,
    output(o) {
      if (!re) return o;
      return {
        ...o,
        ...(o.text !== undefined ? { text: text(o.text) } : {}),
        ...(o.value !== undefined ? { value: value(o.value) } : {}),
        ...(o.raw !== undefined ? { raw: value(o.raw) } : {}),
        ...(o.json !== undefined ? { json: jsonTokens(o.json) } : {}),
      };
    },
  };
}
