/**
 * Sign-in through the HTTP API: a session's call to a server that needs sign-in answers
 * `connection_required` with the URL, `GET /v1/sign-ins` lists the pending sign-in of the
 * session's principal, and once the person opens it the next shell call works as that person.
 * Tokens persist in the SQLite store per principal.
 */
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { openHost, startApi } from "../../src/server/index.js";
import { apiCaller } from "../fixtures/api-call.js";
import { startOAuthServer } from "../fixtures/mcp/oauth-server.js";

const TOKEN = "test-token-sign-ins-0123456789";

test("GET /v1/sign-ins lists the pending sign-in of a session's principal; after it, the call runs as that person", async (t) => {
  const f = await startOAuthServer();
  t.after(() => f.close());
  const dir = mkdtempSync(path.join(tmpdir(), "toolshell-signins-"));
  const host = await openHost({ store: path.join(dir, "state.db"), config: { mcpServers: { tracker: { url: f.url, load: "on_demand" } }, server: { tokens: [{ name: "carol", token: TOKEN }] } } });
  t.after(() => host.close());
  const api = await startApi(host, { host: "127.0.0.1", port: 0 });
  t.after(() => api.close());
  const call = apiCaller(api.url, TOKEN);

  // The session acts for the principal of the token that creates it: its name, carol.
  assert.equal((await call("POST", "/v1/sessions", { id: "s1" })).status, 201);
  const first = await call("POST", "/v1/sessions/s1/bash", { script: "tools tracker whoami" });
  assert.equal(first.json.exit_code, 1);
  const line = JSON.parse(first.json.stderr.trim()) as { error: { code: string; message: string; retryable: boolean } };
  assert.equal(line.error.code, "connection_required");
  assert.equal(line.error.retryable, true);
  assert.match(line.error.message, /needs sign-in as "carol": open http/);

  const listed = await call("GET", "/v1/sign-ins?principal=carol");
  assert.equal(listed.status, 200);
  assert.equal(listed.json.pending.length, 1);
  const pending = listed.json.pending[0];
  assert.equal(pending.server, "tracker");
  assert.equal(pending.principal, "carol");
  assert.equal(pending.session_id, "s1");
  assert.ok(line.error.message.includes(pending.url));
  assert.deepEqual(listed.json.sign_ins, [{ server: "tracker", principal: "carol", state: "pending", url: pending.url }]);
  assert.deepEqual((await call("GET", "/v1/sign-ins?principal=dave")).json.pending, []);

  // The person opens the URL; the authorization server redirects to the host's loopback listener.
  f.signInAs = "carol@example.com";
  const authz = await fetch(pending.url, { redirect: "manual" });
  assert.equal((await fetch(authz.headers.get("location")!)).status, 200);

  const after = await call("GET", "/v1/sign-ins");
  assert.deepEqual(after.json.pending, []);
  const state = after.json.sign_ins.find((s: { principal: string }) => s.principal === "carol");
  assert.equal(state.state, "signed_in");
  assert.equal(state.subject, "carol@example.com");
  assert.equal(JSON.stringify(after.json).includes("access_token"), false);

  const second = await call("POST", "/v1/sessions/s1/bash", { script: "tools tracker whoami | jq -r .user" });
  assert.equal(second.json.exit_code, 0, second.json.stderr);
  assert.equal(second.json.stdout, "carol@example.com\n");
  assert.ok((await host.store.credentials.get("tracker", "carol"))?.tokens, "the tokens are in the store, under the principal");
  assert.equal(await host.store.credentials.get("tracker", "default"), undefined);
});
