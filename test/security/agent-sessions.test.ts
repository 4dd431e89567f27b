/**
 * Who acts for whom, for the agent a session serves: a session an agent token creates serves
 * that token's own agent (the one its principal names), so `agent_id` cannot pick another agent's
 * saved scripts — the rule `/v1/agents/{agent_id}/…` follows (`requireReach`, src/server/http.ts).
 * An operator token may create a session for any agent. Each attack has a control. Real API on
 * 127.0.0.1, a real SQLite store. See docs/security.md ("Who acts for whom").
 */
import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import { script, startThreeTokens } from "../fixtures/three-tokens.js";

const start = (t: TestContext) => startThreeTokens(t, "toolshell-agent-sessions-");

test("an agent token cannot create a session serving another agent, by any spelling; control: its own agent and the operator's choice work", async (t) => {
  const { alice, bob, carol } = await start(t);
  assert.equal((await alice("POST", "/v1/agents/alice/scripts", script("greet", "echo alice-secret-plan"))).status, 201);
  // The attacks: bob's token names another agent in the one field that chooses it.
  const forged: Array<Record<string, unknown>> = [
    { id: "b1", agent_id: "alice" },
    { id: "b2", agent_id: "default" },
    { id: "b3", agent_id: "carol" },
    { id: "b4", agent_id: "Alice" },
    { id: "b5", agent_id: "alice", metadata: { principal: "bob" } },
    { id: "b6", agent_id: "alice", metadata: { agent_id: "bob", user: "alice" } },
  ];
  for (const b of forged) {
    const r = await bob("POST", "/v1/sessions", b);
    assert.equal(r.status, 403, `${JSON.stringify(b)}: ${JSON.stringify(r.json)}`);
    assert.match(r.json.error.message, /cannot reach/);
    assert.equal((await carol("GET", `/v1/sessions/${b.id}`)).status, 404, `${b.id} was not made`);
  }
  // Not a well-formed id at all: refused before anything (400).
  for (const agent_id of ["alice ", "../alice", ""]) assert.equal((await bob("POST", "/v1/sessions", { id: "b7", agent_id })).status, 400, JSON.stringify(agent_id));
  // Metadata naming an agent never chooses it: the session serves bob's own agent.
  const meta = await bob("POST", "/v1/sessions", { id: "b8", metadata: { agent_id: "alice" } });
  assert.equal(meta.status, 201, JSON.stringify(meta.json));
  assert.equal(meta.json.agent_id, "bob");
  const inMeta = await bob("POST", "/v1/sessions/b8/bash", { script: "tools scripts greet" });
  assert.doesNotMatch(JSON.stringify(inMeta.json), /alice-secret-plan/, "alice's script did not run in bob's session");

  // Controls: a session with no agent_id serves the token's own agent; naming it works too;
  // the operator serves any agent, and alice's script runs there.
  const own = await bob("POST", "/v1/sessions", { id: "bob-1" });
  assert.equal(own.status, 201, JSON.stringify(own.json));
  assert.equal(own.json.agent_id, "bob");
  assert.equal((await bob("POST", "/v1/sessions", { id: "bob-2", agent_id: "bob" })).status, 201);
  assert.equal((await alice("POST", "/v1/sessions", { id: "alice-1", agent_id: "alice" })).status, 201);
  const ran = await alice("POST", "/v1/sessions/alice-1/bash", { script: "tools scripts greet" });
  assert.equal(ran.json.stdout, "alice-secret-plan\n", JSON.stringify(ran.json));
  const ops = await carol("POST", "/v1/sessions", { id: "carol-1", agent_id: "alice" });
  assert.equal(ops.status, 201, JSON.stringify(ops.json));
  assert.equal((await carol("POST", "/v1/sessions", { id: "carol-2" })).json.agent_id, "default", "an operator's session serves the default agent unless it names one");
});

test("an agent token's list of sessions is its own, limited by the database; a session's metadata is at most 16 KiB; control: the operator lists every session, and metadata up to the bound is kept", async (t) => {
  const { alice, bob, carol } = await start(t);
  for (const id of ["a1", "a2", "a3"]) assert.equal((await alice("POST", "/v1/sessions", { id })).status, 201);
  // Newer than alice's: a list filtered after the limit would find none of alice's in the first row.
  for (const id of ["b1", "b2"]) assert.equal((await bob("POST", "/v1/sessions", { id })).status, 201);
  const ids = (r: { json: { sessions: Array<{ id: string }> } }) => r.json.sessions.map((s) => s.id).sort();
  assert.deepEqual(ids(await alice("GET", "/v1/sessions")), ["a1", "a2", "a3"]);
  assert.equal((await alice("GET", "/v1/sessions?limit=1")).json.sessions.length, 1);
  assert.deepEqual(ids(await bob("GET", "/v1/sessions?limit=5")), ["b1", "b2"]);
  assert.deepEqual(ids(await carol("GET", "/v1/sessions")), ["a1", "a2", "a3", "b1", "b2", "changes"]);

  const big = await bob("POST", "/v1/sessions", { id: "b-big", metadata: { pad: "x".repeat(16_384) } });
  assert.equal(big.status, 400, JSON.stringify(big.json));
  assert.match(big.json.error.message, /"metadata" is at most 16384 bytes as JSON/);
  assert.equal((await carol("GET", "/v1/sessions/b-big")).status, 404, "nothing was made");
  // Control: just under the bound is kept whole.
  const pad = "y".repeat(16_384 - JSON.stringify({ pad: "" }).length);
  const fits = await bob("POST", "/v1/sessions", { id: "b-fits", metadata: { pad } });
  assert.equal(fits.status, 201, JSON.stringify(fits.json).slice(0, 300));
  assert.equal((await bob("GET", "/v1/sessions/b-fits")).json.metadata.pad, pad);
});
