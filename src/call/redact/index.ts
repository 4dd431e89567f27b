/**
 * Redaction of secrets from config: the values of every server's `env` and `headers` (after
 * `${VAR}` expansion) never appear in an event, a tool's output as the script sees it, or a
 * shell call's result.
 *
 * The call pipeline applies it to every call's output and error (its `redact` step), whatever the
 * surface; sessions apply it to events and shell results. See docs/security.md ("Secrets").
 */
import type { ToolOutput } from "../../tool/index.js";
import { alternation, base64Cores, BASE64URL, formsOf, isBase64, JSON_ESCAPE, MIN_SECRET_LENGTH, NUMBER, PERCENT_RUN, percentDecoded } from "./encodings.js";
import { ENTITY_RUN, entitiesDecoded, ESCAPE_RUN, escapesDecoded, HEX_JOINS, HEX_RUN, hexBytes, HYPHEN_BREAK, MAY_BREAK, replaceRuns, unwrap, wrappedBase64 } from "./decoders.js";
import { rewriteJsonTokens } from "./tokenizer.js";

export { MIN_SECRET_LENGTH } from "./encodings.js";
export { configSecrets } from "./parts.js";
import { secretParts } from "./parts.js";

/** What a redacted secret is replaced with. */
export const REDACTED = "[REDACTED]";

/** The longest string a redactor remembers scanning, and how many it remembers (see `once`). */
const SCANNED_CHARS = 256;
const SCANNED_KEPT = 2048;


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
  /** The secrets as given (to build the same redactor elsewhere: off-thread.ts). */
  given(): string[];
}

