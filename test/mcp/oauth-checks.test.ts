/**
 * Authorization-server data is checked once, where the authorization URL is made, for every
 * surface (a pending sign-in is what `toolshell auth`, the gateway, the console and the HTTP API
 * show): https (or loopback http) authorization URLs only, PKCE S256 required, the RFC 9207 `iss`
 * of the authorization response, credentials bound to their issuer (a resource that moves
 * re-discovers), and "signed in" only once the resource takes the token. Each attack has a control.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { signIn } from "../../src/mcp/auth/flow.js";
import { signInStatus } from "../../src/mcp/auth/index.js";
import { McpServerSource } from "../../src/mcp/index.js";
import { ToolCallError } from "../../src/tool/types.js";
import { startOAuthServer, type OAuthFixture } from "../fixtures/mcp/oauth-server.js";
import { call, hostRedactor, rejection, tempDir } from "./helpers.js";
import { approve, browse, configFor, oauth, type After } from "./oauth-helpers.js";

async function fixture(t: After): Promise<OAuthFixture> {
  const f = await startOAuthServer();
  t.after(() => f.close());
  return f;
}

for (const endpoint of ["vscode://anthropic.claude/authorize", "file:///etc/passwd", "javascript:alert(1)//", "http://evil.example/authorize", "https://user:pw@evil.example/authorize"]) {
  test(`an authorization endpoint ${endpoint} is never handed to a person, on any surface`, async (t) => {
    const f = await fixture(t);
    f.metadata = { authorization_endpoint: endpoint };
    const o = oauth(t);
    const config = configFor("demo", f.url);
    let shown: string | undefined;
    const err = (await rejection(() => signIn(config, "default", o, { onUrl: (u) => void (shown = u), signal: AbortSignal.timeout(5000) }))) as Error;
    assert.equal(shown, undefined);
    assert.match(err.message, /^MCP server "demo": its (authorization server.s authorization URL uses .*; only https \(or http on this machine\) is opened — refused|OAuth metadata was refused: authorization_endpoint: URL cannot use javascript)/);
    // The call path (what the gateway, console and HTTP API show) has no pending sign-in either.
    const s = new McpServerSource(config, { logDir: tempDir(), oauth: o, redactor: hostRedactor(config) });
    t.after(() => s.close());
    const failed = (await rejection(() => s.load())) as ToolCallError;
    assert.equal(failed.code, "connection_required");
    assert.doesNotMatch(failed.message, /open \S+ to sign in/);
    assert.deepEqual(o.broker.pending(), []);
  });
}

test("control: an https-less loopback authorization server (the fixture) is accepted", async (t) => {
  const f = await fixture(t);
  const status = await signIn(configFor("demo", f.url), "default", oauth(t), { onUrl: approve });
  assert.equal(status.state, "signed_in");
});

for (const [name, methods] of [["only plain", ["plain"]], ["missing", null]] as const) {
  test(`PKCE: code_challenge_methods_supported ${name} → refused before any registration`, async (t) => {
    const f = await fixture(t);
    f.metadata = { code_challenge_methods_supported: methods };
    const err = (await rejection(() => signIn(configFor("demo", f.url), "default", oauth(t), { onUrl: approve }))) as Error;
    assert.match(err.message, /does not offer PKCE with S256 .*refused/);
    assert.equal(f.counts.registrations, 0);
    assert.equal(f.counts.authorizations, 0);
  });
}

for (const [name, advertised, iss] of [
  ["names another issuer", true, "https://evil.example/"],
  ["is missing although advertised", true, "none"],
  ["names another issuer, not advertised", false, "https://evil.example/"],
] as const) {
  test(`RFC 9207: an authorization response whose iss ${name} is refused and nothing is redeemed`, async (t) => {
    const f = await fixture(t);
    f.metadata = { authorization_response_iss_parameter_supported: advertised };
    f.responseIss = iss;
    const o = oauth(t);
    let status = 0;
    const err = (await rejection(() => signIn(configFor("demo", f.url), "default", o, { onUrl: async (u) => void (status = await browse(u)) }))) as Error;
    assert.equal(status, 400);
    assert.match(err.message, /did not finish: the authorization response .*(iss|issuer).*nothing was redeemed/);
    assert.equal(f.counts.codeExchanges, 0);
    assert.equal((await signInStatus(configFor("demo", f.url), "default", o)).state, "signed_out");
  });
}

test("control: an authorization response with the right iss (advertised) signs in", async (t) => {
  const f = await fixture(t);
  f.metadata = { authorization_response_iss_parameter_supported: true };
  const status = await signIn(configFor("demo", f.url), "default", oauth(t), { onUrl: approve });
  assert.equal(status.state, "signed_in");
  assert.equal(f.counts.codeExchanges, 1);
});

test("a resource that moves to another authorization server: discovered again, signed in there, the old tokens never sent there", async (t) => {
  const a = await fixture(t);
  const b = await fixture(t);
  const o = oauth(t);
  const config = configFor("demo", a.url);
  await signIn(config, "default", o, { onUrl: approve });
  const old = (await o.store.get("demo", "default"))!.tokens!;
  const s = new McpServerSource(config, { logDir: tempDir(), oauth: o, redactor: hostRedactor(config) });
  t.after(() => s.close());
  await s.load();
  assert.equal(JSON.parse((await call(s, "whoami")).text!).user, "alice");

  a.movedTo = b;
  // A call: refused, and the new sign-in URL is at the new authorization server.
  const err = (await rejection(() => call(s, "whoami"))) as ToolCallError;
  assert.equal(err.code, "connection_required", err.message);
  const url = /open (\S+) to sign in/.exec(err.message)![1];
  assert.equal(new URL(url).origin, new URL(b.url).origin);
  // toolshell auth discovers again too, and signs in at the new one.
  b.signInAs = "bob";
  const status = await signIn(config, "default", o, { onUrl: approve });
  assert.equal(status.state, "signed_in");
  assert.equal(status.subject, "bob");
  assert.equal(JSON.parse((await call(s, "whoami")).text!).user, "bob");
  assert.equal(b.tokenRequests.some((r) => r.refreshToken === old.refresh_token), false, "the old refresh token never went to the new server");
  assert.equal(b.bearerTokens.length, 0);
});

test("toolshell auth says signed in only when the resource takes the token", async (t) => {
  const f = await fixture(t);
  f.refuseTokens = true;
  const o = oauth(t);
  const config = configFor("demo", f.url);
  const err = (await rejection(() => signIn(config, "default", o, { onUrl: approve }))) as Error;
  assert.match(err.message, /^MCP server "demo" refused the token its authorization server issued \(HTTP 401 invalid_token\), so the sign-in is not kept/);
  assert.equal((await signInStatus(config, "default", o)).state, "signed_out");
  f.refuseTokens = false;
  assert.equal((await signIn(config, "default", o, { onUrl: approve })).state, "signed_in");
});
