/**
 * Durable steps for real, on each kind of store (stores.ts): a child process is killed with
 * SIGKILL in the middle of a step and a new process resumes the session from the store (a SQLite
 * file, a PostgreSQL database). The tools' own side effects (a counter file, the memory server's
 * file) show that no completed call ran twice.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { always, defineTool } from "../../src/index.js";
import type { ShellResult } from "../../src/runtime/index.js";
import { openHost } from "../../src/server/index.js";
import { STORES } from "./stores.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const CHILD = path.join(here, "../fixtures/durable/child.ts");
const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(path.join(tmpdir(), "toolshell-durable-"));
  dirs.push(d);
  return d;
}

function runChild(dir: string, mode: "first" | "resume", store?: string) {
  const env = { ...process.env, TOOLSHELL_TEST_STORE: store ?? "" };
  const child = spawn(process.execPath, ["--import", import.meta.resolve("tsx"), CHILD, dir, mode], { stdio: ["ignore", "pipe", "pipe"], env });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  return { child, exited, out: () => stdout, err: () => stderr };
}

async function waitFor(file: string, exited: Promise<unknown>): Promise<void> {
  let done = false;
  void exited.then(() => (done = true));
  while (!existsSync(file)) {
    if (done) throw new Error(`the child exited before writing ${file}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

for (const kind of STORES) {
const name = (what: string) => `${kind.name}: ${what}`;

test(name("a step killed mid-way runs again on resume; completed calls and steps never run twice"), async (t) => {
  const dir = tempDir();
  // SQLite: the child's own file in its folder; PostgreSQL: a fresh database.
  const location = kind.name === "sqlite" ? path.join(dir, "state.db") : await kind.location(t);
  const first = runChild(dir, "first", location);
  await waitFor(path.join(dir, "ready"), first.exited);
  first.child.kill("SIGKILL");
  const killed = await first.exited;
  assert.equal(killed.signal, "SIGKILL");
  // Before the kill: s1 ran, and s2's calls up to `tools block` ran (counter 1, 2, 3).
  assert.deepEqual(readFileSync(path.join(dir, "counter.log"), "utf8").trim().split("\n"), ["1", "2", "3"]);

  const second = runChild(dir, "resume", location);
  const ended = await second.exited;
  assert.equal(ended.code, 0, second.err());
  const results = JSON.parse(second.out()) as ShellResult[];
  assert.deepEqual(results.map((r) => r.exit_code), [0, 0, 0], second.out());

  // Every counter call ran exactly once over both processes: s1 was not run again (its result
  // was returned), s2's completed calls were replayed, the rest ran.
  assert.deepEqual(readFileSync(path.join(dir, "counter.log"), "utf8").trim().split("\n"), ["1", "2", "3", "4", "5"]);
  // The memory server saw create then delete once each: had the create run again on resume
  // (after the delete was replayed), Alpha would be in its file.
  const memory = existsSync(path.join(dir, "memory.jsonl")) ? readFileSync(path.join(dir, "memory.jsonl"), "utf8") : "";
  assert.doesNotMatch(memory, /Alpha/);
  // The step's files start again from the last completed step: the re-run wrote log.txt once.
  assert.equal(results[2].stdout, "one\ns2\n");
  // s2 kept its shell call id across the restart; s3 got the next one.
  assert.deepEqual(results.map((r) => r.tool_call_id), ["call_bash_1", "call_bash_2", "call_bash_3"]);

  const store = await kind.open(location);
  try {
    const events = await store.listEvents("durable");
    const s2Calls = events.filter((e) => e.type === "tool.nested_call" && (e as Record<string, unknown>).parent_tool_call_id === "call_bash_2");
    // First attempt: counter 2, create, counter 3, delete completed (block never ended).
    // Second attempt: those four replayed, then block and counter 4 ran.
    const second = s2Calls.slice(4).map((e) => [(e as Record<string, unknown>).command, (e as Record<string, unknown>).replayed === true]);
    assert.deepEqual(second, [
      ["tools counter", true],
      ["tools memory create-entities", true],
      ["tools counter", true],
      ["tools memory delete-entities", true],
      ["tools block", false],
      ["tools counter", false],
    ]);
    assert.ok(events.some((e) => e.type === "step.replayed" && (e as Record<string, unknown>).step_id === "s1"));
    assert.ok(events.some((e) => e.type === "step.resumed" && (e as Record<string, unknown>).step_id === "s2" && (e as Record<string, unknown>).attempt === 2));
    assert.deepEqual((await store.listSteps("durable")).map((s) => [s.stepId, s.status, s.attempt]), [
      ["s1", "completed", 1],
      ["s2", "completed", 2],
      ["s3", "completed", 1],
    ]);
  } finally {
    await store.close();
  }
});

test(name("a session waiting for approval survives a restart and runs once the answer arrives"), async (t) => {
  const db = await kind.location(t);
  let ran = 0;
  const tools = {
    wire_money: defineTool({
      description: "Wires money.",
      inputSchema: { type: "object", properties: { amount: { type: "number" } }, required: ["amount"] },
      approval: always(),
      execute: ({ amount }) => {
        ran++;
        return { wired: amount };
      },
    }),
  };
  const script = "tools wire-money amount=5";

  const a = await openHost({ store: db, tools });
  const first = await a.session("pay").bash(script, { stepId: "pay-1" });
  assert.equal(first.tools?.stopped?.before_start, true);
  const requestId = first.tools?.stopped?.request_id;
  assert.ok(requestId);
  await a.close();

  // A new host on the same file: the request is still pending, and asking for the step again
  // returns the same report without running anything or raising another request.
  const b = await openHost({ store: db, tools });
  const session = b.session("pay");
  assert.deepEqual((await session.pendingApprovals()).map((r) => r.id), [requestId]);
  const again = await session.bash(script, { stepId: "pay-1" });
  assert.deepEqual(again, first);
  assert.equal((await session.pendingApprovals()).length, 1);
  assert.equal(ran, 0);
  await session.answer(requestId!, "allow");
  await b.close();

  // The answer survives too: the waiting step runs, once.
  const c = await openHost({ store: db, tools });
  const done = await c.session("pay").bash(script, { stepId: "pay-1" });
  assert.equal(done.exit_code, 0, done.stderr);
  assert.deepEqual(JSON.parse(done.stdout), { wired: 5 });
  assert.equal(ran, 1);
  const replay = await c.session("pay").bash(script, { stepId: "pay-1" });
  assert.deepEqual(replay, done);
  assert.equal(ran, 1);
  const mismatch = await c.session("pay").bash("tools wire-money amount=6", { stepId: "pay-1" });
  assert.equal(mismatch.exit_code, 1);
  assert.match(mismatch.stderr, /recorded with another script/);
  assert.equal(ran, 1);
  await c.close();
});

test(name("a step resumed after a one-off reject: its held call answers denied by that answer, once, and the script goes on; the refusal then waits for the same call's next try"), async (t) => {
  const db = await kind.location(t);
  let ran = 0;
  const tools = {
    wire_money: defineTool({
      description: "Wires money.",
      inputSchema: { type: "object", properties: { amount: { type: "number" } }, required: ["amount"] },
      approval: always(),
      execute: ({ amount }) => {
        ran++;
        return { wired: amount };
      },
    }),
  };
  const host = await openHost({ store: db, tools });
  t.after(() => host.close());
  const session = host.session("pay");
  const pending = async () => (await session.pendingApprovals()).length;
  const stoppedOn = (r: ShellResult) => (r.tools?.stopped?.reason === "needs_approval" ? r.tools.stopped.request_id : undefined);

  // One call: the resumed step's call is refused by the answer given for it and the script goes
  // on; the agent's next try of the same call is refused too, asking nobody (as where no step
  // resumes, docs/sessions.md → Durable steps); the try after that asks again.
  const once = "tools wire-money amount=5 || echo refused\necho went on";
  const first = await session.bash(once, { stepId: "pay-1" });
  const requestId = stoppedOn(first);
  assert.ok(requestId, JSON.stringify(first));
  await session.answer(requestId, "reject");
  const resumed = await session.bash(once, { stepId: "pay-1" });
  assert.equal(resumed.stdout, "refused\nwent on\n", resumed.stderr);
  assert.match(resumed.stderr, /"code":"denied".*refused by a person \(reject\)/);
  assert.equal(await pending(), 0);
  const next = await session.bash("tools wire-money amount=5");
  assert.equal(stoppedOn(next), undefined, "the next try is refused without asking");
  assert.match(next.stderr, /"code":"denied"/);
  assert.equal(await pending(), 0);
  const after = await session.bash("tools wire-money amount=5");
  assert.ok(stoppedOn(after), "the refusal covered one try: the next one asks");
  await session.answer(stoppedOn(after)!, "reject");
  assert.equal(ran, 0);

  // The same call twice in the step: only the held (first) one takes the held answer; the second
  // is refused by the one-off refusal, which it spends, so the agent's next try asks.
  const twice = "tools wire-money amount=7 || echo refused-1\ntools wire-money amount=7 || echo refused-2\necho went on";
  const stop = stoppedOn(await session.bash(twice, { stepId: "pay-2" }));
  assert.ok(stop);
  await session.answer(stop, "reject");
  const both = await session.bash(twice, { stepId: "pay-2" });
  assert.equal(both.stdout, "refused-1\nrefused-2\nwent on\n", both.stderr);
  assert.ok(stoppedOn(await session.bash("tools wire-money amount=7")), "the held answer was taken once; the refusal by the second call");
  assert.equal(ran, 0);
});

test(name("session.step records any unit of work: completed once, never run again"), async (t) => {
  const db = await kind.location(t);
  let calls = 0;
  const work = async () => {
    calls++;
    return { answer: 42, at: calls };
  };
  const a = await openHost({ store: db });
  assert.deepEqual(await a.session("s").step("direct-1", { tool: "x" }, work), { answer: 42, at: 1 });
  await a.close();
  const b = await openHost({ store: db });
  assert.deepEqual(await b.session("s").step("direct-1", { tool: "x" }, work), { answer: 42, at: 1 });
  assert.equal(calls, 1);
  await assert.rejects(b.session("s").step("direct-1", { tool: "y" }, work), /another request/);
  await b.close();
});

test(name("an answer to any request a held step asked names the step, the second answered first (docs/deployment.md)"), async (t) => {
  const db = await kind.location(t);
  const tools = {
    wire_money: defineTool({
      description: "Wires money.",
      inputSchema: { type: "object", properties: { amount: { type: "number" } }, required: ["amount"] },
      approval: always(),
      execute: ({ amount }) => ({ wired: amount }),
    }),
  };
  const host = await openHost({ store: db, tools });
  t.after(() => host.close());
  const session = host.session("two");
  const first = await session.bash("tools wire-money amount=5\ntools wire-money amount=6", { stepId: "turn-1/bash-1" });
  const stopped = first.tools?.stopped;
  assert.equal(stopped?.before_start, true);
  const second = stopped?.also_needs_approval?.[0]?.request_id;
  assert.ok(stopped?.request_id && second, JSON.stringify(stopped));
  await session.answer(second, "allow");
  await session.answer(stopped.request_id, "allow");
  const answered = session.events.filter((e) => e.type === "approval.answered") as Array<{ request_id?: string; step_id?: string }>;
  assert.deepEqual(answered.map((e) => [e.request_id, e.step_id]), [[second, "turn-1/bash-1"], [stopped.request_id, "turn-1/bash-1"]]);
});
}
