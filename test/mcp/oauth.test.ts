/**
 * OAuth sign-in to a real OAuth-protected MCP server (the SDK's auth router and bearer middleware
 * on 127.0.0.1): discovery, dynamic registration, PKCE, the resource indicator, refresh before and
 * after expiry, a revoked refresh token, wrong audience, step-up, and two principals.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { signIn } from "../../src/mcp/auth/flow.js";
import { MemoryCredentialStore, SignInBroker, signInStatus, type OAuthContext } from "../../src/mcp/auth/index.js";
import { parseServersConfig, type HttpServerConfig } from "../../src/config/index.js";
import { McpServerSource } from "../../src/mcp/index.js";
import { ToolCallError } from "../../src/tool/types.js";
import { startOAuthServer, type OAuthFixture } from "../fixtures/mcp/oauth-server.js";
import { call, ctx, hostRedactor, rejection, tempDir } from "./helpers.js";

/** Does what a browser does with an authorization URL: follows the approval to the loopback redirect. */
async function approve(authorizationUrl: string): Promise<void> {
  const res = await fetch(authorizationUrl, { redirect: "manual" });
  assert.equal(res.status, 302, `the authorization endpoint redirects (got ${res.status})`);
  const callback = res.headers.get("location")!;
  assert.match(callback, /^http:\/\/127\.0\.0\.1:\d+\/callback\?code=/);
  const done = await fetch(callback);
  assert.equal(done.status, 200, await done.text());
}

function configFor(name: string, url: string, extra: Record<string, unknown> = {}): HttpServerConfig {
  return parseServersConfig({ mcpServers: { [name]: { url, ...extra } } }, { baseDir: process.cwd() })[0] as HttpServerConfig;
}

function oauthContext(t: { after: (fn: () => Promise<void> | void) => void }): OAuthContext & { secrets: string[] } {
  const broker = new SignInBroker();
  t.after(() => broker.close());
  const secrets: string[] = [];
  return { store: new MemoryCredentialStore(), broker, onSecret: (s) => secrets.push(s), secrets };
}

function source(t: { after: (fn: () => Promise<void> | void) => void }, config: HttpServerConfig, oauth: OAuthContext): McpServerSource {
  const s = new McpServerSource(config, { logDir: tempDir("toolshell-oauth-logs-"), oauth, redactor: hostRedactor(config) });
  t.after(() => s.close());
  return s;
}

async function fixture(t: { after: (fn: () => Promise<void> | void) => void }): Promise<OAuthFixture> {
  const f = await startOAuthServer();
  t.after(() => f.close());
  return f;
}

const asPrincipal = (principal: string) => ({ ...ctx(), session: { ...ctx().session, id: `s_${principal}`, metadata: { agent_id: principal }, auth: { principal, agentId: principal } } });

test("before sign-in a server answers connection_required with the sign-in URL (retryable); opening it signs in and the call works", async (t) => {
  const f = await fixture(t);
  const oauth = oauthContext(t);
  const s = source(t, configFor("linear", f.url), oauth);
  const err = (await rejection(() => s.load())) as ToolCallError;
  assert.ok(err instanceof ToolCallError);
  assert.equal(err.code, "connection_required");
  assert.equal(err.retryable, true);
  const url = /open (\S+) to sign in/.exec(err.message)?.[1];
  assert.ok(url, err.message);
  assert.match(err.message, /toolshell auth linear/);
  // The SDK discovered the authorization server from the 401's resource_metadata, registered a
  // client and built a PKCE authorization URL with the challenge's scope and the resource.
  const authz = new URL(url);
  assert.equal(authz.searchParams.get("code_challenge_method"), "S256");
  assert.ok(authz.searchParams.get("code_challenge"));
  assert.equal(authz.searchParams.get("scope"), "mcp:read");
  assert.equal(authz.searchParams.get("resource"), f.url);
  assert.equal(f.counts.registrations, 1);
  assert.deepEqual(oauth.broker.pending().map((p) => p.server), ["linear"]);

  await approve(url);
  assert.equal(oauth.broker.pending().length, 0);
  await s.load();
  const out = await call(s, "whoami");
  assert.deepEqual(JSON.parse(out.text!), { user: "alice", scopes: ["mcp:read"] });
  // Tokens are known to the redactor, never written anywhere else by the source.
  const stored = (await oauth.store.get("linear", "default"))!;
  assert.ok(oauth.secrets.includes(stored.tokens!.access_token));
  assert.ok(oauth.secrets.includes(stored.tokens!.refresh_token!));
  assert.equal(stored.serverUrl, f.url);
});

