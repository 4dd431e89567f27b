/**
 * The catalog: all sources as one shell call sees them. Resolves `tools` words to a tool or a
 * source, loads on-demand sources when named, searches.
 *
 * See README → The `tools` command.
 */
import { ToolCallError, type CatalogTool, type MaybePromise, type ToolSource } from "../tool/index.js";
import { closest, displayName, findByName, foldName, namesakes } from "./names.js";

/** Words `tools` reserves for itself; no source may take them. */
export const RESERVED_WORDS = new Set(["search", "plan", "help", "--help", "-h"]);

/** What a list of `tools` words resolved to. */
export type Resolution =
  | { kind: "tool"; tool: CatalogTool; source: ToolSource; command: string; rest: string[] }
  | { kind: "source"; source: ToolSource; rest: string[] };

/** One search hit: a tool and its score (name hits rank above description hits). */
export interface SearchHit {
  tool: CatalogTool;
  command: string;
  score: number;
}

/** The catalog of one shell call. Cheap to build: it indexes lazily. */
export class Catalog {
  readonly sources: ToolSource[];
  constructor(sources: ToolSource[]) {
    this.sources = sources;
  }

  /** Grouped sources (MCP servers, saved scripts), in configured order. */
  groupedSources(): ToolSource[] {
    return this.sources.filter((s) => s.kind !== "local");
  }

