/**
 * A token shorter than the minimum is reported where it came from: the config file's
 * `server.tokens[i]`, or the environment variable (README "HTTP API", docs/sessions.md).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { MIN_TOKEN_LENGTH, parseServerConfig } from "../../src/server/config.js";

const config = (server?: unknown) => ({ file: "/srv/toolshell.config.json", raw: server === undefined ? {} : { server } });
const long = "x".repeat(MIN_TOKEN_LENGTH);

test("a short token from the environment names the variable, not the config file", () => {
  assert.throws(() => parseServerConfig(config(), { TOOLSHELL_API_TOKEN: "short" }), { message: `TOOLSHELL_API_TOKEN (environment): a token is shorter than ${MIN_TOKEN_LENGTH} characters` });
  assert.throws(() => parseServerConfig(config({ tokens: [long] }), { TOOLSHELL_API_TOKENS: `${long}2,tiny` }), { message: /^TOOLSHELL_API_TOKENS \(environment\): a token is shorter/ });
});

test("a short token in the config file names its place in the file", () => {
  assert.throws(() => parseServerConfig(config({ tokens: [long, "tiny"] }), {}), { message: `/srv/toolshell.config.json: server.tokens[1]: a token is shorter than ${MIN_TOKEN_LENGTH} characters` });
  assert.deepEqual(parseServerConfig(config({ tokens: [long] }), { TOOLSHELL_API_TOKEN: `${long}-env` }).tokens, [long, `${long}-env`]);
});
