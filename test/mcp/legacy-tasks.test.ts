/**
 * The 2025-11-25 core's tasks as a client, against the reference "everything" server (npm
 * `@modelcontextprotocol/server-everything`, stdio), whose `simulate-research-query` declares
 * `execution.taskSupport: "required"`: called without a `task` parameter it refuses (-32601).
 * The call is sent as a task, its status reaches the person as progress, its question
 * (`elicitation/create` tied to the task, delivered while `tasks/result` waits) reaches the
 * person, a stopped shell call sends `tasks/cancel`, and a durable step that runs again follows
 * the task its first attempt started (src/mcp/tasks.ts; docs/mcp.md "Protocol eras").
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, test } from "node:test";
import type { ProgressUpdate, Question } from "../../src/tool/index.js";
import { NPM_SERVERS } from "../fixtures/mcp/index.js";
import { call, closeAll, ctx, rejection, sourceFor } from "./helpers.js";

after(closeAll);

const everything = () => sourceFor("ev", { command: NPM_SERVERS.everything, args: ["stdio"] });

async function until(check: () => boolean, ms = 15_000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) if (check()) return true;
  return check();
}

test("a tool that requires a task is sent as one: the call waits for its result and shows its status as progress", async () => {
  const source = everything();
  await source.load();
  const reports: ProgressUpdate[] = [];
  const out = await call(source, "simulate-research-query", { topic: "otters" }, { ...ctx(), reportProgress: (p) => reports.push(p) });
  assert.match(out.text ?? "", /^# Research Report: otters$/m);
  const messages = reports.map((r) => r.message);
  assert.ok(messages.includes("task working: Gathering sources..."), JSON.stringify(messages));
  assert.match(String(messages.at(-1)), /^task completed/);
  assert.match(readFileSync(source.logFile, "utf8"), /tool call answered with task /);
});

test("a task's question reaches the person while the task waits, and the answer reaches the server", async () => {
  const source = everything();
  await source.load();
  const asked: Question[] = [];
  const out = await call(source, "simulate-research-query", { topic: "python", ambiguous: true }, {
    ...ctx(),
    ask: async (q) => {
      asked.push(q);
      return { action: "accept", content: { interpretation: "snake" } };
    },
  });
  assert.equal(asked.length, 1);
  assert.match(asked[0].message, /could have multiple interpretations/);
  assert.equal(asked[0].command, "tools ev simulate-research-query");
  assert.match(out.text ?? "", /\*\*Clarification\*\*: snake/);
});

test("a shell call that stops while the task runs sends tasks/cancel, and the server takes it", async () => {
  const source = everything();
  await source.load();
  const stop = new AbortController();
  const running = rejection(() => call(source, "simulate-research-query", { topic: "badgers" }, ctx(stop.signal)));
  assert.ok(await until(() => /tool call answered with task /.test(readFileSync(source.logFile, "utf8"))));
  stop.abort(new Error("the shell call stopped"));
  await running;
  const log = () => readFileSync(source.logFile, "utf8");
  assert.ok(await until(() => /sending tasks\/cancel for task /.test(log())), log());
  // The server answered the cancel (a refusal would be logged as "tasks/cancel for … failed").
  await new Promise((r) => setTimeout(r, 500));
  assert.doesNotMatch(log(), /tasks\/cancel for .* failed/);
});

test("a call that runs again (a durable step) follows the task its first attempt started instead of calling the tool again", async () => {
  const source = everything();
  await source.load();
  let taskId: string | undefined;
  const first = await call(source, "simulate-research-query", { topic: "herons" }, { ...ctx(), upstreamTask: { started: (id) => (taskId = id) } });
  assert.ok(taskId, "the task's id was handed to the step");
  const again = await call(source, "simulate-research-query", { topic: "herons" }, { ...ctx(), upstreamTask: { resume: taskId, started: () => assert.fail("no new task") } });
  assert.equal(again.text, first.text);
  const log = readFileSync(source.logFile, "utf8");
  assert.equal(log.match(/tool call answered with task /g)?.length, 1, log);
  assert.match(log, new RegExp(`following task ${taskId}, started by an earlier attempt`));
});

test("control: a tool that does not require a task is called as before", async () => {
  const source = everything();
  await source.load();
  const out = await call(source, "echo", { message: "plain" });
  assert.equal(out.text, "Echo: plain");
  assert.doesNotMatch(readFileSync(source.logFile, "utf8"), /answered with task/);
});
