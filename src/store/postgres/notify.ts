/**
 * Changes made elsewhere, through PostgreSQL's LISTEN/NOTIFY: every write of an approval book (a
 * new request, an answer) sends a notification on {@link CHANGES_CHANNEL} in its own transaction
 * (delivered when it commits), naming the store instance that wrote it. Each store listens on a
 * connection of its own; a notification from another instance marks a change, which
 * `changedElsewhere()` reports once and {@link ChangeListener.next} awaits. While the listening
 * connection is down a change may be missed, so losing it counts as a change, and it reconnects.
 *
 * See docs/sessions.md → The store; src/store/types.ts (`Store.changedElsewhere`).
 */
import { randomUUID } from "node:crypto";
import type pg from "pg";

/** The channel approval changes are sent on. */
export const CHANGES_CHANNEL = "toolshell_changes";

/** What a notification carries. */
export interface ChangeNote {
  /** The store instance that made the change. */
  from: string;
  kind: "approvals";
  session: string;
}

/** Listens for changes of other store instances (see the file comment). */
export class ChangeListener {
  /** This store instance's id, sent with its own notifications and ignored when they come back. */
  readonly id = randomUUID();
  #changed = false;
  #client: pg.Client | undefined;
  #closed = false;
  #retry: NodeJS.Timeout | undefined;
  readonly #waiters = new Set<{ resolve: (note: ChangeNote | undefined) => void }>();

  /** True from a lost connection until one listens again (each loss is said once). */
  #down = false;

  /**
   * @param location the store's URL without its password, for what is said.
   * @param onConnection hears, once per loss, that the connection is lost and that it is back.
   */
  constructor(
    private readonly connect: () => pg.Client,
    private readonly location = "",
    private readonly onConnection: (state: "lost" | "restored", message: string) => void = () => {},
  ) {}

  /**
   * Connects and listens.
   * @throws Error when the first connection fails.
   */
  async start(): Promise<void> {
    const c = this.connect();
    c.on("error", (err) => this.#lost(c, err));
    c.on("end", () => this.#lost(c));
    c.on("notification", (n) => {
      if (n.channel !== CHANGES_CHANNEL) return;
      let note: ChangeNote | undefined;
      try {
        note = JSON.parse(n.payload ?? "") as ChangeNote;
      } catch {}
      if (note?.from === this.id) return;
      this.#mark(note);
    });
    await c.connect();
    await c.query(`LISTEN ${CHANGES_CHANNEL}`);
    this.#client = c;
    if (this.#down) {
      this.#down = false;
      this.#say("restored");
    }
  }

  #say(state: "lost" | "restored", detail?: string): void {
    const message =
      state === "lost"
        ? `lost the connection to the PostgreSQL store at ${this.location}${detail ? ` (${detail})` : ""}; reconnecting every second, and calls that need the store fail until it is back`
        : `the PostgreSQL store at ${this.location} answers again`;
    try {
      this.onConnection(state, message);
    } catch {}
  }

  #mark(note: ChangeNote | undefined): void {
    this.#changed = true;
    for (const w of [...this.#waiters]) w.resolve(note);
    this.#waiters.clear();
  }

  #lost(c: pg.Client, err?: Error): void {
    if (this.#client !== c) return;
    this.#client = undefined;
    c.end().catch(() => {});
    if (this.#closed) return;
    if (!this.#down) {
      this.#down = true;
      this.#say("lost", err?.message || "the server closed the connection");
    }
    this.#mark(undefined);
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      if (!this.#closed) this.start().catch(() => this.#lostBeforeStart());
    }, 1000);
    this.#retry.unref();
  }

  #lostBeforeStart(): void {
    if (this.#closed || this.#retry) return;
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      if (!this.#closed) this.start().catch(() => this.#lostBeforeStart());
    }, 1000);
    this.#retry.unref();
  }

  /** True when another instance changed approvals (or the connection was lost) since the last call. */
  takeChanged(): boolean {
    const c = this.#changed;
    this.#changed = false;
    return c;
  }

  /**
   * Resolves at the next change made elsewhere, with its note (undefined when the listening
   * connection was lost, or the listener closed, or `signal` aborted).
   */
  next(signal?: AbortSignal): Promise<ChangeNote | undefined> {
    if (this.#closed || signal?.aborted) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const w = {
        resolve: (note: ChangeNote | undefined) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(note);
        },
      };
      const onAbort = () => {
        this.#waiters.delete(w);
        w.resolve(undefined);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#waiters.add(w);
    });
  }

  /** A notification of a change to `session`'s approvals, to send inside the writing transaction. */
  note(session: string): string {
    return JSON.stringify({ from: this.id, kind: "approvals", session } satisfies ChangeNote);
  }

  /** Stops listening. Never rejects. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#retry) clearTimeout(this.#retry);
    for (const w of [...this.#waiters]) w.resolve(undefined);
    this.#waiters.clear();
    const c = this.#client;
    this.#client = undefined;
    await c?.end().catch(() => {});
  }
}
