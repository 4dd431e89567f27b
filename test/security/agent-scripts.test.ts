/**
 * Who acts for whom, for saved scripts and triggers (`/v1/agents/{agent_id}/…`): an agent token
 * reaches only the agent its principal names, and a trigger only when it acts for that principal
 * — the rule sessions follow (`mayReach`, src/server/http.ts). An operator token reaches every
 * agent. Each attack has a control: the owner's token, and the operator's, do the same request.
 * Real API on 127.0.0.1, a real SQLite store. See docs/security.md ("Who acts for whom").
 */
import assert from "node:assert/strict";
import path from "node:path";
import { test, type TestContext } from "node:test";
import { openHost, parseServerConfig, startApi } from "../../src/server/index.js";
import { ALICE, BOB, OPS, script, startThreeTokens } from "../fixtures/three-tokens.js";
import { tempDir } from "../fixtures/temp.js";

const start = (t: TestContext) => startThreeTokens(t, "toolshell-agent-scripts-");

test("an agent token cannot read, save, change or archive another agent's saved scripts; control: the owner and the operator can", async (t) => {
  const { alice, bob, carol } = await start(t);
  assert.equal((await alice("POST", "/v1/agents/alice/scripts", script("greet"))).status, 201);
  const attacks: Array<[string, string, unknown?]> = [
    ["GET", "/v1/agents/alice/scripts"],
    ["GET", "/v1/agents/alice/scripts/greet"],
    ["GET", "/v1/agents/alice/scripts/greet/versions"],
    ["POST", "/v1/agents/alice/scripts", script("planted", "tools memory delete-entities")],
    ["PUT", "/v1/agents/alice/scripts/greet", { description: "Says hi.", body: "rm -rf /data" }],
    ["PATCH", "/v1/agents/alice/scripts/greet", { body: "rm -rf /data" }],
    ["PATCH", "/v1/agents/alice/scripts/greet", { archived: true }],
    ["DELETE", "/v1/agents/alice/scripts/greet"],
    // Other spellings of the agent and the default agent every CLI session serves.
    ["POST", "/v1/agents/default/scripts", script("planted")],
    ["PUT", "/v1/agents/carol/scripts/x", script("x")],
  ];
  for (const [method, p, body] of attacks) {
    const r = await bob(method, p, body);
    assert.equal(r.status, 403, `${method} ${p}: ${JSON.stringify(r.json)}`);
    assert.match(r.json.error.message, /cannot reach/);
  }
  const still = await alice("GET", "/v1/agents/alice/scripts/greet");
  assert.equal(still.json.body, "echo hi", "the script is unchanged");
  assert.equal(still.json.version, 1);
  assert.equal((await alice("GET", "/v1/agents/alice/scripts/planted")).status, 404);
  // Controls: the owner changes hers, bob his own, the operator anyone's.
  assert.equal((await alice("PATCH", "/v1/agents/alice/scripts/greet", { body: "echo hello" })).status, 200);
  assert.equal((await bob("POST", "/v1/agents/bob/scripts", script("mine"))).status, 201);
  assert.equal((await carol("PUT", "/v1/agents/alice/scripts/greet", script("greet", "echo hey"))).status, 200);
  assert.equal((await carol("POST", "/v1/agents/default/scripts", script("shared"))).status, 201);
  assert.equal((await carol("GET", "/v1/agents/alice/scripts")).json.scripts.length, 1);
});

