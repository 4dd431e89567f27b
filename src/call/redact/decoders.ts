/**
 * Readers of the text forms a secret can be wrapped in beyond URL and JSON encoding: hex (any case,
 * bytes run together or separated by `:`, spaces, `-`, line breaks, `\x` or `0x`), HTML character
 * references (decimal, hex, and the named ones of ASCII punctuation), `\u`/`\x` escapes outside
 * JSON strings, and line wraps. Each finds whole runs in one pass of a regular expression
 * ({@link replaceRuns}); the redactor decodes a run and replaces it whole when the decoded text holds a secret. See
 * docs/security.md ("Secrets").
 */
import { MIN_SECRET_LENGTH } from "./encodings.js";

/**
 * `text` with each whole run of `run` replaced by `fn(run)`. Run patterns bound their loop to
 * 10,000 units (`{1,10000}`): V8 keeps a backtrack entry for every turn of a `(?:…|…)+` loop, so
 * one run of millions of units (a 10 MB word of `&#x41;`, a minified file) overflowed its stack
 * and the redaction failed; bounded, a long run is matched in pieces put together again here. Matches that abut, or that only `joins` separates (what the pattern's
 * own loop would have taken, had it not been bounded), are one run: a greedy unbounded match
 * never leaves such a gap, so only a bound's cut is joined.
 */
export function replaceRuns(text: string, pattern: RegExp, fn: (run: string) => string, joins = /^$/): string {
  // A copy: `fn` may scan its run again with the same pattern (a second encoding), which would
  // reset a shared pattern's place in this text.
  const run = new RegExp(pattern.source, pattern.flags);
  let out = "";
  let from = 0;
  let start = -1;
  let end = -1;
  const flush = () => {
    if (start < 0) return;
    out += text.slice(from, start) + fn(text.slice(start, end));
    from = end;
  };
  for (let m = run.exec(text); m; m = run.exec(text)) {
    if (m[0] === "") {
      run.lastIndex++;
      continue;
    }
    if (start >= 0 && joins.test(text.slice(end, m.index))) {
      end = m.index + m[0].length;
      continue;
    }
    flush();
    start = m.index;
    end = m.index + m[0].length;
  }
  flush();
  return from === 0 && start < 0 ? text : out + text.slice(from);
}

/** A run of hex digits, bytes maybe separated (`de:ad`, `de ad`, `\xde\xad`, `0xde, 0xad`, over lines). */
export const HEX_RUN = /(?:\\x|0x)?[0-9A-Fa-f]+(?:(?:[\s:.,-]|\\x|0x){1,4}[0-9A-Fa-f]+){0,10000}/g;
/** What may separate two pieces of one {@link HEX_RUN}. */
export const HEX_JOINS = /^(?:[\s:.,-]|\\x|0x){0,4}$/;

/**
 * The bytes (as latin1 text) a hex run may spell, for both nibble alignments (a run may start
 * with a word's last letter); none when it is too short to hold a secret.
 */
export function hexBytes(run: string): string[] {
  const digits = run.replace(/\\x|0x|[^0-9A-Fa-f]/g, "");
  if (digits.length < 2 * MIN_SECRET_LENGTH) return [];
  return [0, 1].map((k) => Buffer.from(digits.slice(k, k + ((digits.length - k) & ~1)), "hex").toString("latin1"));
}

