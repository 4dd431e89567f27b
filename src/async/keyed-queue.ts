/**
 * One turn at a time per key: work for the same key runs in the order it was queued, work for
 * different keys runs side by side. Used for a session's shell calls over the HTTP API, a
 * trigger's runs, a session's turn before its lease, and a person's questions.
 *
 * A key is forgotten once every turn taken on it has ended, so keys do not accumulate; a turn
 * that gives up its place early (a caller that stopped waiting) does not let a later one start
 * before the turns ahead of it end.
 */

/** A place in a key's line: `ready` settles when every turn before it has ended. */
export interface Turn {
  /** Resolves when the turns queued before this one have ended (never rejects). */
  readonly ready: Promise<void>;
  /** Ends this turn (or gives up the place in line); the next turn starts. Safe to call twice. */
  end(): void;
}

/** Lines of turns, one per key. */
export class KeyedQueue<K> {
  /** Per key: the promise that settles when its last queued turn ends, and how many turns have not ended. */
  readonly #lines = new Map<K, { tail: Promise<void>; open: number }>();

  /**
   * Takes a place in `key`'s line. The caller must call `end()` however it finishes (also when
   * it stops waiting for `ready`), or the key's later turns never start.
   */
  turn(key: K): Turn {
    const line = this.#lines.get(key) ?? { tail: Promise.resolve(), open: 0 };
    const ready = line.tail;
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    line.tail = ready.then(() => mine);
    line.open++;
    this.#lines.set(key, line);
    let ended = false;
    return {
      ready,
      end: () => {
        if (ended) return;
        ended = true;
        release();
        if (--line.open === 0 && this.#lines.get(key) === line) this.#lines.delete(key);
      },
    };
  }

  /** Runs `fn` when `key`'s earlier turns have ended; its result or error is the caller's. */
  async run<T>(key: K, fn: () => Promise<T>): Promise<T> {
    const t = this.turn(key);
    try {
      await t.ready;
      return await fn();
    } finally {
      t.end();
    }
  }

  /** True while a turn of `key` runs or waits. */
  busy(key: K): boolean {
    return this.#lines.has(key);
  }
}
