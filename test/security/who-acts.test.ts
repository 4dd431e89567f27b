/**
 * Who acts for whom, on the HTTP API: identity comes from the authenticated caller only. A
 * session acts for the principal of the API token that creates it (`server.tokens[].name`), and
 * nothing a caller sends — `metadata.principal`, `agent_id`, another person's session id, a
 * trigger made for another agent, a forged gateway session — makes its calls use another
 * person's stored OAuth sign-in. Each attack has a control: the person's own token uses their
 * own sign-in. Real OAuth-protected MCP server, real API on 127.0.0.1, real SQLite store.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test, type TestContext } from "node:test";
import { openHost, startApi } from "../../src/server/index.js";
import { startOAuthServer } from "../fixtures/mcp/oauth-server.js";

const ALICE = "alice-token-0123456789abcdef";
const BOB = "bob-token-0123456789abcdef00";

/** A host whose API knows two named tokens, and alice signed in to the `tracker` server. */
async function start(t: TestContext) {
  const f = await startOAuthServer();
  t.after(() => f.close());
  const dir = mkdtempSync(path.join(tmpdir(), "toolshell-who-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const host = await openHost({
    store: path.join(dir, "state.db"),
    config: { manageScripts: true, mcpServers: { tracker: { url: f.url, load: "on_demand" } }, server: { tokens: [{ name: "alice", token: ALICE }, { name: "bob", token: BOB }] } },
  });
  t.after(() => host.close());
  const api = await startApi(host, { host: "127.0.0.1", port: 0 });
  t.after(() => api.close());
  const as = (token: string) => async (method: string, p: string, body?: unknown) => {
    const res = await fetch(api.url + p, { method, headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) }, body: body ? JSON.stringify(body) : undefined });
    return { status: res.status, json: (await res.json()) as any };
  };
  const alice = as(ALICE);
  const bob = as(BOB);
  // Alice signs in once, through her own session.
  assert.equal((await alice("POST", "/v1/sessions", { id: "alice-s" })).status, 201);
  const first = await alice("POST", "/v1/sessions/alice-s/bash", { script: "tools tracker whoami" });
  assert.equal(askedAs(first), "alice", JSON.stringify(first.json));
  const [pending] = (await alice("GET", "/v1/sign-ins?principal=alice")).json.pending;
  f.signInAs = "alice@example.com";
  const authz = await fetch(pending.url, { redirect: "manual" });
  assert.equal((await fetch(authz.headers.get("location")!)).status, 200);
  return { host, alice, bob };
}

/** The principal a `connection_required` error line asks to sign in as, if any. */
function askedAs(r: { json: any }): string | undefined {
  try {
    return /needs sign-in as "([^"]+)"/.exec(JSON.parse(String(r.json.stderr ?? r.json.result?.stderr ?? "").trim()).error.message)?.[1];
  } catch {
    return undefined;
  }
}

const usedAlice = (r: { json: any }) => JSON.stringify(r.json).includes("alice@example.com");

test("an API caller cannot pick the principal: metadata.principal, agent_id and other fields never reach another person's sign-in; control: alice's token uses hers", async (t) => {
  const { alice, bob } = await start(t);
  // Control: alice's own session runs as alice.
  const own = await alice("POST", "/v1/sessions/alice-s/bash", { script: "tools tracker whoami | jq -r .user" });
  assert.equal(own.json.stdout, "alice@example.com\n", JSON.stringify(own.json));
  // A session alice's token makes acts for alice whatever it is called.
  assert.equal((await alice("POST", "/v1/sessions", { id: "alice-2", agent_id: "alice", metadata: { principal: "alice" } })).status, 201);
  assert.equal((await alice("POST", "/v1/sessions/alice-2/bash", { script: "tools tracker whoami | jq -r .user" })).json.stdout, "alice@example.com\n");

  // The attacks: bob's token names alice every way a body can.
  const forged: Array<Record<string, unknown>> = [
    { id: "b1", metadata: { principal: "alice" } },
    { id: "b2", metadata: { principal: ["alice"] } },
    { id: "b3", metadata: { principal: "alice", client: "api:alice" } },
  ];
  for (const b of forged) {
    const r = await bob("POST", "/v1/sessions", b);
    assert.equal(r.status, 403, `${JSON.stringify(b)}: ${JSON.stringify(r.json)}`);
    assert.match(r.json.error.message, /principal of the API token/);
  }
  // An agent token's session serves its own agent only (agent-sessions.test.ts has the forms).
  for (const b of [{ id: "b4", agent_id: "alice" }, { id: "b6", agent_id: "alice", metadata: { user: "alice", sub: "alice@example.com" } }]) {
    assert.equal((await bob("POST", "/v1/sessions", b)).status, 403, JSON.stringify(b));
  }
  // Fields in metadata decide nothing: the session acts for bob.
  for (const b of [{ id: "b5", metadata: { agent_id: "alice" } }, { id: "b7", metadata: { user: "alice", sub: "alice@example.com" } }]) {
    assert.equal((await bob("POST", "/v1/sessions", b)).status, 201, JSON.stringify(b));
    const r = await bob("POST", `/v1/sessions/${b.id}/bash`, { script: "tools tracker whoami" });
    assert.ok(!usedAlice(r), `${JSON.stringify(b)} used alice's sign-in: ${JSON.stringify(r.json)}`);
    assert.equal(askedAs(r), "bob", JSON.stringify(r.json));
  }
  // Running in alice's session with bob's token is refused: it would use her sign-in.
  const inHers = await bob("POST", "/v1/sessions/alice-s/bash", { script: "tools tracker whoami" });
  assert.equal(inHers.status, 403, JSON.stringify(inHers.json));
  assert.ok(!usedAlice(inHers));
  // A session another surface made for the CLI user is not bob's either.
  const cli = await bob("POST", "/v1/sessions", { id: "cli-like" });
  assert.equal(cli.status, 201);
  assert.equal((await alice("POST", "/v1/sessions/cli-like/bash", { script: "true" })).status, 403, "alice cannot run in bob's session either");
});