/** HTML's named references of the ASCII characters a secret or a URL holds (WHATWG HTML §13.5). */
const NAMED: Record<string, string> = {
  amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", sol: "/", bsol: "\\", plus: "+", equals: "=", lowbar: "_", colon: ":", semi: ";",
  num: "#", percnt: "%", period: ".", comma: ",", excl: "!", quest: "?", commat: "@", dollar: "$", lpar: "(", rpar: ")", ast: "*",
  midast: "*", lsqb: "[", rsqb: "]", lbrack: "[", rbrack: "]", lcub: "{", rcub: "}", lbrace: "{", rbrace: "}", verbar: "|", vert: "|",
  Hat: "^", grave: "`", hyphen: "\u2010", nbsp: "\u00a0", Tab: "\t", NewLine: "\n",
};
const REFERENCE = /&(?:#(\d{1,7})|#[xX]([0-9A-Fa-f]{1,6})|([A-Za-z][A-Za-z0-9]{1,7}));?/g;
/** A word holding character references (`sk&#x5F;live&#x2F;…`). */
export const ENTITY_RUN = /(?:[^\s<>"'&]|&(?:#\d{1,7}|#[xX][0-9A-Fa-f]{1,6}|[A-Za-z][A-Za-z0-9]{1,7});?){1,10000}/g;

const codePoint = (n: number, m: string): string => (n > 0 && n <= 0x10ffff ? String.fromCodePoint(n) : m);

/** `run` with its character references decoded (unknown names and code points left as written). */
export function entitiesDecoded(run: string): string {
  return run.replace(REFERENCE, (m, dec?: string, hex?: string, name?: string) =>
    dec ? codePoint(parseInt(dec, 10), m) : hex ? codePoint(parseInt(hex, 16), m) : (NAMED[name!] ?? m),
  );
}

/** A word holding `\uXXXX`, `\u{…}` or `\xNN` escapes, as JavaScript, Python and JSON write them. */
export const ESCAPE_RUN = /(?:\\u[0-9A-Fa-f]{4}|\\u\{[0-9A-Fa-f]{1,6}\}|\\U[0-9A-Fa-f]{8}|\\x[0-9A-Fa-f]{2}|\\[0-9A-Fa-f]{1,6} ?|\\[\\/'"]|[^\s\\"'<>]){1,10000}/g;

const ESCAPES = /\\u([0-9A-Fa-f]{4})|\\u\{([0-9A-Fa-f]{1,6})\}|\\U([0-9A-Fa-f]{8})|\\x([0-9A-Fa-f]{2})|()\\(.)/g;
const CSS_ESCAPES = /\\u([0-9A-Fa-f]{4})|\\u\{([0-9A-Fa-f]{1,6})\}|\\U([0-9A-Fa-f]{8})|\\x([0-9A-Fa-f]{2})|\\([0-9A-Fa-f]{1,6}) ?|\\(.)/g;

/**
 * `run` with its escapes decoded: JavaScript's and JSON's `\uXXXX` and `\u{…}`, Python's and C's
 * `\UXXXXXXXX` and `\xNN`; with `css`, a backslash and 1–6 hex digits (and the space that may end
 * them) is one code point as CSS writes it (`\73 \6b`) — read both ways, as `\6b` means
 * "6b" to a JSON reader.
 */
export function escapesDecoded(run: string, css = false): string {
  return run.replace(css ? CSS_ESCAPES : ESCAPES, (m, u?: string, cp?: string, big?: string, x?: string, hex?: string, c?: string) =>
    u ? String.fromCharCode(parseInt(u, 16)) : cp || big || hex ? codePoint(parseInt((cp || big || hex)!, 16), m) : x ? String.fromCharCode(parseInt(x, 16)) : c!,
  );
}

/**
 * A line break in any of its forms — LF, CRLF, a bare CR, the Unicode line and paragraph
 * separators, NEL, a vertical tab or form feed, one written as a JSON/C escape (`\n`, `\r\n`)
 * or as HTML (`<br>`) — with the spaces and tabs around it and the next line's quote marks
 * (`> `, as a quoted reply has them).
 */
const BREAK_FORMS = String.raw`(?:\r\n|[\n\r\u2028\u2029\u0085\v\f]|\\r\\n|\\[nr]|<br\s*\/?>)(?:[ \t]*>)*[ \t]*`;
/** A line break (see {@link BREAK_FORMS}): a wrap, and the next line's indentation. */
export const BREAK = new RegExp(String.raw`[ \t]*${BREAK_FORMS}`, "gi");
/** A word broken with a hyphen at the end of the line (`sk_live_Zq-⏎81Xv…`): the hyphen is part of the wrap. */
export const HYPHEN_BREAK = new RegExp(String.raw`-[ \t]*${BREAK_FORMS}`, "gi");
/** Whether `s` may hold a line break of any form (a cheap test before {@link unwrap}). */
export const MAY_BREAK = /[\n\r\u2028\u2029\u0085\v\f]|\\[nr]|<br/i;

/**
 * `s` with each match of `re` that spans a line break (a secret wrapped over lines, with or
 * without indentation) replaced whole by `replacement`, break included; matches within one line
 * are left to the plain match. One pass over `s` and one over its lines joined.
 */
export function unwrap(s: string, re: RegExp, replacement: string, breaks: RegExp = BREAK): string {
  /** Where each line starts in the joined text and in `s`. */
  const joinedAt: number[] = [];
  const sourceAt: number[] = [];
  let joined = "";
  let last = 0;
  for (const m of s.matchAll(breaks)) {
    joinedAt.push(joined.length);
    sourceAt.push(last);
    joined += s.slice(last, m.index);
    last = m.index + m[0].length;
  }
  if (!joinedAt.length) return s;
  joinedAt.push(joined.length);
  sourceAt.push(last);
  joined += s.slice(last);
  const line = (i: number): number => {
    let lo = 0;
    let hi = joinedAt.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (joinedAt[mid]! <= i) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  let out = "";
  let from = 0;
  for (const m of joined.matchAll(re)) {
    const first = line(m.index);
    const end = m.index + m[0].length - 1;
    const lastLine = line(end);
    if (first === lastLine) continue;
    const start = sourceAt[first]! + m.index - joinedAt[first]!;
    out += s.slice(from, start) + replacement;
    from = sourceAt[lastLine]! + end - joinedAt[lastLine]! + 1;
  }
  return from === 0 ? s : out + s.slice(from);
}

/** Whether the character code `c` is in the base64 alphabet (RFC 4648 §4 and §5), padding aside. */
const inBase64 = (c: number): boolean =>
  (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 43 || c === 47 || c === 45 || c === 95;
const blank = (c: string | undefined): boolean => c === " " || c === "\t";

/**
 * Where base64 wrapped over two or more lines sits in `s` (RFC 2045 §6.8), as `[start, end)`
 * pairs: a block may start after text on its first line, at any wrap width, with CRLF or LF
 * line ends and indented lines; its last line may carry `=` padding and text after it. One pass
 * over `s` by hand: a regular expression over repeated lines overflows the stack on megabytes.
 */
export function wrappedBase64(s: string): Array<[number, number]> {
  const blocks: Array<[number, number]> = [];
  let start = -1;
  let end = 0;
  let lines = 0;
  const close = (): void => {
    if (start >= 0 && lines >= 2) blocks.push([start, end]);
    start = -1;
  };
  for (let i = 0; i <= s.length; ) {
    const nl = s.indexOf("\n", i);
    const lineEnd = nl < 0 ? s.length : nl;
    let e = lineEnd;
    while (e > i && (s[e - 1] === "\r" || blank(s[e - 1]))) e--;
    let b = i;
    while (b < e && blank(s[b])) b++;
    let r = b;
    while (r < e && inBase64(s.charCodeAt(r))) r++;
    let p = r;
    while (p < e && p - r < 2 && s[p] === "=") p++;
    let from = i;
    if (start >= 0) {
      if (r > b) {
        lines++;
        end = p;
      }
      if (r === b || p !== e || p !== r) {
        close();
        from = r > b ? p : i;
      }
    }
    if (start < 0) {
      // A block starts with the run of base64 that ends a line.
      let t = e;
      while (t > from && inBase64(s.charCodeAt(t - 1))) t--;
      if (e - t >= 4) {
        start = t;
        end = e;
        lines = 1;
      }
    }
    i = lineEnd + 1;
  }
  close();
  return blocks;
}
