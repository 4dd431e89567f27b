/**
 * A count of work in flight and a wait for none of it: what a stopping host waits on — its shell
 * calls and steps (runtime/host.ts), a listener's answers (server/in-flight.ts). See
 * docs/deployment.md → Stopping a replica.
 */
export class InFlight {
  #open = 0;
  #waiters: Array<() => void> = [];

  /** Work in flight now. */
  get count(): number {
    return this.#open;
  }

  /** Counts one piece of work; the returned function ends it (once). */
  begin(): () => void {
    this.#open++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      if (--this.#open === 0) for (const w of this.#waiters.splice(0)) w();
    };
  }

  /** Runs `fn` counted. */
  async track<T>(fn: () => Promise<T>): Promise<T> {
    const end = this.begin();
    try {
      return await fn();
    } finally {
      end();
    }
  }

  /** Resolves true once nothing is in flight (at once when nothing is), false after `waitMs`. */
  idle(waitMs: number): Promise<boolean> {
    if (this.#open === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = () => (clearTimeout(timer), resolve(true));
      const timer = setTimeout(() => {
        this.#waiters = this.#waiters.filter((w) => w !== done);
        resolve(false);
      }, waitMs);
      timer.unref?.();
      this.#waiters.push(done);
    });
  }
}