test("an agent token cannot make, see, change, run or read the runs of another principal's triggers; control: the owner and the operator can", async (t) => {
  const { alice, bob, carol } = await start(t);
  assert.equal((await alice("POST", "/v1/agents/alice/scripts", script("greet"))).status, 201);
  const made = await alice("POST", "/v1/agents/alice/triggers", { name: "hourly", kind: "webhook", script: "greet", input: {}, enabled: true });
  assert.equal(made.status, 201, JSON.stringify(made.json));
  const tid = made.json.id as string;
  const run = await alice("POST", `/v1/agents/alice/triggers/${tid}/run`, {});
  assert.equal(run.status, 201, JSON.stringify(run.json));
  const attacks: Array<[string, string, unknown?]> = [
    ["GET", "/v1/agents/alice/triggers"],
    ["POST", "/v1/agents/alice/triggers", { name: "planted", kind: "webhook", script: "greet", input: {} }],
    ["GET", `/v1/agents/alice/triggers/${tid}`],
    ["PATCH", `/v1/agents/alice/triggers/${tid}`, { enabled: false }],
    ["DELETE", `/v1/agents/alice/triggers/${tid}`],
    ["POST", `/v1/agents/alice/triggers/${tid}/run`, {}],
    ["GET", `/v1/agents/alice/triggers/${tid}/runs`],
    ["GET", `/v1/agents/alice/triggers/${tid}/runs/${run.json.id}`],
    // The webhook route with an API token instead of the trigger's secret: the same rule.
    ["POST", `/v1/webhooks/${tid}`, { n: 1 }],
    ["POST", `/v1/webhooks/${tid}?wait=true`, { n: 2 }],
  ];
  for (const [method, p, body] of attacks) {
    const r = await bob(method, p, body);
    assert.equal(r.status, 403, `${method} ${p}: ${JSON.stringify(r.json)}`);
  }
  // A trigger the operator made in bob's own agent acts for the operator: bob does not see or run it.
  assert.equal((await carol("POST", "/v1/agents/bob/scripts", script("greet"))).status, 201);
  const ops = await carol("POST", "/v1/agents/bob/triggers", { name: "ops", kind: "webhook", script: "greet", input: {} });
  assert.equal(ops.json.principal, "carol");
  assert.equal((await bob("POST", `/v1/agents/bob/triggers/${ops.json.id}/run`, {})).status, 403);
  assert.equal((await bob("GET", `/v1/agents/bob/triggers/${ops.json.id}/runs`)).status, 403);
  assert.equal((await bob("POST", `/v1/webhooks/${ops.json.id}?wait=true`, {})).status, 403, "nor through its webhook with bob's token");
  assert.equal((await alice("GET", `/v1/agents/alice/triggers/${tid}/runs`)).json.runs.length, 1, "none of bob's attempts ran the trigger");
  assert.deepEqual((await bob("GET", "/v1/agents/bob/triggers")).json.triggers, [], "the list leaves out what bob cannot reach");
  // Controls: the owner sees and runs hers, bob his own, the operator every one.
  assert.equal((await alice("GET", `/v1/agents/alice/triggers/${tid}/runs`)).json.runs.length, 1);
  const mine = await bob("POST", "/v1/agents/bob/triggers", { name: "mine", kind: "webhook", script: "greet", input: {} });
  assert.equal(mine.status, 201);
  assert.equal((await bob("POST", `/v1/webhooks/${mine.json.id}?wait=true`, {})).status, 200, "bob's token runs his own trigger's webhook");
  assert.deepEqual((await bob("GET", "/v1/agents/bob/triggers")).json.triggers.map((x: { name: string }) => x.name), ["mine"]);
  assert.equal((await carol("GET", `/v1/agents/alice/triggers/${tid}/runs`)).json.runs.length, 1);
  assert.equal((await carol("PATCH", `/v1/agents/alice/triggers/${tid}`, { enabled: false })).status, 200);
  assert.equal((await carol("GET", "/v1/agents/bob/triggers")).json.triggers.length, 2);
});

