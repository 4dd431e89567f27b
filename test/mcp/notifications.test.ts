/**
 * Server log notifications land in the server's log file; a call whose signal aborts (a shell
 * call that stops or times out) sends `notifications/cancelled`, which the server sees.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, test } from "node:test";
import { FEATURE_SERVER, tsxCommand } from "../fixtures/mcp/index.js";
import { call, closeAll, ctx, rejection, sourceFor } from "./helpers.js";

after(closeAll);

async function until(check: () => boolean, ms = 5000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) if (check()) return true;
  return check();
}

test("notifications/message goes to the server's log file", async () => {
  const source = sourceFor("feature", tsxCommand(FEATURE_SERVER));
  await source.load();
  assert.equal((await call(source, "log", { text: "disk almost full" })).text, "logged");
  assert.ok(await until(() => readFileSync(source.logFile, "utf8").includes("log warning fixture: disk almost full")), readFileSync(source.logFile, "utf8"));
});

test("an aborted call sends notifications/cancelled to the server", async () => {
  const source = sourceFor("feature", tsxCommand(FEATURE_SERVER));
  await source.load();
  const stop = new AbortController();
  setTimeout(() => stop.abort(new Error("the shell call stopped")), 300);
  const error = await rejection(() => call(source, "wait", {}, ctx(stop.signal)));
  assert.equal((error as { code?: string }).code, "unavailable");
  assert.ok(await until(() => /feature-server: cancelled request \d+/.test(readFileSync(source.logFile, "utf8"))), readFileSync(source.logFile, "utf8"));
});
