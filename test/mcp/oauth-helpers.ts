/** Helpers of the sign-in tests: a browser that approves, a server entry by URL, a host's OAuth context. */
import assert from "node:assert/strict";
import { parseServersConfig, type HttpServerConfig } from "../../src/config/index.js";
import { MemoryCredentialStore, SignInBroker, type OAuthContext } from "../../src/mcp/auth/index.js";

/** What `t.after` needs: a test context or a suite's. */
export type After = { after: (fn: () => Promise<void> | void) => void };

/** Follows the authorization to the loopback redirect (it must redirect); returns the redirect's answer. */
async function follow(authorizationUrl: string): Promise<Response> {
  const res = await fetch(authorizationUrl, { redirect: "manual" });
  assert.equal(res.status, 302, `the authorization endpoint redirects (got ${res.status}: ${await res.text()})`);
  return fetch(res.headers.get("location")!);
}

/** A browser: follows the authorization to the loopback redirect; returns the redirect's status. */
export async function browse(authorizationUrl: string): Promise<number> {
  return (await follow(authorizationUrl)).status;
}

/** A person who approves: the authorization redirects and the loopback redirect answers 200. */
export async function approve(authorizationUrl: string): Promise<void> {
  const done = await follow(authorizationUrl);
  assert.equal(done.status, 200, await done.text());
}

/** One HTTP server entry `name` at `url`, with further keys (`oauth`, …), parsed as the config loader does. */
export function configFor(name: string, url: string, extra: Record<string, unknown> = {}): HttpServerConfig {
  return parseServersConfig({ mcpServers: { [name]: { url, ...extra } } }, { baseDir: process.cwd() })[0] as HttpServerConfig;
}

/** An OAuth context of its own: credentials in memory and a sign-in broker closed after the test. */
export function oauth(t: After): OAuthContext {
  const broker = new SignInBroker();
  t.after(() => broker.close());
  return { store: new MemoryCredentialStore(), broker };
}
