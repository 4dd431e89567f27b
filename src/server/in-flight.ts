/**
 * The requests a stopping listener still owes an answer: every request but a GET (a GET is a page
 * or an event stream, which may stay open for good), until its response has been written. A host
 * that stops lets its work end (cli/graceful-stop.ts), then waits here for those answers to go
 * out before it ends the connections.
 *
 * See docs/deployment.md → Stopping a replica.
 */
import type { Server } from "node:http";
import { InFlight } from "../async/in-flight.js";

/** Counts `server`'s answers in flight; `written(waitMs)` resolves once none is, or after `waitMs`. */
export function answersInFlight(server: Pick<Server, "on">): { written(waitMs: number): Promise<void> } {
  const answers = new InFlight();
  server.on("request", (req, res) => {
    if (req.method === "GET") return;
    res.once("close", answers.begin());
  });
  return { written: async (waitMs) => void (await answers.idle(waitMs)) };
}
