/**
 * Tool and source names as the `tools` command spells them.
 *
 * See README → The `tools` command (Names).
 */

import { displayName, editDistance, foldName, nameWords, spellsExactly } from "../tool/index.js";

export { displayName, editDistance, foldName, nameWords, spellsExactly };

/**
 * The tool `word` names among `tools`: an exact spelling first; else the one tool whose folded
 * name is the word's (none when several share it: each is reached by its exact spelling only).
 */
export function findByName<T extends { name: string }>(tools: readonly T[], word: string): T | undefined {
  const exact = tools.find((t) => t.name === word) ?? tools.find((t) => spellsExactly(word, t.name));
  if (exact) return exact;
  const f = foldName(word);
  let found: T | undefined;
  for (const t of tools) {
    if (foldName(t.name) !== f) continue;
    if (found) return undefined;
    found = t;
  }
  return found;
}

/** The names of the others of `tools` that share `tool`'s folded name. */
export function namesakes(tools: readonly { name: string }[], tool: { name: string }): string[] {
  const f = foldName(tool.name);
  return tools.filter((t) => t.name !== tool.name && foldName(t.name) === f).map((t) => t.name);
}

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

/** A tool's key in the one canonical form: `server tool` for a grouped tool, its name for a top-level one, folded. */
export function toolKey(tool: { name: string; source: string; grouped: boolean }): string {
  return tool.grouped ? `${foldName(tool.source)} ${foldName(tool.name)}` : foldName(tool.name);
}

/**
 * What a config entry (`approval.tools`, `keepVisible`, `allowedTools`) may name, in the one
 * canonical form of {@link toolKey}, with the tool's name as written. Spacing and case are free; a
 * grouped tool may be written `server tool`, `tools server tool`, `server__tool`,
 * `mcp_server__tool`, `mcp__server__tool`, `server/tool` or `server.tool`.
 */
export function entryKeys(entry: string): Array<{ key: string; spelled: string }> {
  const words = nameWords(entry);
  if (words.length === 0) return [];
  if (words.length > 1) {
    const spelled = words.slice(1).join("_");
    return [{ key: `${foldName(words[0])} ${foldName(spelled)}`, spelled }];
  }
  const w = words[0];
  const out = [{ key: foldName(w), spelled: w }];
  const m = /^mcp__?(.+?)__(.+)$/i.exec(w) ?? /^(.+?)__(.+)$/.exec(w) ?? /^([^/]+)\/(.+)$/.exec(w) ?? /^([^.]+)\.(.+)$/.exec(w);
  if (m) out.push({ key: `${foldName(m[1])} ${foldName(m[2])}`, spelled: m[2] });
  const plain = /^(.+?)__(.+)$/.exec(w);
  if (plain && plain !== m) out.push({ key: `${foldName(plain[1])} ${foldName(plain[2])}`, spelled: plain[2] });
  return out;
}

/**
 * True when config entry `entry` names `tool`. When other tools of its source share its folded
 * name (`others`, see {@link namesakes}), an entry spelling one of them exactly does not name it.
 */
export function entryNames(entry: string, tool: { name: string; source: string; grouped: boolean }, others: readonly string[] = []): boolean {
  const key = toolKey(tool);
  return entryKeys(entry).some((e) => e.key === key && (spellsExactly(e.spelled, tool.name) || !others.some((n) => spellsExactly(e.spelled, n))));
}
