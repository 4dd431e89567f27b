/**
 * Ratings of tools that declare nothing about their risk: a decision service answers "does this
 * tool change or delete anything outside the session?" with a probability; ≥ 0.5 makes the tool
 * `rated_changes`. Rated once per tool name + hash of description and schema, cached.
 *
 * See README → Approvals.
 */
import type { CatalogTool } from "../tool/index.js";
import { hashOf } from "./canonical.js";

/** What a decision service sees of a tool. */
export interface RatedTool {
  name: string;
  source: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** Answers the rating question with a probability in [0, 1]. */
export interface DecisionService {
  rateChanges(tool: RatedTool, signal?: AbortSignal): Promise<number>;
}

/** A stored rating. */
export interface Rating {
  key: string;
  probability: number;
  rated_at: string;
  by: string;
}

/**
 * Where ratings are kept (the session store persists them; default in memory). A rating once
 * kept is never replaced: when two processes rate one tool at once, the first rating kept is
 * the one both use (README "Approvals" → Ratings: a tool is rated once).
 */
export interface RatingCache {
  /** The rating kept for `key`, if any. */
  get(key: string): Promise<Rating | undefined>;
  /** Keeps `rating` unless one is kept for its key already; resolves with the one kept. */
  add(rating: Rating): Promise<Rating>;
}

/** The threshold at and above which a rating adds a question. */
export const RATED_CHANGES_AT = 0.5;

/** The cache key of a tool: source, name and a hash of its description and schema. */
export function ratingKey(tool: RatedTool): string {
  return `${tool.source}/${tool.name}#${hashOf({ d: tool.description, s: tool.inputSchema })}`;
}

const CHANGE_WORDS = [
  "add", "append", "approve", "archive", "assign", "book", "cancel", "charge", "close", "commit", "create", "delete",
  "deploy", "destroy", "disable", "drop", "edit", "email", "enable", "execute", "grant", "insert", "install", "invite",
  "kill", "merge", "modify", "move", "pay", "post", "publish", "purge", "push", "put", "refund", "reject", "remove",
  "rename", "reset", "restart", "revoke", "run", "save", "schedule", "send", "set", "share", "start", "stop", "submit",
  "transfer", "trigger", "truncate", "uninstall", "update", "upload", "upsert", "write", "toggle",
];
const READ_WORDS = [
  "count", "describe", "echo", "fetch", "find", "get", "inspect", "list", "lookup", "preview", "query", "read",
  "search", "show", "sum", "view", "check", "validate", "estimate", "explain", "summarize", "summarise", "compute",
];

function words(text: string): string[] {
  return text
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z]+/)
    .filter(Boolean);
}

/**
 * The offline default rater: deterministic, from the tool's name (its verb counts most), its
 * description and its schema's field names. A change verb in the name → 0.85; a read verb in the
 * name → 0.15 unless the description names a change (0.6); otherwise the description decides
 * (0.7 with a change word, 0.2 with only read words, 0.4 with neither: a rating only adds a
 * question where the tool looks like it changes things).
 */
export const offlineRater: DecisionService = {
  async rateChanges(tool) {
    const name = words(tool.name);
    const desc = words(tool.description);
    const hasChange = (ws: string[]) => ws.some((w) => CHANGE_WORDS.includes(w) || CHANGE_WORDS.some((c) => w === `${c}s` || w === `${c}d` || w === `${c}ed`));
    const hasRead = (ws: string[]) => ws.some((w) => READ_WORDS.includes(w) || READ_WORDS.some((r) => w === `${r}s`));
    if (name.length && CHANGE_WORDS.includes(name[0])) return 0.85;
    if (hasChange(name) && !hasRead(name)) return 0.8;
    if (hasRead(name)) return hasChange(desc.slice(0, 12)) ? 0.6 : 0.15;
    if (hasChange(desc)) return 0.7;
    if (hasRead(desc)) return 0.2;
    return 0.4;
  },
};

