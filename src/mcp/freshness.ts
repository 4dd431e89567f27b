/**
 * How long a 2026-era list may be used (MCP spec 2026-07-28 "Caching"): `ttlMs` is how long the
 * client MAY consider the result fresh, absent meaning 0 (immediately stale); `cacheScope` is
 * `private` when absent. Caching is complementary to change notifications: a list that a
 * `subscriptions/listen` stream keeps current is not listed again for its age.
 */

/** The hints of a listing. Over several pages the shortest lifetime wins and one private page makes the list private. */
export interface ListFreshness {
  ttlMs: number;
  cacheScope: "public" | "private";
}

/** The longest a list is used without listing again, whatever `ttlMs` says (a day). */
export const MAX_LIST_TTL_MS = 86_400_000;

/** Folds one page's hints into `into` (see {@link ListFreshness}). */
export function foldFreshness(into: ListFreshness | undefined, page: Record<string, unknown>): ListFreshness {
  const ttl = typeof page.ttlMs === "number" && Number.isSafeInteger(page.ttlMs) && page.ttlMs > 0 ? page.ttlMs : 0;
  const scope = page.cacheScope === "public" ? "public" : "private";
  if (!into) return { ttlMs: ttl, cacheScope: scope };
  return { ttlMs: Math.min(into.ttlMs, ttl), cacheScope: into.cacheScope === "public" && scope === "public" ? "public" : "private" };
}

/** When one source's tool list stops being fresh. */
export class ListClock {
  #staleAt: number | undefined;

  /** Stamps a new listing: `freshness` undefined (2025 era) never goes stale; it holds until `list_changed`. */
  stamp = (freshness: ListFreshness | undefined): void => {
    this.#staleAt = freshness ? Date.now() + Math.min(freshness.ttlMs, MAX_LIST_TTL_MS) : undefined;
  };

  /**
   * True once when the list is stale and nothing keeps it current (`listening` false): the
   * caller lists again, and that listing's stamp says when it is stale next.
   */
  due(listening: boolean | undefined): boolean {
    if (this.#staleAt === undefined || Date.now() < this.#staleAt || listening !== false) return false;
    this.#staleAt = undefined;
    return true;
  }
}
