/**
 * A store that waited for a session's lease until the deadline and gave up itself (the
 * PostgreSQL lease's statement time-out, `code: "session_busy"`) is answered as a busy session,
 * the same as when the runtime's own timer fires first; any other store error stays the store's.
 * Before, whichever fired first decided: under load the store's won and the shell call said
 * "the session store failed". See docs/deployment.md → Sizing.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { holdSession, SessionBusyError } from "../../src/runtime/lease.js";
import type { SessionStore } from "../../src/runtime/index.js";

const storeWith = (lease: SessionStore["lease"]) => ({ lease }) as unknown as SessionStore;

test("a store's own lease time-out is a busy session; another store error is passed on", async () => {
  const busy = storeWith(async () => {
    throw Object.assign(new Error("session s is held by another process: waited 300 ms for its lease"), { code: "session_busy" });
  });
  await assert.rejects(() => holdSession({}, busy, "s", 5_000, async () => {}, async () => "ran"), (err) => err instanceof SessionBusyError && /session s is busy/.test(err.message));
  const broken = storeWith(async () => {
    throw new Error("could not get a database connection");
  });
  await assert.rejects(() => holdSession({}, broken, "s", 5_000, async () => {}, async () => "ran"), (err) => !(err instanceof SessionBusyError) && /database connection/.test((err as Error).message));
});