test("signIn (what `toolshell auth` runs): the URL is handed over, the redirect stores tokens, the state says who", async (t) => {
  const f = await fixture(t);
  const oauth = oauthContext(t);
  const config = configFor("notion", f.url);
  let shown = "";
  const status = await signIn(config, "default", oauth, {
    onUrl: async (url) => {
      shown = url;
      await approve(url);
    },
  });
  assert.match(shown, /\/authorize\?/);
  assert.equal(status.state, "signed_in");
  assert.equal(status.subject, "alice");
  assert.deepEqual(status.scopes, ["mcp:read"]);
  assert.ok(Date.parse(status.expires_at!) > Date.now() + 3000_000);
  assert.deepEqual(f.requestedResources, [f.url]);
  assert.equal(JSON.stringify(status).includes((await oauth.store.get("notion", "default"))!.tokens!.access_token), false);
  // Signing in again does a new authorization and re-uses the registered client.
  await signIn(config, "default", oauth, { onUrl: approve });
  assert.equal(f.counts.registrations, 1);
  assert.equal(f.counts.authorizations, 2);
});

test("an access token is refreshed before it expires, and after the server says it expired", async (t) => {
  const f = await fixture(t);
  const oauth = oauthContext(t);
  const config = configFor("sentry", f.url);
  await signIn(config, "default", oauth, { onUrl: approve });
  const s = source(t, config, oauth);
  await s.load();
  assert.equal(JSON.parse((await call(s, "whoami")).text!).user, "alice");

  // After expiry: the server answers 401, the SDK refreshes and sends the request again.
  f.expireAccessTokens();
  const before = f.counts.mcpRequests;
  assert.equal(JSON.parse((await call(s, "whoami")).text!).user, "alice");
  assert.equal(f.counts.refreshes, 1);
  assert.equal(f.counts.mcpRequests - before, 2, "one request refused, one sent again");

  // Before expiry: a token with less than a minute left is refreshed before the request.
  const creds = (await oauth.store.get("sentry", "default"))!;
  await oauth.store.put("sentry", "default", { ...creds, savedAt: Date.now() - (creds.tokens!.expires_in! - 30) * 1000 });
  const before2 = f.counts.mcpRequests;
  assert.equal(JSON.parse((await call(s, "whoami")).text!).user, "alice");
  assert.equal(f.counts.refreshes, 2);
  assert.equal(f.counts.mcpRequests - before2, 1, "no 401 was needed");
  assert.equal(f.counts.authorizations, 1, "the person was never asked again");
});

test("a revoked refresh token: the call answers connection_required with a new sign-in URL", async (t) => {
  const f = await fixture(t);
  const oauth = oauthContext(t);
  const config = configFor("stripe", f.url);
  await signIn(config, "default", oauth, { onUrl: approve });
  const s = source(t, config, oauth);
  await s.load();
  f.expireAccessTokens();
  f.revokeRefreshTokens();
  const err = (await rejection(() => call(s, "whoami"))) as ToolCallError;
  assert.equal(err.code, "connection_required", err.message);
  assert.equal(err.retryable, true);
  const url = /open (\S+) to sign in/.exec(err.message)![1];
  assert.equal((await oauth.store.get("stripe", "default"))?.tokens, undefined, "the refused tokens are forgotten");
  await approve(url);
  assert.equal(JSON.parse((await call(s, "whoami")).text!).user, "alice");
});

