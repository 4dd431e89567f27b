/**
 * Secrets learned while running (docs/security.md "Secrets"): the OAuth tokens a sign-in obtains
 * are split into the same parts as config secrets, so a server that echoes only the signature of
 * its JWT access token, alone or percent-encoded, shows none of it. Through the library after a
 * real sign-in to the OAuth fixture (the CLI's run is in test/cli/auth.test.ts). Control: the
 * token's header and claims, which every reader may decode, stay readable.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { createToolShell } from "../../src/index.js";
import { MemoryCredentialStore, SignInBroker } from "../../src/mcp/auth/index.js";
import { startOAuthServer } from "../fixtures/mcp/oauth-server.js";

test("the signature of an OAuth access token obtained while running is redacted when a server echoes it alone; control: the token's header and claims show", async (t) => {
  const f = await startOAuthServer();
  t.after(() => f.close());
  const store = new MemoryCredentialStore();
  const broker = new SignInBroker();
  const shell = await createToolShell({ config: { mcpServers: { tracker: { url: f.url, load: "on_demand" } } }, oauth: { store, broker } });
  t.after(() => shell.close());
  const session = shell.session("learned");
  await session.ready;
  const first = await session.bash("tools tracker whoami");
  assert.match(first.stderr, /connection_required/, first.stderr);
  const [pending] = broker.pending();
  assert.ok(pending, "a sign-in is pending");
  const authz = await fetch(pending.url, { redirect: "manual" });
  assert.equal((await fetch(authz.headers.get("location")!)).status, 200);

  const token = (await store.get("tracker", "default"))!.tokens!.access_token;
  const [header, claims, signature] = token.split(".");
  assert.ok(signature && signature.length >= 16, token);
  const r = await session.bash("tools tracker leak-token --part signature; tools tracker leak-token --part header; tools tracker leak-token --part claims; tools tracker leak-token");
  assert.equal(r.stdout, `your token is [REDACTED]\nyour token is ${header}\nyour token is ${claims}\nyour token is [REDACTED]\n`, r.stderr);
  const events = JSON.stringify(session.events);
  assert.ok(!events.includes(signature), "no event holds the signature");
  assert.match(events, /leak_token/, "control: the calls were recorded");
});
