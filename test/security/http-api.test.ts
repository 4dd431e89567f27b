/**
 * The HTTP API as an attacker would use it, on a real server on 127.0.0.1: what pending entries
 * show a person, limits a caller cannot raise, what a webhook secret alone can read. Each attack
 * has a control that shows the attacked thing works when allowed.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { defineTool } from "../../src/index.js";
import { payTool } from "../fixtures/tools/pay.js";
import { openHost, startApi, type HostOptions } from "../../src/server/index.js";
import { apiCaller } from "../fixtures/api-call.js";

const TOKEN = "security-token-0123456789";

type T = { after: (fn: () => unknown) => void };

/** A host with a `pay` tool that always needs a person, and its API on 127.0.0.1. */
async function start(t: T, options: HostOptions = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), "toolshell-sec-api-"));
  const ran: string[] = [];
  const host = await openHost({
    store: path.join(dir, "state.db"),
    config: { server: { tokens: [TOKEN] } },
    tools: {
      pay: payTool(ran),
    },
    ...options,
  });
  const api = await startApi(host, { host: "127.0.0.1", port: 0 });
  t.after(async () => {
    await api.close();
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const call = apiCaller(api.url, TOKEN);
  return { host, api, call, ran, dir };
}

test("HTTP API: pending entries carry `display` with hidden characters escaped and flagged; `input` stays raw", async (t) => {
  const { call, ran } = await start(t);
  await call("POST", "/v1/sessions", { id: "hidden" });
  const stopped = await call("POST", "/v1/sessions/hidden/bash", { script: "tools pay to='alice\u202Eecila'" });
  assert.equal(stopped.json.tools.stopped.reason, "needs_approval");
  const lists = [(await call("GET", "/v1/sessions/hidden/tool-approvals")).json.pending, (await call("GET", "/v1/approvals")).json.pending];
  for (const pending of lists) {
    assert.equal(pending.length, 1);
    const p = pending[0];
    assert.equal(p.input.to, "alice\u202Eecila", "input is the raw call");
    assert.ok(!p.display.text.includes("\u202E"));
    assert.match(p.display.text, /alice\\u202eecila/);
    assert.deepEqual(p.display.flags, [{ path: "/to", codePoint: "U+202E", name: "RIGHT-TO-LEFT OVERRIDE" }]);
  }
  // Control: answering the entry the person saw lets that call run.
  const answered = await call("POST", "/v1/sessions/hidden/tool-approvals", { decisions: [{ request_id: lists[0][0].id, decision: "allow" }] });
  assert.equal(answered.status, 200, JSON.stringify(answered.json));
  assert.deepEqual(answered.json.pending, []);
  const again = await call("POST", "/v1/sessions/hidden/bash", { script: "tools pay to='alice\u202Eecila'" });
  assert.equal(again.json.exit_code, 0, JSON.stringify(again.json));
  assert.deepEqual(ran, ["alice\u202Eecila"]);
});

test("HTTP API: `timeout_ms` is capped by the host's effective time limit, not the config file's", async (t) => {
  // The host says 400 ms (createToolShell's option); the config file says nothing (default 120 s).
  const { call } = await start(t, { timeoutMs: 400 });
  await call("POST", "/v1/sessions", { id: "slow" });
  const r = await call("POST", "/v1/sessions/slow/bash", { script: "sleep 3; echo finished", timeout_ms: 10_000 });
  assert.equal(r.status, 200, JSON.stringify(r.json));
  assert.equal(r.json.tools?.stopped?.reason, "timeout", JSON.stringify(r.json));
  assert.match(r.json.tools.stopped.message, /time limit of 400 ms/);
  assert.ok(!r.json.stdout.includes("finished"));
  // Control: a shorter limit than the host's is taken as asked, and a quick script finishes.
  const quick = await call("POST", "/v1/sessions/slow/bash", { script: "echo finished", timeout_ms: 300 });
  assert.equal(quick.json.exit_code, 0);
  assert.equal(quick.json.stdout, "finished\n");
});

test("HTTP API: `?wait=true` returns the run to a webhook caller only when the trigger opts in", async (t) => {
  const { call, host } = await start(t);
  host.store.saveScript("default", { name: "leak", description: "Prints a secret-looking line.", input_schema: { type: "object", properties: {} }, body: "echo internal-report-42" });
  const made = await call("POST", "/v1/agents/default/triggers", { name: "hook", webhook: true, script: "leak" });
  assert.equal(made.status, 201, JSON.stringify(made.json));
  assert.equal(made.json.webhook_wait, undefined, "off by default");
  const secret = made.json.secret as string;
  const deliver = (wait: boolean, auth = `Bearer ${secret}`) => call("POST", `/v1/webhooks/${made.json.id}${wait ? "?wait=true" : ""}`, { x: 1 }, { authorization: auth });
  // The attack: the secret alone reads the run's output.
  const refused = await deliver(true);
  assert.equal(refused.status, 403, JSON.stringify(refused.json));
  assert.equal(refused.json.error.code, "forbidden");
  assert.ok(!JSON.stringify(refused.json).includes("internal-report-42"));
  const runsBefore = (await call("GET", `/v1/agents/default/triggers/${made.json.id}/runs`)).json.runs.length;
  assert.equal(runsBefore, 0, "a refused delivery does not run the script");
  // Without wait: 202 and a run id only.
  const accepted = await deliver(false);
  assert.equal(accepted.status, 202);
  assert.deepEqual(Object.keys(accepted.json).sort(), ["run_id", "status", "trigger_id"]);
  // Control: an API token may wait, and a trigger that opts in returns the run to the secret.
  const byToken = await deliver(true, `Bearer ${TOKEN}`);
  assert.equal(byToken.status, 200);
  assert.equal(byToken.json.result.stdout, "internal-report-42\n");
  const patched = await call("PATCH", `/v1/agents/default/triggers/${made.json.id}`, { webhook_wait: true });
  assert.equal(patched.json.webhook_wait, true);
  const opted = await deliver(true);
  assert.equal(opted.status, 200, JSON.stringify(opted.json));
  assert.equal(opted.json.result.stdout, "internal-report-42\n");
  // The field is checked: only webhook triggers have webhook callers.
  const bad = await call("POST", "/v1/agents/default/triggers", { name: "sched", schedule: "0 3 * * *", script: "leak", webhook_wait: true });
  assert.equal(bad.status, 400);
  assert.match(bad.json.error.message, /webhook_wait/);
});

test("HTTP API: a session's `client` is the token that created it; metadata cannot claim another (control: other metadata is kept)", async (t) => {
  const seen: unknown[] = [];
  const { call } = await start(t, {
    tools: {
      who: defineTool({
        description: "Says who reached it.",
        inputSchema: { type: "object", properties: {} },
        execute: (_input, ctx) => {
          seen.push(ctx.session.auth);
          return "ok";
        },
      }),
    },
  });
  const made = await call("POST", "/v1/sessions", { id: "spoof", metadata: { client: "cli:root", team: "blue" } });
  assert.equal(made.status, 201, JSON.stringify(made.json));
  assert.equal(made.json.metadata?.client, "api:token-1", JSON.stringify(made.json));
  assert.equal(made.json.metadata?.team, "blue");
  const r = await call("POST", "/v1/sessions/spoof/bash", { script: "tools who" });
  assert.equal(r.json.exit_code, 0, JSON.stringify(r.json));
  assert.equal((seen[0] as { client?: string }).client, "api:token-1");
});
