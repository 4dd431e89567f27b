/**
 * `WWW-Authenticate` as RFC 9110 §11.6.1 writes it: several challenges (a `Basic` before the
 * `Bearer`), whitespace around `=`, quoted-string escapes, token68, unquoted values; read by one
 * parser wherever toolshell reads a challenge (sign-in, the transport's 401, step-up's 403).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { bearerChallenge, parseChallenges } from "../../src/mcp/auth/challenge.js";
import { signIn } from "../../src/mcp/auth/flow.js";
import { McpServerSource } from "../../src/mcp/index.js";
import { ToolCallError } from "../../src/tool/types.js";
import { startOAuthServer } from "../fixtures/mcp/oauth-server.js";
import { call, hostRedactor, rejection, tempDir } from "./helpers.js";
import { approve, configFor, oauth } from "./oauth-helpers.js";

test("the parser reads every form RFC 9110 allows", () => {
  assert.deepEqual(parseChallenges('Basic realm="x", Bearer resource_metadata = "http://a/b", scope="a b"'), [
    { scheme: "basic", params: { realm: "x" } },
    { scheme: "bearer", params: { resource_metadata: "http://a/b", scope: "a b" } },
  ]);
  assert.deepEqual(parseChallenges('Negotiate abc123==, BEARER Realm="a\\"b\\\\c" , error=invalid_token'), [
    { scheme: "negotiate", params: {}, token68: "abc123==" },
    { scheme: "bearer", params: { realm: 'a"b\\c', error: "invalid_token" } },
  ]);
  assert.deepEqual(parseChallenges("Basic YWxhZGRpbjpvcGVuc2VzYW1l, Bearer"), [
    { scheme: "basic", params: {}, token68: "YWxhZGRpbjpvcGVuc2VzYW1l" },
    { scheme: "bearer", params: {} },
  ]);
  assert.deepEqual(parseChallenges("Negotiate, Basic realm=x,, Bearer scope=s"), [
    { scheme: "negotiate", params: {} },
    { scheme: "basic", params: { realm: "x" } },
    { scheme: "bearer", params: { scope: "s" } },
  ]);
  assert.deepEqual(bearerChallenge("Bearer resource_metadata=http://x/y,scope=s"), { resourceMetadataUrl: new URL("http://x/y"), scope: "s" });
  assert.deepEqual(bearerChallenge('Basic realm="only basic"'), {});
  assert.deepEqual(bearerChallenge(null), {});
  // Bad input never throws: what can be read is read.
  assert.deepEqual(parseChallenges('Bearer realm="unterminated'), [{ scheme: "bearer", params: {} }]);
  assert.deepEqual(bearerChallenge('Bearer resource_metadata="not a url", error="x"'), { error: "x" });
});

const forms: Array<[string, (standard: string) => string]> = [
  ["a Basic challenge before the Bearer one", (std) => `Basic realm="legacy", ${std}`],
  ["spaces around = and a token68 challenge first", (std) => `Negotiate YWJjZA==, ${std.replace(/(\w+)="/g, '$1 = "')}`],
  ["parameter names in other case and escapes", (std) => std.replace(/resource_metadata=/, "Resource_Metadata=").replace(/^Bearer /, 'Bearer realm="a\\"quoted\\" realm", ')],
];

for (const [name, rewrite] of forms) {
  test(`a challenge with ${name}: the call asks for sign-in with the challenge's scope, toolshell auth signs in, the call works`, async (t) => {
    const f = await startOAuthServer();
    t.after(() => f.close());
    // The resource's metadata is found only through the challenge: its well-known path answers 404.
    f.hideProtectedResourceMetadata = true;
    f.wwwAuthenticate = rewrite;
    const o = oauth(t);
    const config = configFor("demo", f.url);
    const s = new McpServerSource(config, { logDir: tempDir(), oauth: o, redactor: hostRedactor(config) });
    t.after(() => s.close());
    const err = (await rejection(() => s.load())) as ToolCallError;
    assert.equal(err.code, "connection_required", err.message);
    const url = new URL(/open (\S+) to sign in/.exec(err.message)?.[1] ?? "http://missing/");
    assert.equal(url.searchParams.get("scope"), "mcp:read");
    assert.equal(url.searchParams.get("resource"), f.url);
    const status = await signIn(config, "default", o, { onUrl: approve });
    assert.equal(status.state, "signed_in");
    await s.load();
    assert.equal(JSON.parse((await call(s, "whoami")).text!).user, "alice");
  });
}
