/**
 * The console, the HTTP API and the person, as an attacker would go at them: a disabled webhook
 * trigger made to run anyway (a delivery queued before it was disabled, on SQLite and on
 * PostgreSQL with pg-boss). Each attack has a control that shows the attacked thing works when
 * allowed. Real hosts and their API on 127.0.0.1.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { defineTool } from "../../src/index.js";
import { openHost, startApi } from "../../src/server/index.js";
import { freshDatabase } from "../fixtures/postgres.js";

const TOKEN = "security-token-0123456789";

type T = { after: (fn: () => unknown) => void };

/** A host on `store` (default: a SQLite file) with a `mark` tool recording each run, and its API. */
async function start(t: T, store?: string) {
  const dir = mkdtempSync(path.join(tmpdir(), "toolshell-sec-person-"));
  const marks: string[] = [];
  const host = await openHost({
    store: store ?? path.join(dir, "state.db"),
    config: { server: { tokens: [TOKEN] } },
    tools: {
      mark: defineTool({
        description: "Records that it ran.",
        inputSchema: { type: "object", properties: { tag: { type: "string" } } },
        execute: ({ tag }) => {
          marks.push(String(tag));
          return "marked";
        },
      }),
    },
  });
  await host.startTriggers();
  const api = await startApi(host, { host: "127.0.0.1", port: 0 });
  t.after(async () => {
    await api.close();
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const call = async (method: string, p: string, body?: unknown, headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` }) => {
    const res = await fetch(api.url + p, { method, headers: { ...(body !== undefined ? { "content-type": "application/json" } : {}), ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      json = text;
    }
    return { status: res.status, json, headers: res.headers };
  };
  return { host, api, call, marks };
}

async function until(what: string, check: () => boolean | Promise<boolean>, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

for (const kind of ["SQLite", "PostgreSQL"] as const) {
  test(`a disabled webhook trigger runs nothing, not even a delivery queued before it was disabled (${kind}); control: enabled, the same deliveries run`, async (t) => {
    const { call, host, marks } = await start(t, kind === "PostgreSQL" ? await freshDatabase(t) : undefined);
    // Each run marks, then holds the trigger's queue a moment: a second delivery waits behind it.
    await host.store.saveScript("default", { name: "slow-mark", description: "Marks, then waits.", input_schema: { type: "object", properties: {} }, body: "tools mark tag=run\nsleep 2\n" });
    const made = await call("POST", "/v1/agents/default/triggers", { name: "hook", webhook: true, script: "slow-mark" });
    assert.equal(made.status, 201, JSON.stringify(made.json));
    const { id, secret } = made.json as { id: string; secret: string };
    const deliver = () => call("POST", `/v1/webhooks/${id}`, { x: 1 }, { authorization: `Bearer ${secret}` });
    const runs = async () => (await call("GET", `/v1/agents/default/triggers/${id}/runs`)).json.runs as Array<{ id: string; status: string; error?: string }>;

    // Control: enabled, two deliveries both run.
    const a = await deliver();
    const b = await deliver();
    assert.equal(a.status, 202);
    assert.equal(b.status, 202);
    await until("both control runs", async () => (await runs()).filter((r) => r.status === "ok").length === 2);
    assert.equal(marks.length, 2);

    // The attack: the first delivery starts, the second is queued behind it, then the trigger is disabled.
    const first = await deliver();
    const queued = await deliver();
    assert.equal(queued.status, 202);
    await until("the first run to start", () => marks.length === 3);
    const off = await call("PATCH", `/v1/agents/default/triggers/${id}`, { enabled: false });
    assert.equal(off.json.enabled, false);
    await until("both runs to end", async () => {
      const all = await runs();
      return [first.json.run_id, queued.json.run_id].every((rid) => all.some((r) => r.id === rid && r.status !== "running"));
    });
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(marks.length, 3, "the delivery queued before the trigger was disabled ran");
    const refused = (await runs()).find((r) => r.id === queued.json.run_id)!;
    assert.equal(refused.status, "failed");
    assert.match(refused.error ?? "", /disabled: nothing ran/);
    // A new delivery is refused at the door.
    const late = await deliver();
    assert.equal(late.status, 409, JSON.stringify(late.json));
    assert.equal(marks.length, 3);
  });
}
