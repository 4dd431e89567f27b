/**
 * The requests a stopping listener still owes an answer: every request but a GET (a GET is a page
 * or an event stream, which may stay open for good), until its response has been written. A host
 * that stops lets its work end (cli/graceful-stop.ts), then waits here for those answers to go
 * out before it ends the connections.
 *
 * See docs/deployment.md → Stopping a replica.
 */
import type { Server } from "node:http";

/** Counts `server`'s answers in flight; `written(waitMs)` resolves once none is, or after `waitMs`. */
export function answersInFlight(server: Pick<Server, "on">): { written(waitMs: number): Promise<void> } {
  let open = 0;
  let waiters: Array<() => void> = [];
  server.on("request", (req, res) => {
    if (req.method === "GET") return;
    open++;
    res.once("close", () => {
      if (--open === 0) for (const w of waiters.splice(0)) w();
    });
  });
  return {
    written(waitMs) {
      if (open === 0) return Promise.resolve();
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          waiters = waiters.filter((w) => w !== done);
          resolve();
        }, waitMs);
        const done = () => (clearTimeout(timer), resolve());
        waiters.push(done);
      });
    },
  };
}
