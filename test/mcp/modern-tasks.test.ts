/**
 * The Tasks extension as a client (`io.modelcontextprotocol/tasks`): against a real 2026-only
 * server built on the SDK's v2 line with the extension's messages added
 * (test/fixtures/mcp/modern-server.ts, tool `job`), a tool answered with a task is waited for
 * (polled with `tasks/get`), its status reaches the person as progress, and a shell call that
 * stops first sends `tasks/cancel`; the work starts once per call.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import type { ProgressUpdate } from "../../src/tool/index.js";
import { tsxCommand } from "../fixtures/mcp/index.js";
import { call, closeAll, ctx, rejection, sourceFor } from "./helpers.js";

const MODERN_SERVER = path.join(path.dirname(fileURLToPath(import.meta.url)), "../fixtures/mcp/modern-server.ts");
after(closeAll);

async function until(check: () => boolean, ms = 10_000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) if (check()) return true;
  return check();
}

const starts = (log: string) => log.match(/^job started /gm)?.length ?? 0;

test("a tool answered with a task: the call waits for the task's result, showing its status as progress", async () => {
  const source = sourceFor("tasks", tsxCommand(MODERN_SERVER));
  await source.load();
  const reports: ProgressUpdate[] = [];
  const out = await call(source, "job", { ms: 400, id: "task-1" }, { ...ctx(), reportProgress: (p) => reports.push(p) });
  assert.equal(out.text, "job done");
  assert.equal(reports[0]?.message, "task working: started");
  assert.ok(reports.some((r) => /^task working: working \(poll \d+\)$/.test(r.message ?? "")), JSON.stringify(reports));
  assert.equal(reports.at(-1)?.message, "task completed: finished");
  // The log file is written asynchronously: wait for both lines.
  assert.ok(await until(() => /tool call answered with task task-1/.test(readFileSync(source.logFile, "utf8")) && starts(readFileSync(source.logFile, "utf8")) > 0));
  assert.equal(starts(readFileSync(source.logFile, "utf8")), 1);
});

test("a shell call that stops while its task runs sends tasks/cancel for that task", async () => {
  const source = sourceFor("tasks", tsxCommand(MODERN_SERVER));
  await source.load();
  const stop = new AbortController();
  const running = rejection(() => call(source, "job", { ms: 60_000, id: "task-2" }, ctx(stop.signal)));
  assert.ok(await until(() => /tool call answered with task task-2/.test(readFileSync(source.logFile, "utf8"))));
  stop.abort(new Error("the shell call stopped"));
  const error = (await running) as { code?: string };
  assert.equal(error.code, "unavailable");
  assert.ok(await until(() => /^job cancelled task-2$/m.test(readFileSync(source.logFile, "utf8"))), readFileSync(source.logFile, "utf8"));
  assert.equal(starts(readFileSync(source.logFile, "utf8")), 1);
});
