/**
 * The keyed queue (src/async/keyed-queue.ts): one turn at a time per key, keys side by side, and
 * a turn that gives up its place early never lets a later one start before the turns ahead end.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { KeyedQueue } from "../../src/async/keyed-queue.js";

/** A promise and the function that resolves it. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

test("work for one key runs in order, one at a time; another key does not wait; errors stay with their caller", async () => {
  const q = new KeyedQueue<string>();
  const log: string[] = [];
  const first = gate();
  const a1 = q.run("a", async () => {
    log.push("a1 start");
    await first.promise;
    log.push("a1 end");
    throw new Error("a1 failed");
  });
  const a2 = q.run("a", async () => {
    log.push("a2");
    return 2;
  });
  assert.equal(await q.run("b", async () => (log.push("b"), "b")), "b");
  assert.deepEqual(log, ["a1 start", "b"]);
  assert.equal(q.busy("a"), true);
  first.open();
  await assert.rejects(a1, /a1 failed/);
  assert.equal(await a2, 2);
  assert.deepEqual(log, ["a1 start", "b", "a1 end", "a2"]);
  assert.equal(q.busy("a"), false);
  assert.equal(q.busy("b"), false);
});

test("a turn given up while waiting does not let a later turn start before the running one ends", async () => {
  const q = new KeyedQueue<object>();
  const key = {};
  const running = q.turn(key);
  await running.ready;
  const gaveUp = q.turn(key);
  gaveUp.end();
  let started = false;
  const later = q.run(key, async () => {
    started = true;
  });
  await new Promise<void>((resolve) => setImmediate(resolve));
  assert.equal(started, false);
  assert.equal(q.busy(key), true);
  running.end();
  running.end();
  await later;
  assert.equal(started, true);
  assert.equal(q.busy(key), false);
});
