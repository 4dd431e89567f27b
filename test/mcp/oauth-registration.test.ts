/**
 * A client registration is bound to its redirect URI: a sign-in from another host (another
 * loopback port) registers again instead of sending an authorization server a redirect URI it
 * never registered; the tokens of the old client stay refreshable until the new sign-in ends.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { signIn } from "../../src/mcp/auth/flow.js";
import { MemoryCredentialStore, SignInBroker, type OAuthContext } from "../../src/mcp/auth/index.js";
import { McpServerSource } from "../../src/mcp/index.js";
import { ToolCallError } from "../../src/tool/types.js";
import { startOAuthServer } from "../fixtures/mcp/oauth-server.js";
import { call, hostRedactor, rejection, tempDir } from "./helpers.js";
import { approve, configFor, type After } from "./oauth-helpers.js";

/** One host's OAuth context (its own loopback listener) over a store several hosts share. */
function host(t: After, store: MemoryCredentialStore): OAuthContext {
  const broker = new SignInBroker();
  t.after(() => broker.close());
  return { store, broker };
}

test("a sign-in on another host (another redirect port) registers again and succeeds; the first host's tokens keep working meanwhile", async (t) => {
  const f = await startOAuthServer();
  t.after(() => f.close());
  f.exactRedirectUris = true;
  const store = new MemoryCredentialStore();
  const config = configFor("demo", f.url);

  // Host 1: a call needs sign-in; a client is registered with host 1's redirect port.
  const first = host(t, store);
  const s1 = new McpServerSource(config, { logDir: tempDir(), oauth: first, redactor: hostRedactor(config) });
  t.after(() => s1.close());
  const err = (await rejection(() => s1.load())) as ToolCallError;
  assert.equal(err.code, "connection_required");
  assert.equal(f.counts.registrations, 1);

  // Host 2 (what `toolshell auth demo` is): its own port, the stored client is not registered for it.
  const second = host(t, store);
  const status = await signIn(config, "default", second, { onUrl: approve });
  assert.equal(status.state, "signed_in");
  assert.equal(f.counts.registrations, 2, "registered again for the new redirect URI");
  const stored = (await store.get("demo", "default"))!;
  assert.deepEqual(stored.clientRedirectUris, [second.broker.redirectUrl()]);

  // Host 1 now uses the new sign-in.
  await s1.load();
  assert.equal(JSON.parse((await call(s1, "whoami")).text!).user, "alice");

  // Signing in again on host 2 re-uses its registration.
  await signIn(config, "default", second, { onUrl: approve });
  assert.equal(f.counts.registrations, 2);

  // A sign-in started on host 1 and never finished does not take the tokens' client away: host 2's
  // tokens still refresh.
  const pending = (await rejection(() => signIn(config, "default", first, { onUrl: () => {}, signal: AbortSignal.timeout(200) }))) as Error;
  assert.match(pending.message, /did not finish/);
  assert.equal(f.counts.registrations, 3);
  f.expireAccessTokens();
  const s2 = new McpServerSource(config, { logDir: tempDir(), oauth: second, redactor: hostRedactor(config) });
  t.after(() => s2.close());
  await s2.load();
  assert.equal(JSON.parse((await call(s2, "whoami")).text!).user, "alice");
  assert.equal(f.counts.refreshes, 1);
});
