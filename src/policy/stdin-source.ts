/**
 * Where a `tools` call's stdin comes from, as far as reading the script can prove. A call given no
 * input words (or `-`) reads its input from stdin; that stdin may be set by the call's own
 * redirection, a pipe, or any enclosing group, loop, `if`, function call or the shell call itself
 * (docs/security.md, "The preflight").
 */
import { literalOf } from "./word-lines.js";

/** The stdin around a command while the script is read. */
export type StdinContext =
  | { k: "shell" }
  | { k: "function"; name: string }
  | { k: "literal"; text: string }
  | { k: "unknown"; why: string };

/** A call's stdin once the whole script is read. */
export type StdinSource =
  | { kind: "none" }
  /** A text written in the script (a here-document, a here-string, the shell call's stdin); `enclosing` when it is not the call's own redirection. */
  | { kind: "literal"; text: string; enclosing: boolean }
  | { kind: "unknown"; enclosing: boolean; why: string };

const READS = new Set(["<", "<<", "<<-", "<<<", "<&", "<>"]);

/**
 * A here-document's text when nothing in it is built at run time. Its body is not expanded as
 * pathnames: a `[`, `*` or `?` there (the parser marks them as glob parts) is text, as bash
 * writes it; `$`, backquotes and escapes still make it run-time text.
 */
function hereDocText(word: unknown): string | undefined {
  const parts = (word as { parts?: Array<{ type?: string; pattern?: unknown }> } | undefined)?.parts;
  if (!Array.isArray(parts)) return literalOf(word);
  return literalOf({ ...(word as object), parts: parts.map((p) => (p.type === "Glob" && typeof p.pattern === "string" ? { type: "Literal", value: p.pattern } : p)) });
}

/** The stdin a list of redirections sets (the last one on fd 0 wins), or undefined when none does. */
export function stdinOf(redirections: unknown): StdinContext | undefined {
  if (!Array.isArray(redirections)) return undefined;
  let out: StdinContext | undefined;
  for (const r of redirections as Array<{ fd?: number | null; operator: string; target?: unknown }>) {
    const fd = r.fd ?? (READS.has(r.operator) ? 0 : 1);
    if (fd !== 0) continue;
    if (r.operator === "<<<") {
      const text = literalOf(r.target);
      out = text === undefined ? { k: "unknown", why: "a here-string built at run time" } : { k: "literal", text: `${text}\n` };
    } else if (r.operator === "<<" || r.operator === "<<-") {
      const text = hereDocText((r.target as { content?: unknown } | undefined)?.content);
      out = text === undefined ? { k: "unknown", why: "a here-document with text built at run time" } : { k: "literal", text };
    } else {
      const target = literalOf(r.target);
      out = { k: "unknown", why: `${r.operator} ${target ?? "a file named at run time"}` };
    }
  }
  return out;
}

/**
 * Settles contexts once every function's callers are known: a function's body reads what all its
 * callers give it when they agree; a function nobody calls by name, or whose callers differ, reads
 * an unknown stdin.
 */
export class StdinResolver {
  private readonly sites = new Map<string, StdinContext[]>();
  private readonly memo = new Map<string, StdinSource>();

  constructor(private readonly shellStdin: string | undefined) {}

  /** Records a command named `name` run with stdin `ctx` (a call of the function of that name, if one is defined). */
  site(name: string, ctx: StdinContext): void {
    const list = this.sites.get(name) ?? [];
    if (list.length < 1000) list.push(ctx);
    this.sites.set(name, list);
  }

  /** What a context means for a call inside it (`enclosing`: the context is not the call's own). */
  resolve(ctx: StdinContext, enclosing: boolean, visiting = new Set<string>()): StdinSource {
    switch (ctx.k) {
      case "shell":
        return this.shellStdin ? { kind: "literal", text: this.shellStdin, enclosing: true } : { kind: "none" };
      case "literal":
        return { kind: "literal", text: ctx.text, enclosing };
      case "unknown":
        return { kind: "unknown", enclosing, why: ctx.why };
      case "function":
        return this.ofFunction(ctx.name, visiting);
    }
  }

  private ofFunction(name: string, visiting: Set<string>): StdinSource {
    const kept = this.memo.get(name);
    if (kept) return kept;
    if (visiting.has(name)) return { kind: "unknown", enclosing: true, why: `function ${name} calls itself` };
    visiting.add(name);
    const sites = this.sites.get(name) ?? [];
    let out: StdinSource | undefined = sites.length === 0 ? { kind: "unknown", enclosing: true, why: `function ${name} is not called by its name` } : undefined;
    for (const s of sites) {
      const r = this.resolve(s, true, visiting);
      if (!out) out = r;
      else if (r.kind !== out.kind || (r.kind === "literal" && out.kind === "literal" && r.text !== out.text)) {
        out = { kind: "unknown", enclosing: true, why: `function ${name} is called with different stdin` };
      }
      if (out.kind === "unknown") break;
    }
    visiting.delete(name);
    const settled: StdinSource = out!.kind === "none" ? out! : { ...out!, enclosing: true };
    this.memo.set(name, settled);
    return settled;
  }
}
