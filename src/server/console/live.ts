/**
 * Live updates of the console: every open page gets a short message over server-sent events
 * (`GET /console/events`) when something it shows changed, and fetches its region again.
 *
 * Messages come from the host's events (shell calls, nested calls, approvals, trigger runs) and,
 * while a page is open, from a check of the store's pending approvals and servers' questions every
 * two seconds, so an answer given in another process (`toolshell approve`) or a question asked on
 * another replica reaches the pages too. The same check reads the stored events of each watched
 * session ({@link LiveHub.watch}): an event another replica wrote reaches the console's session
 * page and the HTTP API's event stream (`GET /v1/sessions/{id}/events` as `text/event-stream`,
 * server/event-stream.ts) of this replica; and its durable steps' statuses, so a step whose
 * replica went stale (which writes no event) shows "replica gone" on the open page.
 *
 * See README → Console; the WHATWG HTML standard's "Server-sent events" (`text/event-stream`).
 */
import type { SSEStreamingApi } from "hono/streaming";
import type { Host } from "../host.js";
import { sessionSteps } from "../steps.js";

/** What changed: the pending approvals (with their count), or one session's timeline. */
export type LiveMessage = { kind: "approvals"; pending: number } | { kind: "session"; session_id: string; type: string };

/** How often the pending approvals (and watched sessions' events) are compared while a page listens, in milliseconds. */
export const PENDING_CHECK_MS = 2000;

/** How long an event stream waits between keep-alive comments, in milliseconds. */
const KEEPALIVE_MS = 20_000;

/** Events read from the store at once. */
const PAGE = 1000;

/**
 * Keeps an SSE stream open until the client goes away, writing a keep-alive comment every 20 s
 * (proxies close idle connections).
 */
export async function holdOpen(stream: SSEStreamingApi): Promise<void> {
  let wake: () => void = () => {};
  stream.onAbort(() => wake());
  while (!stream.aborted && !stream.closed) {
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, KEEPALIVE_MS);
      wake = () => {
        clearTimeout(t);
        resolve();
      };
    });
    if (stream.aborted || stream.closed) break;
    await stream.write(": keep-alive\n\n");
  }
}

/** Fans host events out to the open pages. */
export class LiveHub {
  readonly #host: Host;
  readonly #listeners = new Set<(msg: LiveMessage) => void>();
  #unsubscribe?: () => void;
  #timer?: NodeJS.Timeout;
  #fingerprint = "";
  /**
   * Sessions whose stored events are checked: how many watch each, the last `seq` seen, and the
   * status of each of its durable steps at the last check.
   */
  readonly #watched = new Map<string, { count: number; seq?: number; steps?: string }>();

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

  /**
   * Checks `sessionId`'s stored events too on every check while it is watched, so an event another
   * replica (or process) wrote reaches the listeners as a `session` message. `seq`: the last event
   * the watcher has (default: the first check only notes where the session is).
   * @returns the function that stops watching.
   */
  watch(sessionId: string, seq?: number): () => void {
    const w = this.#watched.get(sessionId) ?? { count: 0, seq };
    w.count++;
    if (seq !== undefined && (w.seq === undefined || seq < w.seq)) w.seq = seq;
    this.#watched.set(sessionId, w);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      if (--w.count === 0 && this.#watched.get(sessionId) === w) this.#watched.delete(sessionId);
    };
  }

  #reading = false;

  async #sessionsChanged(): Promise<void> {
    if (this.#reading) return;
    this.#reading = true;
    try {
      await this.#readWatched();
    } finally {
      this.#reading = false;
    }
  }

  async #readWatched(): Promise<void> {
    for (const [sid, w] of [...this.#watched]) {
      try {
        const first = w.seq === undefined;
        let last: { seq: number; type: string } | undefined;
        for (;;) {
          const fresh = await this.#host.store.listEvents(sid, { after: w.seq ?? 0, limit: PAGE });
          if (fresh.length) last = fresh[fresh.length - 1];
          if (last) w.seq = last.seq;
          else w.seq ??= 0;
          if (fresh.length < PAGE) break;
        }
        // A step's replica going stale writes no event (nobody is left to write it): the steps'
        // statuses are compared too, so the page shows "replica gone" without a reload.
        const steps = (await sessionSteps(this.#host.store, sid)).map((s) => `${s.step_id}:${s.status}`).join(",");
        // The first check of a page's session does not know what the page was drawn with: an
        // event written or a step gone stale between the drawing and this check is told as a
        // change, so the page fetches its region once more.
        if (last || first || (w.steps !== undefined && w.steps !== steps)) this.#send({ kind: "session", session_id: sid, type: last?.type ?? "step.status" });
        w.steps = steps;
      } catch {}
    }
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
    this.#timer = setInterval(() => {
      void this.#pendingChanged();
      void this.#sessionsChanged();
    }, PENDING_CHECK_MS);
    this.#timer.unref();
  }

  #stop(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
