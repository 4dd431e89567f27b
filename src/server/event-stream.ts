/**
 * A session's events pushed to an HTTP-API agent: `GET /v1/sessions/{id}/events` with
 * `Accept: text/event-stream` answers a server-sent event stream instead of one page of JSON.
 * Each event is one SSE message: `id` is its `seq`, `data` the stored event as JSON (the same
 * object the JSON answer lists). The stream starts after `Last-Event-ID` (the header an
 * EventSource sends when it reconnects) or `?after=N`, else at the first event, sends what is
 * stored, then each new event as it is written — on this replica at once, on another replica of
 * the same store within the console's live check (LiveHub.watch, every two seconds). It stays
 * open (a keep-alive comment every 20 s) until the client goes away.
 *
 * Who may open it is the rule of every `/v1/sessions/{id}/…` route (the app's `reach`
 * middleware over http.ts `mayReach`).
 *
 * Rule source: docs/sessions.md "HTTP API"; the SSE format is the WHATWG HTML standard's
 * "Server-sent events" (`text/event-stream`, `Last-Event-ID`).
 */
import type { Context, Hono } from "hono";
import { streamSSE } from "hono/streaming";
import type { SessionRecord } from "../store/index.js";
import { holdOpen, type LiveHub } from "./console/live.js";
import type { Host } from "./host.js";
import { ApiError } from "./http.js";

/** Events read from the store at once. */
const PAGE = 1000;

/** Whether the request asks for the event stream (its Accept names `text/event-stream`). */
export function wantsEventStream(c: Context): boolean {
  return /(^|,)\s*text\/event-stream\s*(;|,|$)/i.test(c.req.header("accept") ?? "");
}

/** Where the stream starts: `Last-Event-ID`, else `?after`, else 0. @throws ApiError 400 on a value that is not a seq. */
function startAfter(c: Context): number {
  const given = c.req.header("last-event-id") ?? c.req.query("after");
  if (given === undefined || given === "") return 0;
  const n = Number(given);
  if (!/^\d+$/.test(given.trim()) || !Number.isSafeInteger(n)) throw new ApiError(400, "invalid_request", `Last-Event-ID (or after) must be an event's seq, a whole number ≥ 0; got ${JSON.stringify(given.slice(0, 40))}`);
  return n;
}

/**
 * Adds the stream in front of the JSON events route: a request that does not ask for
 * `text/event-stream` goes on to it.
 */
export function mountEventStream(app: Hono, host: Host, hub: LiveHub, sessionOr404: (id: string) => Promise<SessionRecord>): void {
  app.get("/v1/sessions/:id/events", async (c, next) => {
    if (!wantsEventStream(c)) return next();
    const rec = await sessionOr404(c.req.param("id"));
    const after = startAfter(c);
    return streamSSE(c, async (stream) => {
      let cursor = after;
      // One read at a time, in order; a message during a read asks for one more.
      let reading: Promise<void> = Promise.resolve();
      const pump = () => {
        reading = reading.then(async () => {
          for (;;) {
            if (stream.aborted || stream.closed) return;
            const events = await host.store.listEvents(rec.id, { after: cursor, limit: PAGE });
            for (const e of events) {
              await stream.writeSSE({ id: String(e.seq), data: JSON.stringify(e) });
              cursor = e.seq;
            }
            if (events.length < PAGE) return;
          }
        }).catch(() => {});
        return reading;
      };
      // Listen before the first read, so nothing written in between is missed.
      const off = hub.subscribe((msg) => {
        if (msg.kind === "session" && msg.session_id === rec.id) void pump();
      });
      const unwatch = hub.watch(rec.id, after);
      try {
        await pump();
        await holdOpen(stream);
      } finally {
        unwatch();
        off();
      }
    });
  });
}
