/**
 * The console, the HTTP API and the person, as an attacker would go at them: tokens guessed fast
 * at every door (the API's bearer, the console's sign-in form and cookie, a webhook's secret, the
 * HTTP MCP gateway), and a disabled webhook trigger made to run anyway (a delivery queued before
 * it was disabled, on SQLite and on PostgreSQL with pg-boss). Each attack has a control that
 * shows the attacked thing works when allowed. Real hosts and their API on 127.0.0.1.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { defineTool } from "../../src/index.js";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { serveHttp } from "../../src/gateway/index.js";
import { createToolShell } from "../../src/index.js";
import { openHost, startApi } from "../../src/server/index.js";
import { addressKey, TokenGuard } from "../../src/server/token-guard.js";
import { freshDatabase } from "../fixtures/postgres.js";
import { apiCaller } from "../fixtures/api-call.js";
import { eventually } from "../fixtures/eventually.js";

const TOKEN = "security-token-0123456789";

type T = { after: (fn: () => unknown) => void };

/** A host on `store` (default: a SQLite file) with a `mark` tool recording each run, and its API. */
async function start(t: T, store?: string, api_: { trustProxy?: boolean } = {}) {
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
  // The guard's clock is the test's: a wait passes when the test says so, never by how fast the machine is.
  const clock = manualClock();
  const api = await startApi(host, { host: "127.0.0.1", port: 0, guard: new TokenGuard({ now: clock.now }), ...api_ });
  t.after(async () => {
    await api.close();
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const call = apiCaller(api.url, TOKEN);
  return { host, api, call, marks, clock };
}

/** A clock that moves only when told: `pass(seconds)` lets a wait of that many seconds pass. */
function manualClock() {
  let t = Date.now();
  return { now: () => t, pass: (seconds: number) => void (t += seconds * 1000 + 1) };
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
    await eventually("both control runs", async () => (await runs()).filter((r) => r.status === "ok").length === 2);
    assert.equal(marks.length, 2);

    // The attack: one delivery starts, the other is queued behind it, then the trigger is disabled.
    // Which of the two starts first is the scheduler's choice (pg-boss does not promise the order
    // of two jobs sent at once), so the runs are told apart by what they did, not by order.
    const first = await deliver();
    const queued = await deliver();
    assert.equal(first.status, 202);
    assert.equal(queued.status, 202);
    await eventually("the first run to start", () => marks.length === 3);
    const off = await call("PATCH", `/v1/agents/default/triggers/${id}`, { enabled: false });
    assert.equal(off.json.enabled, false);
    await eventually("both runs to end", async () => {
      const all = await runs();
      return [first.json.run_id, queued.json.run_id].every((rid) => all.some((r) => r.id === rid && r.status !== "running"));
    });
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(marks.length, 3, "the delivery queued before the trigger was disabled ran");
    const both = (await runs()).filter((r) => r.id === first.json.run_id || r.id === queued.json.run_id);
    assert.deepEqual(both.map((r) => r.status).sort(), ["failed", "ok"], "one ran, the one queued behind it was refused");
    assert.match(both.find((r) => r.status === "failed")!.error ?? "", /disabled: nothing ran/);
    // A new delivery is refused at the door.
    const late = await deliver();
    assert.equal(late.status, 409, JSON.stringify(late.json));
    assert.equal(marks.length, 3);
  });
}

/** 150 requests sent at once; the statuses, in order. */
async function burst(send: (i: number) => Promise<{ status: number; headers: Headers }>): Promise<Array<{ status: number; retry: string | null }>> {
  const all = await Promise.all(Array.from({ length: 150 }, (_, i) => send(i)));
  return all.map((r) => ({ status: r.status, retry: r.headers.get("retry-after") }));
}

/**
 * Checks a burst of wrong tokens by count: exactly the 10 free ones and the one that starts the
 * wait are answered 401, the other 139 429 with a Retry-After in seconds. @returns the wait.
 */
