/**
 * Two sign-ins of one server and principal in progress at once, in two hosts sharing one
 * credential store (a warm host loading the server while `toolshell auth` runs): each redeems its
 * code with its own PKCE verifier (RFC 7636 §4.5), so both finish.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { signIn } from "../../src/mcp/auth/flow.js";
import { MemoryCredentialStore, SignInBroker } from "../../src/mcp/auth/index.js";
import { startOAuthServer } from "../fixtures/mcp/oauth-server.js";
import { approve, configFor } from "./oauth-helpers.js";

test("a second sign-in started meanwhile in another host does not spoil the first one's code exchange", async (t) => {
  const f = await startOAuthServer();
  t.after(() => f.close());
  const store = new MemoryCredentialStore();
  const hosts = [new SignInBroker(), new SignInBroker()];
  t.after(() => Promise.all(hosts.map((b) => b.close())));
  const config = configFor("shared", f.url);
  const urls: string[] = [];
  const started = (n: number) => async () => {
    for (let i = 0; i < 600 && urls.length < n; i++) await new Promise((r) => setTimeout(r, 20));
  };
  const first = signIn(config, "default", { store, broker: hosts[0] }, { onUrl: (url) => void urls.push(url) });
  await started(1)();
  const second = signIn(config, "default", { store, broker: hosts[1] }, { onUrl: (url) => void urls.push(url) });
  await started(2)();
  assert.equal(urls.length, 2, "both sign-ins handed out their authorization URL");
  // The person finishes the first sign-in after the second one began.
  await approve(urls[0]);
  assert.equal((await first).state, "signed_in");
  await approve(urls[1]);
  assert.equal((await second).state, "signed_in");
  assert.equal(f.counts.codeExchanges, 2);
});
