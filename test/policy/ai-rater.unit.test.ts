import assert from "node:assert/strict";
import { test } from "node:test";
import { MockLanguageModelV4 } from "ai/test";
import { z } from "zod";
import { createToolShell, defineTool } from "../../src/index.js";
import { aiSdkDecisionService, Rater, type Rating } from "../../src/policy/index.js";

function model(probability: number) {
  const calls: string[] = [];
  const m = new MockLanguageModelV4({
    doGenerate: async (options) => {
      calls.push(JSON.stringify(options.prompt));
      return {
        content: [{ type: "text", text: JSON.stringify({ probability, reason: "test" }) }],
        finishReason: { unified: "stop", raw: "stop" },
        usage: { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } },
        warnings: [],
      } as never;
    },
  });
  return { m, calls };
}

test("an AI SDK model rates a tool that declares nothing; the rating is cached", async () => {
  const { m, calls } = model(0.9);
  const rater = new Rater(aiSdkDecisionService(m), undefined, "ai");
  const tool = { name: "sync_accounts", source: "crm", description: "Synchronise accounts.", inputSchema: { type: "object" } };
  assert.equal(await rater.rate(tool), 0.9);
  assert.equal(await rater.rate(tool), 0.9);
  assert.equal(calls.length, 1, "one model call per tool");
  assert.match(calls[0], /sync_accounts/);
  assert.match(calls[0], /Synchronise accounts/);
});

test("through createToolShell: a tool the model rates as changing asks first; one rated as reading runs", async () => {
  const { m } = model(0.8);
  const ts = await createToolShell({
    decisionService: aiSdkDecisionService(m),
    tools: { sync_accounts: defineTool({ description: "Synchronise accounts.", inputSchema: z.object({}), execute: () => "synced" }) },
  });
  const r = await ts.session().bash("tools sync-accounts");
  assert.equal(r.tools?.stopped?.why, "rated_changes");
  await ts.close();
  const low = model(0.1);
  const ts2 = await createToolShell({
    decisionService: aiSdkDecisionService(low.m),
    tools: { sync_accounts: defineTool({ description: "Synchronise accounts.", inputSchema: z.object({}), execute: () => "synced" }) },
  });
  assert.equal((await ts2.session().bash("tools sync-accounts")).stdout, "synced\n");
  await ts2.close();
});

test("a model that fails is treated cautiously (0.5) and asked again next time", async () => {
  let n = 0;
  const m = new MockLanguageModelV4({ doGenerate: async () => { n++; throw new Error("model down"); } });
  const rater = new Rater(aiSdkDecisionService(m));
  const tool = { name: "x", source: "s", description: "", inputSchema: {} };
  assert.equal(await rater.rate(tool), 0.5);
  assert.equal(await rater.rate(tool), 0.5);
  assert.ok(n >= 2, "not cached after a failure");
});

test("a kept rating is known at once afterwards (no cache read per call); one that could not be kept is not", async () => {
  const { m } = model(0.9);
  let reads = 0;
  const kept = new Map<string, Rating>();
  const cache = {
    get: async (key: string) => (reads++, kept.get(key)),
    add: async (r: Rating) => (kept.has(r.key) ? kept.get(r.key)! : (kept.set(r.key, r), r)),
  };
  const rater = new Rater(aiSdkDecisionService(m), cache, "ai");
  const tool = { name: "sync_accounts", source: "crm", description: "Synchronise accounts.", inputSchema: { type: "object" } };
  assert.equal(rater.known(tool), undefined);
  assert.equal(await rater.rate(tool), 0.9);
  assert.equal(rater.known(tool), 0.9);
  assert.equal(await rater.rate(tool), 0.9);
  assert.equal(reads, 1, "the kept rating is not read again");
  // The same tool redefined (another description) is another key.
  assert.equal(rater.known({ ...tool, description: "Deletes accounts." }), undefined);
  const broken = new Rater(aiSdkDecisionService(model(0.9).m), { get: async () => undefined, add: async () => Promise.reject(new Error("disk full")) }, "ai");
  assert.equal(await broken.rate(tool), 0.9);
  assert.equal(broken.known(tool), undefined, "a rating the cache did not keep is asked again");
});