function slowedDown(answers: Array<{ status: number; retry: string | null }>, wrong = 401): number {
  const plain = answers.filter((a) => a.status === wrong).length;
  const slowed = answers.filter((a) => a.status === 429);
  assert.equal(plain, 11, `${plain} of 150 wrong tokens were answered at full speed`);
  assert.equal(plain + slowed.length, 150, JSON.stringify(answers.map((a) => a.status)));
  for (const a of slowed) assert.match(a.retry ?? "", /^[1-9]\d*$/, "429 without Retry-After");
  return Math.max(...slowed.map((a) => Number(a.retry)));
}

test("150 wrong API tokens at once: past the first few each answers 429 with Retry-After, the right token too while the address waits; control: the right token works before, and again after the wait", async (t) => {
  const { call, clock } = await start(t);
  assert.equal((await call("GET", "/v1/sessions")).status, 200, "control: the right token");
  const answers = await burst((i) => call("GET", "/v1/sessions", undefined, { authorization: `Bearer wrong-token-${i}-0123456789` }));
  const seconds = slowedDown(answers);
  const during = await call("GET", "/v1/sessions");
  assert.equal(during.status, 429, "the right token was looked at while the address must wait (an oracle at full speed)");
  assert.equal(during.json.error.code, "too_many_requests");
  clock.pass(seconds - 1);
  assert.equal((await call("GET", "/v1/sessions")).status, 429, "the wait is not over a second early");
  clock.pass(1);
  assert.equal((await call("GET", "/v1/sessions")).status, 200, "the right token is not locked out after the wait");
});

test("a rotating X-Forwarded-For does not escape the slow-down unless a proxy is believed; control: with server.trustProxy, another client's right token is not held up", async (t) => {
  const plain = await start(t);
  const spoofed = await burst((i) => plain.call("GET", "/v1/sessions", undefined, { authorization: `Bearer wrong-token-${i}-0123456789`, "x-forwarded-for": `10.0.${i >> 8}.${i & 255}` }));
  slowedDown(spoofed);
  const proxied = await start(t, undefined, { trustProxy: true });
  slowedDown(await burst((i) => proxied.call("GET", "/v1/sessions", undefined, { authorization: `Bearer wrong-token-${i}-0123456789`, "x-forwarded-for": "203.0.113.7" })));
  assert.equal((await proxied.call("GET", "/v1/sessions", undefined, { authorization: `Bearer ${TOKEN}`, "x-forwarded-for": "203.0.113.7" })).status, 429);
  assert.equal((await proxied.call("GET", "/v1/sessions", undefined, { authorization: `Bearer ${TOKEN}`, "x-forwarded-for": "198.51.100.9" })).status, 200);
});

test("the console's sign-in form and cookie: wrong tokens at once are slowed down (429, Retry-After), the right one too while the address waits; control: signing in works before and after", async (t) => {
  const { api, clock } = await start(t);
  const login = (token: string) => fetch(`${api.url}/login`, { method: "POST", redirect: "manual", headers: { "content-type": "application/x-www-form-urlencoded" }, body: `token=${encodeURIComponent(token)}&next=/` });
  const page = (cookie: string) => fetch(`${api.url}/`, { redirect: "manual", headers: { cookie: `__Host-toolshell-token=${cookie}`, accept: "text/html" } });
  assert.equal((await login(TOKEN)).status, 303, "control: signing in");
  assert.equal((await page(TOKEN)).status, 200, "control: the cookie");
  slowedDown(await burst((i) => login(`wrong-token-${i}-0123456789`)));
  const during = await login(TOKEN);
  assert.equal(during.status, 429);
  assert.match(await during.text(), /Too many wrong tokens/);
  assert.equal((await page(TOKEN)).status, 429, "a cookie is looked at while the address waits");
  clock.pass(Number(during.headers.get("retry-after")));
  assert.equal((await login(TOKEN)).status, 303, "signing in works after the wait");
  // Wrong cookies count the same way.
  const cookies = await burst((i) => page(`wrong-cookie-${i}-0123456789`));
  slowedDown(cookies, 303);
});