/** The text of a JSON string token; undefined when it is not one. */
function parsedString(token: string): string | undefined {
  try {
    const d: unknown = JSON.parse(token);
    return typeof d === "string" ? d : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A redactor over `secrets` (strings shorter than {@link MIN_SECRET_LENGTH} are ignored), by
 * every form a secret takes (see {@link formsOf}): in text, also as its base64 text; in a JSON
 * value, in every string and key, a number that spells a secret (or that a numeric secret
 * rounds to: its digits beyond 2^53 are not there to compare) becomes the string
 * {@link REDACTED}; base64 data (a media block, a resource's `blob`) is decoded, redacted as
 * bytes and encoded again.
 */
export function createRedactor(secrets: Iterable<string>): Redactor {
  const given: string[] = [];
  const known = new Set<string>();
  /** Forms matched in text (with the base64 cores). */
  let re: RegExp | undefined;
  /** Forms matched in decoded bytes (each form's UTF-8 bytes as latin1 text). */
  let bytesRe: RegExp | undefined;
  /** The numbers a numeric form stands for. */
  const numbers = new Set<number>();
  const learn = (more: Iterable<string>): void => {
    const size = known.size;
    // Every secret by the one rule of its parts (config values, and OAuth tokens learned while running).
    for (const secret of more) {
      if (typeof secret !== "string") continue;
      given.push(secret);
      for (const p of secretParts(secret)) known.add(p);
    }
    if (known.size === size && re !== undefined) return;
    const forms = new Set<string>();
    for (const secret of known) for (const f of formsOf(secret)) forms.add(f);
    numbers.clear();
    for (const f of forms) if (NUMBER.test(f)) numbers.add(Number(f));
    // Bytes: each form in UTF-8, and each secret in UTF-16 (little- and big-endian: Windows text,
    // PowerShell's -EncodedCommand), so hex and base64 of either are read.
    const utf16 = [...known].map((k) => Buffer.from(k, "utf16le"));
    const wide = utf16.flatMap((b) => [b.toString("latin1"), Buffer.from(b).swap16().toString("latin1")]);
    bytesRe = alternation([...[...forms].map((f) => Buffer.from(f, "utf8").toString("latin1")), ...wide]);
    re = alternation([...forms, ...[...known].flatMap((k) => base64Cores(k)), ...utf16.flatMap((b) => [...base64Cores(b), ...base64Cores(Buffer.from(b).swap16())])]);
    scanned.clear();
  };
  /**
   * Short strings already scanned, and what they became: an event's strings (its session, type,
   * tool, command, status) come back on every call, and each scan is a dozen regular expressions.
   * Emptied whenever the secrets change; strings over {@link SCANNED_CHARS} are scanned each time.
   */
  const scanned = new Map<string, string>();
  const once = (kind: string, s: string, scan: (s: string) => string): string => {
    if (s.length > SCANNED_CHARS) return scan(s);
    const key = kind + s;
    let out = scanned.get(key);
    if (out === undefined) {
      out = scan(s);
      if (scanned.size >= SCANNED_KEPT) scanned.clear();
      // Kept as flat copies: a short string cut from a large one (a slice of a server's stderr
      // chunk, a regex match) would keep the whole large string alive for as long as it is kept.
      scanned.set(flatCopy(key), out === s ? flatCopy(s) : out);
    }
    return out;
  };
  learn(secrets);
  const plain = (s: string): string => (re && s ? s.replace(re, REDACTED) : s);
  const hidesBytes = (latin1: string): boolean => {
    bytesRe!.lastIndex = 0;
    return bytesRe!.test(latin1);
  };
  /** Base64 data with the secrets in its bytes redacted; `s` itself when it is not base64 or holds none. */
  const blob = (s: string): string => {
    if (!bytesRe || s.length < 12) return s;
    const compact = s.replace(/\s+/g, "");
    const url = !isBase64(compact);
    if (url && !BASE64URL.test(compact)) return s;
    const latin1 = Buffer.from(compact, url ? "base64url" : "base64").toString("latin1");
    bytesRe.lastIndex = 0;
    if (!bytesRe.test(latin1)) return s;
    return Buffer.from(latin1.replace(bytesRe, REDACTED), "latin1").toString(url ? "base64url" : "base64");
  };
  /** A string token written with escapes, written again redacted when its decoded text holds a secret. */
  const escapedString = (token: string): string | undefined => {
    if (!token.includes("\\")) return undefined;
    const d = parsedString(token);
    return d !== undefined && plain(d) !== d ? JSON.stringify(plain(d)) : undefined;
  };
  /**
   * `s` with every secret replaced, also where the text wraps it in a form the plain match misses:
   * percent-encoding however written (lower-case hex, every byte encoded, encoded twice; RFC 3986
   * §2.1); a JSON string written with escapes (`\u0073k_…`, `\/`); base64 wrapped over lines (RFC
   * 2045 §6.8). Such a run is replaced whole.
   */
  const text = (s: string): string => once("t", s, (x) => scanText(x, 0));
  /**
   * An encoding of an encoding (base64 of hex, hex of base64, base64 of base64 or of percent, …):
   * a run of base64 or hex whose bytes are printable text is scanned again as text, once more at
   * most, and replaced whole when that text holds a secret in any form.
   */
  const encodedTwice = (run: string, depth: number, bytes: string[]): boolean => {
    for (const b of bytes) {
      const t = printableText(b);
      if (t !== undefined && t !== run && scanText(t, depth + 1) !== t) return true;
    }
    return false;
  };
  const scanText = (s: string, depth: number): string => {
    let out = plain(s);
    if (!re || !out) return out;
    const hides = (d: string): boolean => plain(d) !== d;
    if (out.includes("%")) {
      out = replaceRuns(out, PERCENT_RUN, (run) => {
        // Runs are matched whole (linear); only those holding an escape are decoded.
        for (let d = run, i = 0; i < 3 && /%(?:[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4})/.test(d); i++) {
          d = percentDecoded(d);
          if (hides(d) || hides(d.replace(/\+/g, " "))) return REDACTED;
        }
        return run;
      });
    }
    if (out.includes("\\") && hides(out.replace(JSON_ESCAPE, (m, hex?: string) => (hex ? String.fromCharCode(parseInt(hex, 16)) : m[1])))) out = rewriteJsonTokens(out, escapedString);
    if (out.includes("&")) out = replaceRuns(out, ENTITY_RUN, (run) => (run.includes("&") && hides(entitiesDecoded(run)) ? REDACTED : run));
    if (out.includes("\\")) out = replaceRuns(out, ESCAPE_RUN, (run) => (run.includes("\\") && (hides(escapesDecoded(run)) || hides(escapesDecoded(run, true))) ? REDACTED : run));
    out = replaceRuns(
      out,
      HEX_RUN,
      (run) => {
        const bytes = hexBytes(run);
        return bytes.some(hidesBytes) || (depth < 1 && run.length >= 2 * MIN_SECRET_LENGTH && encodedTwice(run, depth, bytes)) ? REDACTED : run;
      },
      HEX_JOINS,
    );
    if (depth < 1) out = replaceRuns(out, BASE64_RUN, (run) => (run.length >= 12 && encodedTwice(run, depth, base64Bytes(run)) ? REDACTED : run));
    // A secret wrapped over lines, in any form of line break (with or without a hyphen).
    if (MAY_BREAK.test(out)) out = unwrap(unwrap(out, re, REDACTED), re, REDACTED, HYPHEN_BREAK);
    if (out.includes("\n")) {
      // A block may start after text on its line, so the characters before it in the same word
      // are tried as part of it and not (the four alignments of a base64 group).
      let wrapped = "";
      let from = 0;
      for (const [start, end] of wrappedBase64(out)) {
        const compact = out.slice(start, end).replace(/\s+/g, "");
        for (let k = 0; k < 4; k++) {
          const b = blob(compact.slice(k));
          if (b === compact.slice(k)) continue;
          wrapped += out.slice(from, start) + compact.slice(0, k) + b;
          from = end;
          break;
        }
      }
      if (from) out = wrapped + out.slice(from);
    }
    return out;
  };
  const str = (s: string): string => once("s", s, (x) => text(blob(x)));
  const secretNumber = (n: number | bigint): boolean => numbers.has(Number(n)) || text(String(n)) !== String(n);
  // JSON text as a source wrote it: a string may spell a secret with escapes (`\u0073k_…`), and
  // a key written twice hides one from the parsed value; each string token is decoded, and
  // written again redacted when it holds a secret; a number token spelling one becomes the
  // string REDACTED, so the text stays JSON (docs/mcp.md "Integers beyond 2^53").
  const jsonTokens = (j: string): string =>
    text(
      rewriteJsonTokens(
        j,
        (token) => {
          if (token[0] !== '"') return secretNumber(Number(token)) || text(token) !== token ? JSON.stringify(REDACTED) : undefined;
          const decoded = parsedString(token);
          if (decoded === undefined) return undefined;
          const redacted = str(decoded);
          return redacted === decoded ? undefined : JSON.stringify(redacted);
        },
        true,
      ),
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
    given: () => [...new Set(given)],
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

/** Runs of base64 (either alphabet) long enough to carry a secret's encoding, at most 64 KiB each. */
const BASE64_RUN = /[A-Za-z0-9+/_-]{12,65536}={0,2}/g;

/** The bytes (as latin1) of a base64 run, in each alignment it may start at within its word. */
function base64Bytes(run: string): string[] {
  const url = /[-_]/.test(run);
  const out: string[] = [];
  for (let k = 0; k < 4; k++) {
    const part = run.slice(k);
    if (part.length >= 12) out.push(Buffer.from(part, url ? "base64url" : "base64").toString("latin1"));
  }
  return out;
}

/** `latin1` as text when its bytes are printable UTF-8 (an encoding of a secret is), else undefined. */
function printableText(latin1: string): string | undefined {
  if (latin1.length < MIN_SECRET_LENGTH) return undefined;
  const t = Buffer.from(latin1, "latin1").toString("utf8");
  let printable = 0;
  for (const ch of t) if (ch >= " " && ch !== "\u007f" && ch !== "\ufffd") printable++;
  return printable >= t.length * 0.95 ? t : undefined;
}

/** A copy of `s` in a string of its own (no reference to a larger string it was cut from). */
function flatCopy(s: string): string {
  return s.split("").join("");
}
