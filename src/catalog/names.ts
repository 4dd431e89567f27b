/**
 * Tool and source names as the `tools` command spells them.
 *
 * Rule source: README → The tools command ("Hyphens and underscores are
 * interchangeable"; `mcp_github__list_pulls` is `tools github list-pulls`).
 */

import { displayName, editDistance, foldName } from "../tool/index.js";

export { displayName, editDistance, foldName };

/**
 * The candidates closest to `word`, best first: prefix/substring matches, then small edit
 * distances (≤ max(2, a third of the word)). At most `limit`.
 */
export function closest(word: string, candidates: string[], limit = 3): string[] {
  const w = foldName(word);
  const scored: Array<[number, string]> = [];
  for (const c of candidates) {
    const f = foldName(c);
    let score: number;
    if (f.startsWith(w) || w.startsWith(f)) score = 0.5;
    else if (f.includes(w) || w.includes(f)) score = 1;
    else {
      const d = editDistance(w, f);
      if (d > Math.max(2, Math.floor(w.length / 3))) continue;
      score = 1 + d;
    }
    scored.push([score, c]);
  }
  scored.sort((x, y) => x[0] - y[0] || x[1].localeCompare(y[1]));
  return [...new Set(scored.map((s) => s[1]))].slice(0, limit);
}