test("a webhook's secret guessed 150 times at once is slowed down; control: the right secret is accepted after the wait", async (t) => {
  const { call, host, clock } = await start(t);
  await host.store.saveScript("default", { name: "noop", description: "Nothing.", input_schema: { type: "object", properties: {} }, body: "echo ok\n" });
  const made = await call("POST", "/v1/agents/default/triggers", { name: "hook", webhook: true, script: "noop" });
  const hook = (secret: string) => call("POST", `/v1/webhooks/${made.json.id}`, {}, { authorization: `Bearer ${secret}` });
  assert.equal((await hook(made.json.secret)).status, 202, "control: the right secret");
  const seconds = slowedDown(await burst((i) => hook(`whsec_wrong_${i}_0123456789`)));
  assert.equal((await hook(made.json.secret)).status, 429);
  clock.pass(seconds);
  assert.equal((await hook(made.json.secret)).status, 202);
});

test("the HTTP MCP gateway: 150 wrong tokens at once are slowed down; control: a client with the right token connects before and after the wait", async (t) => {
  const shell = await createToolShell({ config: {} });
  const clock = manualClock();
  const gateway = await serveHttp(shell, { port: 0, host: "127.0.0.1", tokens: [TOKEN], tokenGuard: new TokenGuard({ now: clock.now }) });
  t.after(async () => {
    await gateway.close();
    await shell.close();
  });
  const connect = async () => {
    const client = new Client({ name: "person", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
    await client.close();
  };
  await connect();
  const init = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } } };
  const answers = await burst((i) => fetch(gateway.url, { method: "POST", headers: { authorization: `Bearer wrong-token-${i}-0123456789`, "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify(init) }));
  const seconds = slowedDown(answers);
  await assert.rejects(connect(), /429|too many/i);
  clock.pass(seconds);
  await connect();
});

test("addresses count per IPv4 address and per IPv6 /64", () => {
  assert.equal(addressKey("::ffff:192.0.2.1"), "192.0.2.1");
  assert.equal(addressKey("2001:db8:1:2:aaaa::1"), addressKey("2001:db8:1:2:bbbb:cccc:dddd:eeee"));
  assert.notEqual(addressKey("2001:db8:1:2::1"), addressKey("2001:db8:1:3::1"));
  assert.notEqual(addressKey("192.0.2.1"), addressKey("192.0.2.2"));
});

test("the slow-down counts tokens, not time: a burst the host gets through slowly (150 wrong tokens over 3 s) has the same 11 looked at; control: the right token after the wait, and another address, are answered", () => {
  let now = 1_000_000;
  const guard = new TokenGuard({ now: () => now });
  const answers = Array.from({ length: 150 }, () => {
    const a = guard.weigh("192.0.2.1", () => false);
    now += 20;
    return a;
  });
  assert.equal(answers.filter((a) => a.wait === 0).length, 11, "a wrong token sent while the address waits counts too");
  assert.ok(answers.slice(11).every((a) => !a.ok && a.wait > 0));
  // A right token during the wait answers 429 too (no oracle) and does not lengthen it.
  const during = guard.weigh("192.0.2.1", () => true);
  assert.deepEqual([during.ok, during.wait > 0], [false, true]);
  assert.deepEqual(guard.weigh("198.51.100.9", () => true), { ok: true, wait: 0 }, "control: another address");
  now += during.wait * 1000;
  assert.deepEqual(guard.weigh("192.0.2.1", () => true), { ok: true, wait: 0 }, "control: the right token after the wait");
  assert.deepEqual(guard.weigh("192.0.2.1", () => false), { ok: false, wait: 0 }, "the count started again");
});
