/**
 * More sessions running a shell call at once than there are lease connections
 * (docs/deployment.md → Sizing), on a real PostgreSQL: the leases past the pool wait their turn
 * in order instead of failing on the pool's connection timeout; a wait is bounded by the lease
 * wait (the shell call's own deadline) and says so; many sessions' shell calls on a host with a
 * small lease pool all run.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { defineTool } from "../../src/index.js";
import { openHost } from "../../src/server/index.js";
import { openPostgresStore, type PostgresStore } from "../../src/store/index.js";
import { freshDatabase } from "../fixtures/postgres.js";

type T = { after(fn: () => unknown): void };

async function open(t: T, url: string, options: Parameters<typeof openPostgresStore>[1]): Promise<PostgresStore> {
  const s = await openPostgresStore(url, options);
  t.after(() => s.close());
  return s;
}

test("leases past the lease pool queue for a connection, past its connection timeout, and each gets one in turn", async (t) => {
  const url = await freshDatabase(t);
  const store = await open(t, url, { leasePoolSize: 2, connectTimeoutMs: 1_000 });
  const held = [await store.lease("s1"), await store.lease("s2")];
  const order: string[] = [];
  const rest = Array.from({ length: 10 }, (_, i) => `s${i + 3}`).map(async (id) => {
    const lease = await store.lease(id);
    order.push(id);
    await lease.release();
    return lease.fence;
  });
  // Both connections stay held past the pool's connection timeout (1 s): a lease that failed on
  // it would reject here. The fixed code waits however long this pause is.
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  assert.deepEqual(order, [], "no lease was had while both lease connections were held");
  for (const h of held) await h.release();
  const settled = await Promise.allSettled(rest);
  assert.deepEqual(
    settled.map((s) => (s.status === "fulfilled" ? s.value : String(s.reason))),
    Array(10).fill(1),
  );
  assert.deepEqual([...order].sort(), Array.from({ length: 10 }, (_, i) => `s${i + 3}`).sort());
});

test("a lease waiting for a connection gives up at its deadline and says why; the next one still gets its turn", async (t) => {
  const url = await freshDatabase(t);
  const store = await open(t, url, { leasePoolSize: 1, leaseWaitMs: 200 });
  const first = await store.lease("s1");
  // The wait is what was left of the 200 ms when it began (a millisecond may have passed by then).
  await assert.rejects(store.lease("s2"), (err: Error) => {
    const m = /could not get a database connection to hold session s2's lease: all 1 lease connections stayed busy for (\d+) ms \(storePool\.leases/.exec(err.message);
    assert.ok(m && Number(m[1]) > 150 && Number(m[1]) <= 200, err.message);
    return true;
  });
  await assert.rejects(store.lease("s3", Date.now()), /session s3's lease: all 1 lease connections stayed busy/);
  const next = store.lease("s4");
  await first.release();
  const lease = await next;
  assert.equal(lease.fence, 1);
  await lease.release();
});

test("40 sessions run a shell call at once on a host with 2 lease connections: every call runs", async (t) => {
  const url = await freshDatabase(t);
  let calls = 0;
  const tools = {
    note: defineTool({
      description: "Notes a call.",
      hints: { destructive: false, openWorld: false },
      inputSchema: { type: "object", properties: {} },
      execute: () => `noted ${++calls}`,
    }),
  };
  const host = await openHost({ store: url, config: { storePool: { leases: 2 } }, tools });
  t.after(() => host.close());
  const results = await Promise.all(Array.from({ length: 40 }, (_, i) => host.session(`s${i}`).bash(`tools note; echo s${i}`)));
  results.forEach((r, i) => {
    assert.equal(r.exit_code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`noted \\d+\\ns${i}\\n`));
  });
  assert.equal(calls, 40);
});
