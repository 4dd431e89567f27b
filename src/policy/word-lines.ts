/**
 * Lines inside a word, for naming the line of a call the script reader finds
 * (docs/architecture.md, "One shell call", step 3): a part of a word starts as many lines below
 * the word as the text before it has newlines.
 */
type Part = { type?: string; value?: unknown; parts?: unknown[] };

/** Newlines in a word part's written text (literal and quoted text; 0 for expansions). */
export function newlines(part: unknown): number {
  const p = part as Part | null;
  if (p?.type === "Literal" || p?.type === "SingleQuoted" || p?.type === "Escaped") return String(p.value).split("\n").length - 1;
  if (p?.type === "DoubleQuoted" && Array.isArray(p.parts)) return p.parts.reduce<number>((sum, q) => sum + newlines(q), 0);
  return 0;
}