test("an operator's trigger in an agent's namespace runs only script versions saved before the operator last changed it; control: the agent's own trigger runs its new versions, and turning a trigger off and on changes nobody", async (t) => {
  const { bob, carol } = await start(t);
  const runOf = async (caller: typeof carol, id: string) => (await caller("POST", `/v1/agents/bob/triggers/${id}/run`, {})).json;
  const out = (run: { result?: { stdout?: string; stderr?: string }; error?: string }) => `${run.result?.stdout ?? ""}${run.result?.stderr ?? ""}${run.error ?? ""}`;
  assert.equal((await bob("POST", "/v1/agents/bob/scripts", script("report", "echo v1"))).status, 201);
  const ops = (await carol("POST", "/v1/agents/bob/triggers", { name: "ops-report", kind: "webhook", script: "report", input: {} })).json;
  assert.equal(ops.principal, "carol");
  const first = await runOf(carol, ops.id);
  assert.equal(first.status, "ok", JSON.stringify(first));
  assert.equal(first.result.stdout, "v1\n");

  // The agent saves a new version: the operator's trigger does not run it as the operator.
  await new Promise((r) => setTimeout(r, 5));
  const v2 = await bob("PUT", "/v1/agents/bob/scripts/report", script("report", "echo v2-as-$(tools whoami 2>/dev/null || echo someone)"));
  assert.equal(v2.status, 200);
  // The save says which triggers will refuse it, and how to accept it.
  assert.match(v2.json.warning, /^trigger ops-report \(acting for carol\) will refuse v2 of report: .*change the trigger/);
  assert.equal((await bob("PUT", "/v1/agents/bob/scripts/other", script("other", "echo x"))).json.warning, undefined, "control: a script no such trigger runs");
  const refused = await runOf(carol, ops.id);
  assert.equal(refused.status, "failed", JSON.stringify(refused));
  assert.doesNotMatch(out(refused), /v2-as/);
  assert.match(out(refused), /saved script report v2 was saved at .* after carol last changed trigger ops-report/);
  // Turning it off and on is no change of what it does: still refused.
  assert.equal((await carol("PATCH", `/v1/agents/bob/triggers/${ops.id}`, { enabled: false })).json.principal, "carol");
  assert.equal((await carol("PATCH", `/v1/agents/bob/triggers/${ops.id}`, { enabled: true })).status, 200);
  assert.equal((await runOf(carol, ops.id)).status, "failed");
  // Control: the operator changes the trigger (here: sends its script again, accepting what is
  // there now), and it runs v2.
  assert.equal((await carol("PATCH", `/v1/agents/bob/triggers/${ops.id}`, { script: "report" })).status, 200);
  const accepted = await runOf(carol, ops.id);
  assert.equal(accepted.status, "ok", JSON.stringify(accepted));
  assert.match(accepted.result.stdout, /^v2-as-/);

  // Control: bob's own trigger acts for bob and runs each version he saves.
  const mine = (await bob("POST", "/v1/agents/bob/triggers", { name: "mine", kind: "webhook", script: "report", input: {} })).json;
  await new Promise((r) => setTimeout(r, 5));
  assert.equal((await bob("PUT", "/v1/agents/bob/scripts/report", script("report", "echo v3"))).status, 200);
  const own = await runOf(bob, mine.id);
  assert.equal(own.status, "ok", JSON.stringify(own));
  assert.equal(own.result.stdout, "v3\n");
  // The operator turning bob's trigger off does not make it act for the operator.
  const toggled = (await carol("PATCH", `/v1/agents/bob/triggers/${mine.id}`, { enabled: false })).json;
  assert.equal(toggled.principal, "bob");
  assert.equal((await bob("GET", `/v1/agents/bob/triggers/${mine.id}`)).status, 200, "bob still reaches his trigger");
});

test("a token from the environment carries a name and a role by the config's rule: an agent one reaches only its own; control: an operator one from the environment reaches every agent", async (t) => {
  const dir = tempDir(t, "toolshell-env-roles-");
  const env = { TOOLSHELL_API_TOKENS: JSON.stringify([{ name: "carol", token: OPS, role: "operator" }, { name: "alice", token: ALICE, role: "agent" }]), TOOLSHELL_API_TOKEN: BOB };
  const host = await openHost({ store: path.join(dir, "state.db"), env, config: { manageScripts: true } });
  t.after(() => host.close());
  assert.deepEqual(host.server.tokenNames, ["carol", "alice", "token-3"]);
  assert.deepEqual(host.server.tokenRoles, ["operator", "agent", "agent"]);
  const api = await startApi(host, { host: "127.0.0.1", port: 0 });
  t.after(() => api.close());
  const call = (token: string, method: string, p: string, body?: unknown) => fetch(api.url + p, { method, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: body ? JSON.stringify(body) : undefined }).then((r) => r.status);
  // The attacks: the agent token from the environment on another agent's scripts and the servers.
  assert.equal(await call(ALICE, "POST", "/v1/agents/default/scripts", script("planted")), 403);
  assert.equal(await call(BOB, "POST", "/v1/agents/alice/scripts", script("planted")), 403);
  assert.equal(await call(ALICE, "POST", "/v1/servers", { name: "x", entry: { command: "true" } }), 403);
  assert.equal(await call(ALICE, "GET", "/v1/replicas"), 403, "the deployment's machines and processes are the operator's");
  // Controls: its own agent; the operator from the environment everywhere.
  assert.equal(await call(ALICE, "POST", "/v1/agents/alice/scripts", script("mine")), 201);
  assert.equal(await call(OPS, "POST", "/v1/agents/default/scripts", script("shared")), 201);
  assert.equal(await call(OPS, "GET", "/v1/replicas"), 200);
  // A wrong entry is refused by the config's rule, naming the variable.
  assert.throws(() => parseServerConfig({ server: { tokens: [], tokenNames: [], tokenRoles: [] } as never }, { TOOLSHELL_API_TOKENS: JSON.stringify([{ name: "x", token: OPS, role: "root" }]) }), /TOOLSHELL_API_TOKENS.*operator or agent/);
});
