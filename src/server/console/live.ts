/**
 * Live updates of the console: every open page gets a short message over server-sent events
 * (`GET /console/events`) when something it shows changed, and fetches its region again.
 *
 * Messages come from the host's events (shell calls, nested calls, approvals, trigger runs) and,
 * while a page is open, from a check of the store's pending approvals and servers' questions every
 * two seconds, so an answer given in another process (`toolshell approve`) or a question asked on
 * another replica reaches the pages too.
 *
 * See README → Console; the WHATWG HTML standard's "Server-sent events" (`text/event-stream`).
 */
import type { Host } from "../host.js";

/** What changed: the pending approvals (with their count), or one session's timeline. */
export type LiveMessage = { kind: "approvals"; pending: number } | { kind: "session"; session_id: string; type: string };

/** How often the pending approvals are compared while a page listens, in milliseconds. */
export const PENDING_CHECK_MS = 2000;

/** Fans host events out to the open pages. */
export class LiveHub {
  readonly #host: Host;
  readonly #listeners = new Set<(msg: LiveMessage) => void>();
  #unsubscribe?: () => void;
  #timer?: NodeJS.Timeout;
  #fingerprint = "";

  readonly #questions?: () => Promise<string[]>;

  /** `questions` lists the ids of the questions waiting on any replica (they show in the inbox too). */
  constructor(host: Host, questions?: () => Promise<string[]>) {
    this.#host = host;
    this.#questions = questions;
  }

  /** What the inbox shows, as one string: it changed when this did. */
  async #inboxFingerprint(): Promise<{ fp: string; pending: number }> {
    const ids = (await this.#host.store.pendingApprovals()).map((r) => r.id);
    const asked = this.#questions ? await this.#questions() : [];
    return { fp: [...ids, ...asked].join(","), pending: ids.length + asked.length };
  }

  /** What waits for a person across sessions: pending approval requests and servers' questions (both on the Approvals page). */
  async pendingCount(): Promise<number> {
    return (await this.#inboxFingerprint()).pending;
  }

  /**
   * Calls `listener` with every message until the returned function is called. The first
   * listener starts listening to the host; the last one leaving stops it.
   */
  subscribe(listener: (msg: LiveMessage) => void): () => void {
    this.#listeners.add(listener);
    if (this.#listeners.size === 1) this.#start();
    return () => {
      this.#listeners.delete(listener);
      if (this.#listeners.size === 0) this.#stop();
    };
  }

  #send(msg: LiveMessage): void {
    for (const l of this.#listeners) {
      try {
        l(msg);
      } catch {}
    }
  }

  async #pendingChanged(): Promise<void> {
    let now: { fp: string; pending: number };
    try {
      now = await this.#inboxFingerprint();
    } catch {
      return;
    }
    if (now.fp === this.#fingerprint) return;
    this.#fingerprint = now.fp;
    this.#send({ kind: "approvals", pending: now.pending });
  }

  #start(): void {
    void this.#inboxFingerprint().then(
      (now) => (this.#fingerprint = now.fp),
      () => {},
    );
    this.#unsubscribe = this.#host.subscribe((e) => {
      this.#send({ kind: "session", session_id: e.session_id, type: e.type });
      if (e.type.startsWith("approval.") || e.type.startsWith("question.")) void this.#pendingChanged();
    });
    this.#timer = setInterval(() => void this.#pendingChanged(), PENDING_CHECK_MS);
    this.#timer.unref();
  }

  #stop(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
