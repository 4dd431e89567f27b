/**
 * A token shorter than the minimum is reported where it came from: the config file's
 * `server.tokens[i]`, or the environment variable (README "HTTP API", docs/sessions.md).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { MIN_TOKEN_LENGTH, parseConfig, parseServerConfig } from "../../src/config/index.js";

const FILE = "/srv/toolshell.config.json";
const config = (server?: unknown) => parseConfig(server === undefined ? {} : { server }, { baseDir: "/srv", file: FILE });
const long = "x".repeat(MIN_TOKEN_LENGTH);

test("a short token from the environment names the variable, not the config file", () => {
  assert.throws(() => parseServerConfig(config(), { TOOLSHELL_API_TOKEN: "short" }), { message: `environment: TOOLSHELL_API_TOKEN: a token is shorter than ${MIN_TOKEN_LENGTH} characters` });
  assert.throws(() => parseServerConfig(config({ tokens: [long] }), { TOOLSHELL_API_TOKENS: `${long}2,tiny` }), { message: /^environment: TOOLSHELL_API_TOKENS: a token is shorter/ });
});

test("a short token in the config file names its place in the file", () => {
  assert.throws(() => config({ tokens: [long, "tiny"] }), (err: Error) => err.message.includes(`${FILE}: server.tokens[1]:`) && !err.message.includes("environment"));
  assert.deepEqual(parseServerConfig(config({ tokens: [long] }), { TOOLSHELL_API_TOKEN: `${long}-env` }).tokens, [long, `${long}-env`]);
});
