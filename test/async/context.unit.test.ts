/**
 * The shared async context (src/async/context.ts): each slot behaves as an AsyncLocalStorage of its
 * own — its value reaches every await and callback its `run` starts, nested runs shadow and then
 * restore it, and another slot's `run` leaves it as it is.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { contextSlot } from "../../src/async/context.js";

test("a slot carries its value across awaits, timers and nested runs of other slots", async () => {
  const a = contextSlot<string>("a");
  const b = contextSlot<number>("b");
  assert.equal(a.get(), undefined);
  const seen: unknown[] = [];
  await a.run("outer", async () => {
    seen.push(a.get(), b.get());
    await b.run(1, async () => {
      await new Promise((r) => setTimeout(r, 1));
      seen.push(a.get(), b.get());
      await a.run("inner", async () => {
        await Promise.resolve();
        seen.push(a.get(), b.get());
      });
      seen.push(a.get(), b.get());
    });
    seen.push(a.get(), b.get());
  });
  assert.deepEqual(seen, ["outer", undefined, "outer", 1, "inner", 1, "outer", 1, "outer", undefined]);
  assert.equal(a.get(), undefined);
  assert.equal(b.get(), undefined);
});

test("runs started side by side keep their own values; run returns what fn returns, and undefined is a value", async () => {
  const slot = contextSlot<string | undefined>("s");
  const other = contextSlot<string>("o");
  const work = (v: string) =>
    slot.run(v, async () => {
      await new Promise((r) => setTimeout(r, v === "first" ? 5 : 1));
      return slot.get();
    });
  assert.deepEqual(await Promise.all([work("first"), work("second")]), ["first", "second"]);
  assert.equal(slot.run("x", () => 42), 42);
  other.run("kept", () => slot.run("set", () => slot.run(undefined, () => assert.deepEqual([slot.get(), other.get()], [undefined, "kept"]))));
  assert.throws(() => slot.run("y", () => {
    throw new Error("thrown");
  }), /thrown/);
  assert.equal(slot.get(), undefined, "restored after a throw");
});
