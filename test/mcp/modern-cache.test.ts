/**
 * A 2026-era tool list is used as long as its `ttlMs` says and listed again after (MCP spec
 * 2026-07-28 "Caching"). Real 2026-only servers built on the SDK's v2 line count the
 * `tools/list` requests they get; no `subscriptions/listen` stream keeps these lists current.
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { recordingServer } from "../fixtures/mcp/recording-server.js";
import { call, closeAll, sourceFor } from "./helpers.js";

const servers: Array<{ close: () => Promise<void> }> = [];
after(async () => {
  await closeAll();
  for (const s of servers) await s.close();
});

const lists = (seen: Array<{ method: string }>) => seen.filter((s) => s.method === "tools/list").length;

test("a list with an hour's ttlMs is listed once, however often it is used", async () => {
  const server = await recordingServer({ "tools/list": { ttlMs: 3_600_000, cacheScope: "public" } });
  servers.push(server);
  const source = sourceFor("cache-hour", { url: server.url });
  await source.load();
  for (let i = 0; i < 3; i++) assert.equal((await call(source, "echo", { text: `n${i}` })).text, `echo: n${i}`);
  assert.equal(lists(server.seen), 1);
});

test("a list with ttlMs 0 is stale at once: using it lists again", async () => {
  const server = await recordingServer({ "tools/list": { ttlMs: 0 } });
  servers.push(server);
  const source = sourceFor("cache-zero", { url: server.url });
  await source.load();
  assert.equal(lists(server.seen), 1);
  const relisted = new Promise<void>((resolve) => source.onToolsChanged(() => resolve()));
  assert.equal((await call(source, "echo", { text: "a" })).text, "echo: a");
  await relisted;
  assert.equal(lists(server.seen), 2);
});
