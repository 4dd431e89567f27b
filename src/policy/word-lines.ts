/**
 * Words of a script as the script reader sees them: their literal text, and the lines inside a
 * word, for naming the line of a call the reader finds (docs/architecture.md, "One shell call",
 * step 3): a part of a word starts as many lines below the word as the text before it has newlines.
 */
type Part = { type?: string; value?: unknown; parts?: unknown[] };

/** Newlines in a word part's written text (literal and quoted text; 0 for expansions). */
export function newlines(part: unknown): number {
  const p = part as Part | null;
  if (p?.type === "Literal" || p?.type === "SingleQuoted" || p?.type === "Escaped") return String(p.value).split("\n").length - 1;
  if (p?.type === "DoubleQuoted" && Array.isArray(p.parts)) return p.parts.reduce<number>((sum, q) => sum + newlines(q), 0);
  return 0;
}

/** A literal word's text, or undefined when any part is built at run time. */
export function literalOf(word: unknown): string | undefined {
  if (!word || typeof word !== "object") return undefined;
  const parts = (word as { parts?: Part[] }).parts;
  if (!Array.isArray(parts)) return undefined;
  let out = "";
  for (const p of parts) {
    if (p.type === "Literal" || p.type === "SingleQuoted" || p.type === "Escaped") out += String(p.value);
    else if (p.type === "DoubleQuoted") {
      const inner = literalOf({ parts: p.parts });
      if (inner === undefined) return undefined;
      out += inner;
    } else return undefined;
  }
  return out;
}
