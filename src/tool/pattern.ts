/**
 * JSON Schema `pattern`s (and `patternProperties` keys) on RE2, in linear time, so a schema from
 * an MCP server or a saved script cannot stall the process with a backtracking pattern (ReDoS).
 *
 * RE2 has no lookaround and no back-references. A pattern using them is not refused outright
 * (that would make its field unusable) nor handed to a backtracking engine: it is checked with
 * the part RE2 can run. Lookaround groups only narrow what a pattern accepts, and a
 * back-reference stands for some text, so dropping the first and reading the second as "any
 * text" gives a pattern that accepts every value the original accepts: a value it refuses is
 * surely wrong; a value it accepts may still break the dropped part, which the tool then checks.
 * A pattern even that cannot compile is not checked. Each case is reported as a note (help text
 * of the tool, README "Tool schemas").
 */
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/** A compiled pattern as ajv uses it (`code.regExp`). */
export interface PatternTest {
  test(value: string): boolean;
  toString(): string;
}

/** How a pattern is checked: fully, partly (lookaround or back-references dropped), or not at all. */
export type PatternCheck = { kind: "full" | "partial" | "none"; test: PatternTest };

type Re2 = typeof import("re2js").RE2JS;
let re2: Re2 | undefined;
const cache = new Map<string, PatternCheck>();

function compileRe2(pattern: string, flags: string): PatternTest {
  re2 ??= (require("re2js") as typeof import("re2js")).RE2JS;
  const re = re2.compile(pattern, flags.includes("i") ? re2.CASE_INSENSITIVE : 0);
  // ajv keys its cache of patterns by toString(): each must say which pattern it is.
  return { test: (value: string) => re.matcher(value).find(), toString: () => `/${pattern}/${flags}` };
}

/** How `pattern` is checked (cached per pattern and flags). Never throws. */
export function checkPattern(pattern: string, flags = ""): PatternCheck {
  const key = `${flags}/${pattern}`;
  let hit = cache.get(key);
  if (hit) return hit;
  try {
    hit = { kind: "full", test: compileRe2(pattern, flags) };
  } catch {
    const reduced = withoutLookaround(pattern);
    try {
      if (reduced === undefined || reduced === pattern) throw new Error("no reduction");
      const test = compileRe2(reduced, flags);
      hit = { kind: "partial", test: { test: (v) => test.test(v), toString: () => `/${pattern}/${flags} (partial)` } };
    } catch {
      hit = { kind: "none", test: { test: () => true, toString: () => `/${pattern}/${flags} (unchecked)` } };
    }
  }
  if (cache.size > 10_000) cache.clear();
  cache.set(key, hit);
  return hit;
}

/** The regExp engine ajv is given (`code.regExp`). */
export function re2Engine(): ((pattern: string, flags: string) => PatternTest) & { code: string } {
  return Object.assign((pattern: string, flags: string) => checkPattern(pattern, flags).test, { code: 'require("re2js")' });
}

/**
 * `pattern` with lookaround groups removed and back-references (`\1`, `\k<name>`) read as any
 * text; undefined when its parentheses do not balance.
 */
export function withoutLookaround(pattern: string): string | undefined {
  let out = "";
  let i = 0;
  let inClass = false;
  while (i < pattern.length) {
    const c = pattern[i];
    if (c === "\\") {
      const next = pattern[i + 1] ?? "";
      if (!inClass && /[1-9]/.test(next)) {
        let j = i + 1;
        while (/[0-9]/.test(pattern[j] ?? "")) j++;
        out += "(?:[\\s\\S]*)";
        i = j;
        continue;
      }
      if (!inClass && next === "k" && pattern[i + 2] === "<") {
        const end = pattern.indexOf(">", i + 3);
        if (end < 0) return undefined;
        out += "(?:[\\s\\S]*)";
        i = end + 1;
        continue;
      }
      out += c + next;
      i += 2;
      continue;
    }
    if (inClass) {
      if (c === "]") inClass = false;
      out += c;
      i++;
      continue;
    }
    if (c === "[") {
      inClass = true;
      out += c;
      // A `]` right after `[` or `[^` is a literal.
      if (pattern[i + 1] === "^") out += pattern[++i];
      if (pattern[i + 1] === "]") out += pattern[++i];
      i++;
      continue;
    }
    if (c === "(" && /^\(\?(=|!|<=|<!)/.test(pattern.slice(i))) {
      const end = closingParen(pattern, i);
      if (end < 0) return undefined;
      i = end + 1;
      // A quantifier on the dropped group has nothing left to repeat.
      const q = /^(?:[*+?]|\{\d+(?:,\d*)?\})\??/.exec(pattern.slice(i));
      if (q) i += q[0].length;
      continue;
    }
    out += c;
    i++;
  }
  return out;
}

/** The index of the `)` closing the group that opens at `start`, or -1. */
function closingParen(pattern: string, start: number): number {
  let depth = 0;
  let inClass = false;
  for (let i = start; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") {
      i++;
      continue;
    }
    if (inClass) {
      if (c === "]") inClass = false;
      continue;
    }
    if (c === "[") inClass = true;
    else if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return i;
  }
  return -1;
}