/** An in-memory rating cache. */
export class MemoryRatingCache implements RatingCache {
  private readonly map = new Map<string, Rating>();
  async get(key: string): Promise<Rating | undefined> {
    return this.map.get(key);
  }
  async add(rating: Rating): Promise<Rating> {
    const kept = this.map.get(rating.key) ?? rating;
    this.map.set(kept.key, kept);
    return kept;
  }
}

/** Rates tools through a decision service, once per key; concurrent asks share one rating. */
export class Rater {
  private readonly inflight = new Map<string, Promise<number>>();
  /**
   * Ratings kept (in the cache; or this rater's own, in memory, for a key whose kept rating
   * another kind of rater made): a kept rating is never replaced, so it stands for the process's life.
   */
  private readonly settled = new Map<string, number>();
  /** Each tool object's key, while its name, source, description and schema stay the same objects (a call asks per call). */
  private readonly keys = new WeakMap<object, { parts: unknown[]; key: string }>();
  constructor(
    readonly service: DecisionService,
    readonly cache: RatingCache = new MemoryRatingCache(),
    readonly by = "offline",
  ) {}

  /**
   * The probability that `tool` changes things: the kept rating when there is one (made by this
   * process or another on the same store) when the same kind of rater (`by`) made it, else the
   * service's answer, kept (README "Approvals" → Ratings). When another process with the same
   * kind of rater kept a rating first, that one is the answer; one another kind made is not used. A service
   * failure rates it 0.5 (cautious) and is not kept, so a later call asks again; a cache that
   * cannot be read or written counts as holding nothing. Never rejects.
   */
  async rate(tool: CatalogTool | RatedTool, signal?: AbortSignal): Promise<number> {
    const t: RatedTool = { name: tool.name, source: tool.source, description: tool.description, inputSchema: tool.inputSchema };
    const key = this.keyOf(tool);
    let p = this.inflight.get(key);
    if (!p) {
      p = this.rateNow(t, key, signal).finally(() => this.inflight.delete(key));
      this.inflight.set(key, p);
    }
    return p;
  }

  /**
   * The rating of `tool` when this rater already holds a kept one, synchronously (the hot path
   * of every call to a tool that declares nothing); undefined when {@link rate} must be asked.
   */
  known(tool: CatalogTool | RatedTool): number | undefined {
    return this.settled.get(this.keyOf(tool));
  }

  /** {@link ratingKey}, computed once per tool object while its parts stay the same. */
  private keyOf(tool: CatalogTool | RatedTool): string {
    const parts = [tool.name, tool.source, tool.description, tool.inputSchema];
    const hit = this.keys.get(tool);
    if (hit && hit.parts.every((p, i) => p === parts[i])) return hit.key;
    const key = ratingKey(tool);
    this.keys.set(tool, { parts, key });
    return key;
  }

  private async rateNow(t: RatedTool, key: string, signal?: AbortSignal): Promise<number> {
    const settled = this.settled.get(key);
    if (settled !== undefined) return settled;
    // Only a rating made by this kind of rater stands for this one's: a store another process
    // shares (a CLI run with the offline rater beside a server given a decision service) must
    // not answer for a different rater (docs/sessions.md "The store", ratings).
    try {
      const hit = await this.cache.get(key);
      if (hit && hit.by === this.by) {
        this.settled.set(key, hit.probability);
        return hit.probability;
      }
    } catch {}
    let probability: number;
    try {
      const v = await this.service.rateChanges(t, signal);
      probability = Number.isFinite(v) ? Math.min(1, Math.max(0, v)) : 0.5;
    } catch {
      return 0.5;
    }
    try {
      const kept = await this.cache.add({ key, probability, rated_at: new Date().toISOString(), by: this.by });
      if (kept.by === this.by) {
        this.settled.set(key, kept.probability);
        return kept.probability;
      }
    } catch {
      return probability;
    }
    // The key holds another rater's rating: this one's is kept in memory for the process.
    this.settled.set(key, probability);
    return probability;
  }
}