  /**
   * Top-level tools (the local sources), sorted by name. Local sources do not change during a
   * shell call, so the list is built once per catalog (every nested call resolves through it).
   */
  topLevelTools(): CatalogTool[] {
    if (this.#topLevel) return this.#topLevel;
    const out: CatalogTool[] = [];
    for (const s of this.sources) if (s.kind === "local") out.push(...s.tools());
    this.#topLevel = out.sort((a, b) => a.name.localeCompare(b.name, undefined, { numeric: true }));
    return this.#topLevel;
  }
  #topLevel?: CatalogTool[];

  /** The command words that call a tool: `tools github list-pulls` or `tools web-fetch`. */
  commandFor(tool: CatalogTool): string {
    // A tool sharing its folded name with another is named as it is spelled, so the two never share a command (or an answer).
    const siblings = tool.grouped ? (this.findSource(tool.source)?.tools() ?? []) : this.topLevelTools();
    const name = namesakes(siblings, tool).length ? tool.name : displayName(tool.name);
    return tool.grouped ? `tools ${tool.source} ${name}` : `tools ${name}`;
  }

  /** The grouped source named `word` (`-`/`_` folded), if any. */
  findSource(word: string): ToolSource | undefined {
    const f = foldName(word);
    return this.groupedSources().find((s) => foldName(s.name) === f);
  }

  /** The tool named `word` in `tools` (exact spelling first, then folded when only one tool has that form). */
  findTool(tools: CatalogTool[], word: string): CatalogTool | undefined {
    return findByName(tools, word);
  }

  /**
   * Ensures a source's tools are listed, loading it (spawning / connecting) when it is on demand
   * or failed before. @throws ToolCallError (`unavailable`, `connection_required`) when it cannot load.
   */
  async ensureLoaded(source: ToolSource, signal?: AbortSignal): Promise<void> {
    if (source.state() === "ready") return;
    await source.load(signal);
  }

  /**
   * Resolves the words after `tools`. `[server, tool, ...rest]` or `[tool, ...rest]`; a source
   * alone (or followed by `--help`) resolves to the source. Loads a named on-demand source; only
   * then is the answer a promise.
   * @throws ToolCallError `unknown_command` with the closest commands; `unavailable` (a rejected
   *         promise) when the named source cannot load.
   */
  resolve(words: string[], signal?: AbortSignal): MaybePromise<Resolution> {
    const source = this.findSource(words[0]);
    // A loaded source resolves without an await (the hot path of every nested call).
    if (source && source.state() !== "ready") return source.load(signal).then(() => this.resolveIn(source, words));
    if (source) return this.resolveIn(source, words);
    const top = this.findTool(this.topLevelTools(), words[0]);
    if (top) {
      const src = this.sources.find((s) => s.kind === "local" && s.tools().includes(top))!;
      return { kind: "tool", tool: top, source: src, command: this.commandFor(top), rest: words.slice(1) };
    }
    throw new ToolCallError("unknown_command", this.unknownMessage(words[0]));
  }

  /** Resolves `[source, tool?, ...rest]` within a loaded source. @throws ToolCallError `unknown_command`. */
  private resolveIn(source: ToolSource, words: string[]): Resolution {
    const [, second, ...more] = words;
    const helpTool = second === "help" && source.tools().some((t) => t.name === "help");
    if (second === undefined || second.startsWith("-") || (second === "help" && !helpTool)) {
      return { kind: "source", source, rest: words.slice(1) };
    }
    const tool = this.findTool(source.tools(), second);
    if (!tool) {
      const names = source.tools().map((t) => displayName(t.name));
      const near = closest(second, names).map((n) => `tools ${source.name} ${n}`);
      throw new ToolCallError(
        "unknown_command",
        `no tool "${second}" in ${source.name}` + (near.length ? `; closest: ${near.join(", ")}` : `; see: tools ${source.name} --help`),
      );
    }
    return { kind: "tool", tool, source, command: this.commandFor(tool), rest: more };
  }

  private unknownMessage(word: string): string {
    const candidates = [
      ...this.groupedSources().map((s) => s.name),
      ...this.topLevelTools().map((t) => displayName(t.name)),
    ];
    const near = closest(word, candidates).map((c) => `tools ${c}`);
    // A tool of a loaded server named without its server: point at the grouped command.
    const f = foldName(word);
    for (const s of this.groupedSources()) {
      const t = s.state() === "ready" ? s.tools().find((x) => foldName(x.name) === f) : undefined;
      if (t) near.unshift(this.commandFor(t));
    }
    const list = [...new Set(near)].slice(0, 3);
    return `no command "${word}"` + (list.length ? `; closest: ${list.join(", ")}` : "; see: tools --help");
  }

  /**
   * Ranked search over names and descriptions of every source. Loads on-demand sources whose
   * name matches a word, and searches those already loaded. Sources that fail to load are skipped.
   * A word matches by its stem (a plural's `s`, `es`, `ies` or a final `y` dropped from words of
   * five letters or more), so a singular finds a plural and the other way round.
   * Score: a word in the tool name 10 (whole-name match 20), in the source name 5, in the
   * description 1 (name hits rank above description hits); ties by command. A word naming a
   * server narrows to it: with other words beside it (`tools search github issue`), a tool must
   * match one of those in its name or description, so the server's other tools do not follow.
   */
  async search(words: string[], signal?: AbortSignal, limit = 20): Promise<SearchHit[]> {
    const terms = words.flatMap((w) => w.toLowerCase().split(/[\s,]+/)).filter(Boolean);
    if (terms.length === 0) return [];
    for (const s of this.groupedSources()) {
      if (s.state() === "ready") continue;
      const name = foldName(s.name);
      if (terms.some((t) => name.includes(foldName(t)) || foldName(t).includes(name))) {
        try {
          await this.ensureLoaded(s, signal);
        } catch {}
      }
    }
    const ready = this.sources.filter((s) => s.state() === "ready");
    // Words that name a server (of a grouped tool): they narrow, and do not make a hit alone.
    const serverWords = new Set(terms.filter((t) => ready.some((s) => s.tools().some((tool) => tool.grouped && foldName(tool.source).includes(foldName(t))))));
    const narrowing = serverWords.size > 0 && serverWords.size < terms.length;
    const hits: SearchHit[] = [];
    for (const s of ready) {
      for (const tool of s.tools()) {
        const name = foldName(tool.name);
        const src = foldName(tool.source);
        const desc = tool.description.toLowerCase();
        let score = 0;
        let matched = 0;
        let content = 0;
        for (const t of terms) {
          const ft = foldName(t);
          // A word and its plural find each other (`entity`, `create-entities`).
          const fs = stem(ft);
          const inDesc = desc.includes(stem(t));
          let sc = 0;
          if (name === ft) sc = 20;
          else if (name.includes(fs)) sc = 10;
          if (!serverWords.has(t) && (sc > 0 || inDesc)) content++;
          if (tool.grouped && src.includes(ft)) sc = Math.max(sc, 5);
          if (inDesc) sc = Math.max(sc, 1) + (sc > 0 ? 1 : 0);
          if (sc > 0) matched++;
          score += sc;
        }
        if (matched === 0 || (narrowing && content === 0)) continue;
        // Every term matching counts more than one term matching strongly.
        score += matched === terms.length ? 3 * terms.length : 0;
        hits.push({ tool, command: this.commandFor(tool), score });
      }
    }
    hits.sort((a, b) => b.score - a.score || a.command.localeCompare(b.command));
    return hits.slice(0, limit);
  }
}

/** A word without its plural or final `y` (see {@link Catalog.search}): a prefix of both forms. */
function stem(word: string): string {
  return word.length >= 5 ? word.replace(/(ies|es|s|y)$/, "") : word;
}
