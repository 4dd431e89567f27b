/**
 * Token roles on the HTTP API (`server.tokens[].role`): an `agent` token changes nothing the host
 * runs (its MCP servers) and reaches only its own principal's sessions — their events, steps,
 * approvals, questions, and the lists of them; an `operator` token (the console's people) does
 * both. Each attack has a control: the same request with an operator's token, or the owner's,
 * works. Real API on 127.0.0.1, a real stdio MCP server, a real SQLite store.
 * See docs/security.md ("Who acts for whom").
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test, type TestContext } from "node:test";
import { openHost, startApi } from "../../src/server/index.js";
import { NPM_SERVERS } from "../fixtures/mcp/index.js";
import { apiCaller } from "../fixtures/api-call.js";

const OPS = "carol-operator-0123456789ab";
const ALICE = "alice-token-0123456789abcdef";
const BOB = "bob-token-0123456789abcdef00";

async function start(t: TestContext, tokens: unknown[]) {
  const dir = mkdtempSync(path.join(tmpdir(), "toolshell-roles-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const host = await openHost({
    store: path.join(dir, "state.db"),
    env: { SECRET_HOST_VAR: "host-secret-value-42" },
    config: {
      manageScripts: false,
      mcpServers: { memory: { command: NPM_SERVERS.memory, env: { MEMORY_FILE_PATH: path.join(dir, "m.jsonl") } } },
      approval: { tools: { "memory read-graph": "always" } },
      server: { tokens },
    },
  });
  t.after(() => host.close());
  const api = await startApi(host, { host: "127.0.0.1", port: 0 });
  t.after(() => api.close());
  const as = (token: string) => apiCaller(api.url, token);
  const login = (token: string) => fetch(`${api.url}/login`, { method: "POST", redirect: "manual", headers: { "content-type": "application/x-www-form-urlencoded" }, body: `token=${encodeURIComponent(token)}&next=/` });
  return { dir, api, as, login };
}

const ROLES = [
  { name: "carol", token: OPS, role: "operator" },
  { name: "alice", token: ALICE, role: "agent" },
  { name: "bob", token: BOB },
];

/** A stdio "server" that runs a host command and writes what it sees of the host's environment. */
const hostCommand = (file: string) => ({ command: "sh", args: ["-c", `id > ${file}; echo "$X" >> ${file}`], env: { X: "${SECRET_HOST_VAR}" } });

/** Waits (bounded) for a file a started command writes. */
async function written(file: string): Promise<string> {
  for (let i = 0; i < 200 && !existsSync(file); i++) await new Promise((r) => setTimeout(r, 50));
  return readFileSync(file, "utf8");
}

test("an agent token cannot change what the host runs: POST, PUT, DELETE /v1/servers refused, nothing started or stored; control: the operator's token does each", async (t) => {
  const { dir, as } = await start(t, ROLES);
  const bob = as(BOB);
  const alice = as(ALICE);
  const carol = as(OPS);
  const ran = path.join(dir, "ran-by-agent");
  for (const [who, call] of [["bob (no role, several tokens)", bob], ["alice (agent)", alice]] as const) {
    const add = await call("POST", "/v1/servers", { name: "evil", entry: hostCommand(ran) });
    assert.equal(add.status, 403, `${who}: ${JSON.stringify(add.json)}`);
    assert.match(add.json.error.message, /operator token/);
    const put = await call("PUT", "/v1/servers/memory", { entry: hostCommand(ran) });
    assert.equal(put.status, 403, `${who} PUT: ${JSON.stringify(put.json)}`);
    const del = await call("DELETE", "/v1/servers/memory");
    assert.equal(del.status, 403, `${who} DELETE: ${JSON.stringify(del.json)}`);
    // Reading the list stays open to every token.
    assert.equal((await call("GET", "/v1/servers")).status, 200);
  }
  assert.equal(existsSync(ran), false, "no agent-added command ran");
  const servers = (await carol("GET", "/v1/servers")).json.servers.map((s: { name: string; state: string }) => [s.name, s.state]);
  assert.deepEqual(servers, [["memory", "loaded"]], "the memory server is unchanged");

  // Control: the operator adds (the command runs, `${VAR}` from the host's environment), changes and removes.
  const byOps = path.join(dir, "ran-by-operator");
  const added = await carol("POST", "/v1/servers", { name: "probe", entry: { ...hostCommand(byOps), load: "eager" } });
  assert.ok(added.status === 201, JSON.stringify(added.json));
  assert.match(await written(byOps), /host-secret-value-42/);
  assert.equal((await carol("PUT", "/v1/servers/probe", { entry: { command: NPM_SERVERS.memory, env: { MEMORY_FILE_PATH: path.join(dir, "m2.jsonl") } } })).status, 200);
  assert.equal((await carol("DELETE", "/v1/servers/probe")).status, 204);
});

