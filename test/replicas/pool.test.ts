/**
 * The PostgreSQL connections a host opens are set in the config (`storePool`; docs/deployment.md
 * → Sizing): with `leases: 1`, a second session's shell call waits for the one lease connection
 * while the first session holds it, on a real PostgreSQL store; a bad value is refused with
 * where it is.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { defineTool } from "../../src/index.js";
import { ConfigError, parseConfig } from "../../src/config/index.js";
import { openHost } from "../../src/server/index.js";
import { freshDatabase } from "../fixtures/postgres.js";
import { gatedWait } from "./helpers.js";

test("storePool.leases bounds the sessions running a shell call at once on one host", async (t) => {
  const url = await freshDatabase(t);
  const ran: string[] = [];
  const { wait, release } = gatedWait(ran);
  const tools = {
    wait,
    note: defineTool({
      description: "Notes a call.",
      hints: { destructive: false, openWorld: false },
      inputSchema: { type: "object", properties: {} },
      execute: () => {
        ran.push("note");
        return "noted";
      },
    }),
  };
  const host = await openHost({ store: url, config: { storePool: { leases: 1 } }, tools });
  t.after(() => host.close());
  const first = host.session("s1").bash("tools wait");
  while (!ran.includes("wait")) await new Promise((resolve) => setTimeout(resolve, 10));
  const second = host.session("s2").bash("tools note");
  // Another session, so no turn in this process holds it back: only the one lease connection does.
  await new Promise((resolve) => setTimeout(resolve, 500));
  assert.deepEqual(ran, ["wait"], "the second session waited for the lease connection");
  release();
  assert.equal((await first).exit_code, 0);
  const done = await second;
  assert.equal(done.exit_code, 0, done.stderr);
  assert.deepEqual(ran, ["wait", "note"]);
});

test("storePool takes whole numbers from 1, and defaults to 10 query and 20 lease connections", () => {
  assert.deepEqual(parseConfig({}, { baseDir: "/tmp" }).storePool, { queries: 10, leases: 20 });
  assert.deepEqual(parseConfig({ storePool: { leases: 50 } }, { baseDir: "/tmp" }).storePool, { queries: 10, leases: 50 });
  assert.throws(
    () => parseConfig({ storePool: { leases: 0 } }, { baseDir: "/tmp" }),
    (err: unknown) => err instanceof ConfigError && /storePool\.leases/.test(err.message) && /whole number from 1/.test(err.message),
  );
  assert.throws(() => parseConfig({ storePool: { lease: 5 } }, { baseDir: "/tmp" }), (err: unknown) => err instanceof ConfigError && /lease/.test(err.message));
});