test("wrong audience: tokens of one server URL are never sent to another, and a token for another resource is refused", async (t) => {
  const f = await fixture(t);
  const oauth = oauthContext(t);
  await signIn(configFor("atlassian", f.url), "default", oauth, { onUrl: approve });
  const token = (await oauth.store.get("atlassian", "default"))!.tokens!.access_token;
  const here = source(t, configFor("atlassian", f.url), oauth);
  await here.load();

  // The same name now points at another resource: the stored tokens are not presented there.
  const moved = source(t, configFor("atlassian", f.otherUrl), oauth);
  const err = (await rejection(() => moved.load())) as ToolCallError;
  assert.equal(err.code, "connection_required");
  assert.ok(f.bearerTokens.some((h) => h.path === "/mcp" && h.authorization.includes(token)), "the token was used at its own resource");
  assert.equal(f.bearerTokens.filter((h) => h.path === "/other/mcp").length, 0, "nothing was presented to the other resource");
  assert.equal(new URL(/open (\S+) to sign in/.exec(err.message)![1]).searchParams.get("resource"), f.otherUrl);

  // A token issued for /mcp, presented to /other/mcp by hand, is refused by the server.
  const forced = source(t, configFor("forced", f.otherUrl, { headers: { Authorization: `Bearer ${token}` } }), oauth);
  const refused = (await rejection(() => forced.load())) as ToolCallError;
  assert.equal(refused.code, "connection_required");
  assert.match(refused.message, /HTTP 401/);
  const atOther = f.bearerTokens.filter((h) => h.path === "/other/mcp");
  assert.ok(atOther.length >= 1 && atOther.every((h) => h.authorization === `Bearer ${token}`), "only the hand-written header carried it");
});

test("two principals have their own tokens: each call is made as its own user", async (t) => {
  const f = await fixture(t);
  const oauth = oauthContext(t);
  const config = configFor("github", f.url);
  f.signInAs = "alice";
  await signIn(config, "agent-a", oauth, { onUrl: approve });
  f.signInAs = "bob";
  await signIn(config, "agent-b", oauth, { onUrl: approve });
  const s = source(t, config, oauth);
  await s.load();
  const [a, b] = await Promise.all([call(s, "whoami", {}, asPrincipal("agent-a")), call(s, "whoami", {}, asPrincipal("agent-b"))]);
  assert.equal(JSON.parse(a.text!).user, "alice");
  assert.equal(JSON.parse(b.text!).user, "bob");
  assert.notEqual((await oauth.store.get("github", "agent-a"))!.tokens!.access_token, (await oauth.store.get("github", "agent-b"))!.tokens!.access_token);
  // A third principal is not signed in: it is asked to sign in, not given someone else's token.
  const err = (await rejection(() => call(s, "whoami", {}, asPrincipal("agent-c")))) as ToolCallError;
  assert.equal(err.code, "connection_required");
  assert.match(err.message, /as "agent-c"/);
  assert.equal((await signInStatus(config, "agent-c", oauth)).state, "pending");
});

test("step-up: HTTP 403 insufficient_scope asks for a sign-in with the challenge's scopes, after which the call works", async (t) => {
  const f = await fixture(t);
  const oauth = oauthContext(t);
  const config = configFor("admin", f.url);
  await signIn(config, "default", oauth, { onUrl: approve });
  const s = source(t, config, oauth);
  await s.load();
  const err = (await rejection(() => call(s, "admin_op"))) as ToolCallError;
  assert.equal(err.code, "connection_required", err.message);
  const url = new URL(/open (\S+) to sign in/.exec(err.message)![1]);
  assert.equal(url.searchParams.get("scope"), "mcp:read mcp:admin");
  await approve(url.href);
  assert.equal((await call(s, "admin_op")).text, "admin ok for alice");
  assert.deepEqual((await signInStatus(config, "default", oauth)).scopes, ["mcp:read", "mcp:admin"]);
});