test("a trigger acts for the token that made it, and another agent token cannot make or change one in an agent it does not act for; control: alice's trigger runs as alice", async (t) => {
  const { alice, bob } = await start(t);
  const saved = await alice("POST", "/v1/agents/alice/scripts", { name: "whoami-alice", description: "Who am I.", body: "tools tracker whoami" });
  assert.equal(saved.status, 201, JSON.stringify(saved.json));
  const made = await alice("POST", "/v1/agents/alice/triggers", { name: "by-alice", kind: "webhook", script: "whoami-alice", input: {}, enabled: true });
  assert.equal(made.status, 201, JSON.stringify(made.json));
  assert.equal(made.json.principal, "alice");
  // Control: alice's trigger uses her sign-in.
  const hers = await alice("POST", `/v1/agents/alice/triggers/${made.json.id}/run`, {});
  assert.equal(hers.json.status, "ok", JSON.stringify(hers.json));
  assert.ok(usedAlice(hers));
  // The attacks: bob's agent token saves a script or makes a trigger in alice's agent, or changes hers.
  assert.equal((await bob("POST", "/v1/agents/alice/scripts", { name: "whoami-bob", description: "Who am I.", body: "tools tracker whoami" })).status, 403);
  assert.equal((await bob("POST", "/v1/agents/alice/triggers", { name: "by-bob", kind: "webhook", script: "whoami-alice", input: {}, enabled: true })).status, 403);
  assert.equal((await bob("PATCH", `/v1/agents/alice/triggers/${made.json.id}`, { input: {} })).status, 403);
  const r = await bob("POST", `/v1/agents/alice/triggers/${made.json.id}/run`, {});
  assert.equal(r.status, 403, JSON.stringify(r.json));
  assert.ok(!usedAlice(r));
  // Bob's own trigger in his own agent is his.
  assert.equal((await bob("POST", "/v1/agents/bob/scripts", { name: "whoami", description: "Who am I.", body: "tools tracker whoami" })).status, 201);
  const his = await bob("POST", "/v1/agents/bob/triggers", { name: "by-bob", kind: "webhook", script: "whoami", input: {}, enabled: true });
  assert.equal(his.json.principal, "bob");
  const run = await bob("POST", `/v1/agents/bob/triggers/${his.json.id}/run`, {});
  assert.ok(!usedAlice(run), JSON.stringify(run.json));
});

test("session names and metadata the gateway and triggers own cannot be made through the API; control: an ordinary name is made", async (t) => {
  const { bob } = await start(t);
  const init = { protocolVersion: "2025-06-18", capabilities: { elicitation: {} }, clientInfo: { name: "forged", version: "1" } };
  for (const b of [
    { id: "mcp_0123456789abcdef", metadata: { mcp_initialize: init } },
    { id: "mcp_abc" },
    { id: "MCP_abc" },
    { id: "trg_trg_0123456789abcdef" },
    { id: "changes" },
  ]) {
    const r = await bob("POST", "/v1/sessions", b);
    assert.equal(r.status, 409, `${JSON.stringify(b)}: ${JSON.stringify(r.json)}`);
    assert.match(r.json.error.message, /reserved/);
  }
  for (const key of ["mcp_initialize", "trigger_id", "trigger_name"]) {
    const r = await bob("POST", "/v1/sessions", { id: `x-${key}`, metadata: { [key]: key === "mcp_initialize" ? init : "trg_x" } });
    assert.equal(r.status, 400, `${key}: ${JSON.stringify(r.json)}`);
  }
  assert.equal((await bob("POST", "/v1/sessions", { id: "mcpx_ordinary", metadata: { note: "fine" } })).status, 201, "control");
});
