/**
 * Small text helpers shared by the catalog ("did you mean", command words), the MCP config (typo
 * checks) and MCP sources (one command, one tool).
 *
 * See README → The `tools` command (Names).
 */

/** Levenshtein distance between two strings (for "did you mean"). */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  const prev = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0];
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j];
      prev[j] = Math.min(prev[j] + 1, prev[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = tmp;
    }
  }
  return prev[b.length];
}

/** The key two spellings of one name share: NFKC (full-width letters), invisible characters dropped, `-` and `_` folded to `_`, lower case (docs/security.md "One canonical form"). */
export function foldName(name: string): string {
  let folded = folds.get(name);
  if (folded === undefined) {
    folded = name.normalize("NFKC").replace(INVISIBLE, "").replace(/-/g, "_").toLowerCase();
    // Every nested call folds the names of its server's tools (catalog/names.ts `namesakes`): the
    // same few hundred names over and over, so each is folded once (kept up to FOLDS_KEPT names).
    if (folds.size >= FOLDS_KEPT) folds.clear();
    folds.set(name, folded);
  }
  return folded;
}

const folds = new Map<string, string>();
const FOLDS_KEPT = 10_000;

/** Characters that draw nothing (format and control characters, fillers): no part of a name's canonical form. */
const INVISIBLE = /[\p{Cf}\p{Cc}\p{Variation_Selector}\u115f\u1160\u3164\uffa0\u2800]|\u034f/gu;

/**
 * True when `word` names `name` exactly as written: the name itself or its shown spelling. When
 * two names of one source share a folded form (`get-report`, `GET_REPORT`), only an exact spelling
 * reaches either, in commands and in config rules alike.
 */
export function spellsExactly(word: string, name: string): boolean {
  return word === name || word === displayName(name);
}

/**
 * The words of a tool named in config or on a command line, as written: any whitespace, a
 * leading `tools` in any case (`"TOOLS  fake\tget-report"` → `["fake", "get-report"]`).
 */
export function nameWords(text: string): string[] {
  const words = text.trim().split(/\s+/).filter(Boolean);
  return words.length > 1 && words[0].toLowerCase() === "tools" ? words.slice(1) : words;
}

/** How a name is shown in help and runnable lines: underscores as hyphens (`list_pulls` → `list-pulls`). */
export function displayName(name: string): string {
  return name.replace(/_/g, "-");
}