test("an agent token cannot sign in to the console; control: the operator's token can, and a server's only token without a role is its operator", async (t) => {
  const { login } = await start(t, ROLES);
  assert.equal((await login(BOB)).status, 401, "bob (no role among several)");
  assert.equal((await login(ALICE)).status, 401, "alice (agent)");
  assert.equal((await login(OPS)).status, 303, "control: carol (operator)");

  // A deployment with one token and no role keeps what it had: the operator's console and servers.
  const one = await start(t, [BOB]);
  assert.equal((await one.login(BOB)).status, 303);
  assert.equal((await one.as(BOB)("DELETE", "/v1/servers/memory")).status, 204);
});

test("an agent token reaches only its own principal's sessions: get, events, steps, approvals, questions and every list; control: the owner and the operator reach them", async (t) => {
  const { as } = await start(t, ROLES);
  const alice = as(ALICE);
  const bob = as(BOB);
  const carol = as(OPS);
  assert.equal((await alice("POST", "/v1/sessions", { id: "s1" })).status, 201);
  const stop = await alice("POST", "/v1/sessions/s1/bash", { script: "echo preview-of-alice; tools memory read-graph" });
  const requestId = stop.json.tools?.stopped?.request_id;
  assert.ok(requestId, JSON.stringify(stop.json));
  assert.equal((await bob("POST", "/v1/sessions", { id: "b1" })).status, 201);

  const reads = ["/v1/sessions/s1", "/v1/sessions/s1/events", "/v1/sessions/s1/steps", "/v1/sessions/s1/tool-approvals", "/v1/sessions/s1/questions"];
  for (const p of reads) {
    const r = await bob("GET", p);
    assert.equal(r.status, 403, `${p}: ${JSON.stringify(r.json)}`);
    assert.doesNotMatch(JSON.stringify(r.json), /preview-of-alice|read-graph/);
    assert.equal((await alice("GET", p)).status, 200, `control (owner): ${p}`);
    assert.equal((await carol("GET", p)).status, 200, `control (operator): ${p}`);
  }
  // Acting: answering alice's approval, answering a question, running a shell call.
  const answer = await bob("POST", "/v1/sessions/s1/tool-approvals", { decisions: [{ request_id: requestId, decision: "allow" }] });
  assert.equal(answer.status, 403, JSON.stringify(answer.json));
  assert.equal((await bob("POST", "/v1/sessions/s1/questions", { question_id: "q1", action: "cancel" })).status, 403);
  assert.equal((await bob("POST", "/v1/sessions/s1/bash", { script: "echo hi" })).status, 403);
  assert.equal((await alice("GET", "/v1/sessions/s1/tool-approvals")).json.pending.length, 1, "bob's answer changed nothing");

  // Lists: bob sees his own session only, none of alice's approvals or sign-ins.
  const listed = (await bob("GET", "/v1/sessions")).json.sessions.map((s: { id: string }) => s.id);
  assert.deepEqual(listed, ["b1"]);
  assert.deepEqual((await bob("GET", "/v1/approvals")).json.pending, []);
  assert.deepEqual((await bob("GET", "/v1/questions")).json.pending, []);
  const signIns = (await bob("GET", "/v1/sign-ins?principal=alice")).json;
  assert.ok([...signIns.pending, ...signIns.sign_ins].every((s: { principal?: string }) => s.principal === undefined || s.principal === "bob"), JSON.stringify(signIns));
  // Controls: alice and the operator see alice's; the operator answers it.
  assert.ok((await alice("GET", "/v1/sessions")).json.sessions.some((s: { id: string }) => s.id === "s1"));
  const all = (await carol("GET", "/v1/sessions")).json.sessions.map((s: { id: string }) => s.id);
  assert.ok(all.includes("b1") && all.includes("s1"), JSON.stringify(all));
  assert.equal((await carol("GET", "/v1/approvals")).json.pending.length, 1);
  const ops = await carol("POST", "/v1/sessions/s1/tool-approvals", { decisions: [{ request_id: requestId, decision: "allow" }] });
  assert.equal(ops.status, 200, JSON.stringify(ops.json));
});
