/**
 * Slowing down token guessing: every door that checks a token a caller presents — the HTTP API's
 * bearer tokens, the console's sign-in form and cookie, a webhook trigger's secret, the HTTP MCP
 * gateway — counts wrong ones per source address. The first {@link TokenGuardOptions.free} wrong
 * tokens are answered as usual (401); past them the address must wait: 1 s after the next wrong
 * one, then 2, 4, … up to one minute after each further wrong one — also one sent while it
 * waits, so what is answered 401 is a count (the first free + 1), not a race with the clock.
 * While it waits every request of it that presents a token answers 429 with `Retry-After`
 * (RFC 6585, RFC 9110 §10.2.3), whether the token is right or not, so waiting is the only way to
 * learn anything.
 * A right token after the wait clears the address's count; an address that sends nothing wrong
 * for 15 minutes is forgotten. Nobody is locked out for longer than the longest wait.
 *
 * IPv6 addresses count by their /64 (one host is usually given a whole /64). The table is bounded
 * (the oldest addresses are forgotten first). See docs/security.md → The console and the person.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { isIPv6 } from "node:net";

/** True when `presented` equals one of `tokens`; every token is compared, in constant time each. */
export function tokenMatches(presented: string, tokens: readonly string[]): boolean {
  return tokenIndex(presented, tokens) >= 0;
}

/** The index of `presented` in `tokens` (-1 when absent); every token is compared, in constant time each (of equal-length digests). */
export function tokenIndex(presented: string, tokens: readonly string[]): number {
  const digest = (s: string) => createHash("sha256").update(s, "utf8").digest();
  const p = digest(presented);
  let found = -1;
  tokens.forEach((t, i) => {
    if (timingSafeEqual(p, digest(t))) found = i;
  });
  return found;
}

/** Options of {@link TokenGuard}. */
export interface TokenGuardOptions {
  /** Wrong tokens an address may send before it must wait (default 10). */
  free?: number;
  /** The first wait, in ms (default 1,000); each next wrong token doubles it. */
  firstWaitMs?: number;
  /** The longest wait, in ms (default 60,000). */
  maxWaitMs?: number;
  /** An address with no wrong token for this long is forgotten, in ms (default 15 minutes). */
  forgetMs?: number;
  /** Addresses kept at most (default 10,000). */
  maxAddresses?: number;
  /** The clock (tests). */
  now?: () => number;
}

interface Entry {
  wrong: number;
  until: number;
  last: number;
}

/** The key an address counts under: IPv4 as is (also when IPv4-mapped), IPv6 by its first 64 bits. */
export function addressKey(address: string): string {
  const a = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(a);
  if (mapped) return mapped[1]!;
  if (!isIPv6(a)) return a;
  const [head, tail = ""] = a.split("::");
  const h = head ? head.split(":") : [];
  const t = tail ? tail.split(":") : [];
  const groups = a.includes("::") ? [...h, ...Array(Math.max(0, 8 - h.length - t.length)).fill("0"), ...t] : h;
  return `${groups.slice(0, 4).map((g) => parseInt(g || "0", 16).toString(16)).join(":")}::/64`;
}

/** Wrong tokens per source address (see the file comment). */
export class TokenGuard {
  readonly #entries = new Map<string, Entry>();
  readonly #o: Required<TokenGuardOptions>;

  constructor(options: TokenGuardOptions = {}) {
    this.#o = { free: 10, firstWaitMs: 1000, maxWaitMs: 60_000, forgetMs: 15 * 60_000, maxAddresses: 10_000, now: Date.now, ...options };
  }

  #entry(address: string): Entry | undefined {
    const key = addressKey(address);
    const e = this.#entries.get(key);
    if (e && this.#o.now() - e.last > this.#o.forgetMs && e.until <= this.#o.now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return e;
  }

  /** Whole seconds `address` must still wait before a token it sends is looked at; 0 when it need not. */
  retryAfter(address: string): number {
    const e = this.#entry(address);
    const left = e ? e.until - this.#o.now() : 0;
    return left > 0 ? Math.ceil(left / 1000) : 0;
  }

  /** `address` sent a wrong token. */
  failed(address: string): void {
    const key = addressKey(address);
    const now = this.#o.now();
    const e = this.#entry(address) ?? { wrong: 0, until: 0, last: now };
    e.wrong++;
    e.last = now;
    const past = e.wrong - this.#o.free;
    if (past > 0) e.until = now + Math.min(this.#o.maxWaitMs, this.#o.firstWaitMs * 2 ** Math.min(past - 1, 30));
    this.#entries.delete(key);
    this.#entries.set(key, e);
    while (this.#entries.size > this.#o.maxAddresses) this.#entries.delete(this.#entries.keys().next().value!);
  }

  /**
   * The one judgement of a presented token, for every door: `check` is always run (in constant
   * time), so the count does not depend on how fast requests arrive. While `address` must wait,
   * the answer is `wait` > 0 (429) whether the token is right or not — and a wrong one counts
   * and lengthens the wait, so a burst of guesses is answered 429 past the first
   * {@link TokenGuardOptions.free} + 1 however slowly the host gets through it. Otherwise a
   * right token clears the count and a wrong one counts.
   */
  weigh(address: string, check: () => boolean): { ok: boolean; wait: number } {
    const waiting = this.retryAfter(address) > 0;
    const ok = check();
    if (!ok) this.failed(address);
    else if (!waiting) this.succeeded(address);
    return waiting ? { ok: false, wait: this.retryAfter(address) } : { ok, wait: 0 };
  }

  /** `address` sent a right token: its count starts again. */
  succeeded(address: string): void {
    this.#entries.delete(addressKey(address));
  }

  /** The message of a 429 answer. */
  static message(seconds: number): string {
    return `too many wrong tokens from this address: try again in ${seconds} s`;
  }
}
