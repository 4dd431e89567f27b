/**
 * What `toolshell serve` says when it starts (cli/sessions.ts `serveBanner`): where it listens,
 * the console's address, and a warning when nobody could sign in to the console (no token with
 * the operator role; docs/security.md "Who acts for whom").
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { serveBanner } from "../../src/cli/sessions.js";

const api = { url: "http://127.0.0.1:8787", urls: ["http://127.0.0.1:8787"], tls: false };

test("with no operator token the banner warns that nobody can sign in to the console; control: one operator token, no warning", () => {
  const none = serveBanner(api, "state.db", false, 0);
  assert.match(none, /toolshell: console at http:\/\/127\.0\.0\.1:8787\/ \(sign in with an API token\)\n/);
  assert.match(none, /toolshell: warning: no API token has the operator role, so nobody can sign in to the console; give one "role": "operator" in server\.tokens/);
  assert.doesNotMatch(serveBanner(api, "state.db", false, 1), /warning/);
});
