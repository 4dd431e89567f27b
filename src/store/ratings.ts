/**
 * The store's rating cache, one for the SQLite and the PostgreSQL store: ratings this process
 * has seen are answered from memory; any other key is read from the database, so a rating
 * another process (a second replica, a CLI run beside a server) kept is found before the tool
 * is rated again. A rating is only ever added, never replaced: when two processes rate one
 * tool at once, the first one kept wins and both answer with it. That makes remembering a
 * rating safe for as long as the process lives.
 *
 * See docs/sessions.md → The store; src/policy/rating.ts (`RatingCache`).
 */
import type { Rating, RatingCache } from "../policy/index.js";
import type { Row } from "./rows.js";

/** What a store gives {@link StoredRatings}: its ratings table. */
export interface RatingRows {
  /** The stored rating of `key`, if any. */
  read(key: string): Promise<Rating | undefined>;
  /** Stores `rating` unless its key has one; resolves with the rating stored for the key now. */
  insert(rating: Rating): Promise<Rating>;
}

/** A {@link RatingCache} over a store's ratings table (see the file comment). */
export class StoredRatings implements RatingCache {
  readonly #known = new Map<string, Rating>();

  constructor(private readonly rows: RatingRows) {}

  /**
   * The rating of `key`: from memory when this process has seen it, else from the database.
   * @throws Error when the database cannot be read (the Rater then rates the tool).
   */
  async get(key: string): Promise<Rating | undefined> {
    const known = this.#known.get(key);
    if (known) return known;
    const stored = await this.rows.read(key);
    if (stored) this.#known.set(key, stored);
    return stored;
  }

  /**
   * Keeps `rating` unless the database holds one for its key already; resolves with the one
   * kept (the first).
   * @throws Error when the database cannot be written (nothing is remembered then).
   */
  async add(rating: Rating): Promise<Rating> {
    const known = this.#known.get(rating.key);
    if (known) return known;
    const kept = await this.rows.insert(rating);
    this.#known.set(kept.key, kept);
    return kept;
  }
}

/** A stored row as a {@link Rating} (the probability as a number: PostgreSQL may return text). */
export function ratingRow(r: Row): Rating {
  return { key: String(r.key), probability: Number(r.probability), rated_at: String(r.rated_at), by: String(r.by) };
}
