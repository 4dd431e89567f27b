/**
 * The string and number tokens of JSON text, found in one pass: the one tokenizer redaction uses
 * both for a server's raw JSON text (strings and numbers, docs/mcp.md "Integers beyond 2^53") and
 * for JSON strings written with escapes inside any text (docs/security.md "Secrets").
 *
 * Each character is read once, however the quotes pair up: a string token ends at its closing
 * quote; one left open ends at the line's end (JSON strings hold no raw newline), and the scan
 * goes on from there, so invalid input costs no more than valid input.
 */

/** A JSON number starting at `lastIndex` (sticky). */
const NUMBER_AT = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * `s` with each quoted string token (and, with `numbers`, each number token outside strings)
 * for which `change` returns text replaced by that text; `s` itself when nothing changed.
 */
export function rewriteJsonTokens(s: string, change: (token: string) => string | undefined, numbers = false): string {
  let out = "";
  /** Start of the text not yet copied to `out`. */
  let from = 0;
  const replace = (start: number, end: number): void => {
    const next = change(s.slice(start, end));
    if (next === undefined) return;
    out += s.slice(from, start) + next;
    from = end;
  };
  let i = 0;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (c === 0x22) {
      let j = i + 1;
      while (j < s.length && s[j] !== '"' && s[j] !== "\n") j += s[j] === "\\" ? 2 : 1;
      if (j >= s.length || s[j] !== '"') {
        i = j;
        continue;
      }
      replace(i, j + 1);
      i = j + 1;
    } else if (!numbers) {
      const q = s.indexOf('"', i + 1);
      i = q < 0 ? s.length : q;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      NUMBER_AT.lastIndex = i;
      const m = NUMBER_AT.exec(s);
      if (!m) {
        i++;
        continue;
      }
      replace(i, i + m[0].length);
      i += m[0].length;
    } else i++;
  }
  return from === 0 ? s : out + s.slice(from);
}
