/**
 * The store on real databases, once per kind (stores.ts: a SQLite file, a PostgreSQL database on
 * a real server): schema versions (and SQLite's WAL), sessions and their files across a reopen,
 * events, the nested-call record written with its event, scripts, triggers, approvals, ratings
 * (kept by one instance, found by another; the first kept wins).
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { principalOf } from "../../src/mcp/index.js";
import { Rater, ratingKey } from "../../src/policy/index.js";
import { createEngine } from "../../src/shell/index.js";
import { openSqliteStore, readTree, renderTimeline, sqliteDriver, type StoredEvent } from "../../src/store/index.js";
import { STORES } from "./stores.js";

for (const kind of STORES) {
const name = (what: string) => `${kind.name}: ${what}`;

test(name("a new store gets the latest schema (SQLite in WAL mode); a newer schema is refused"), async (t) => {
  const file = await kind.location(t);
  const store = await kind.open(file);
  const d = await kind.describe(store);
  assert.equal(d.version, d.latest);
  if (kind.name === "sqlite") {
    assert.equal(d.driver, sqliteDriver());
    assert.equal(d.journal, "wal");
  }
  await store.close();
  await kind.makeNewer(file);
  await assert.rejects(kind.open(file), /newer than this toolshell knows/);
});

test(name("shell call numbers come from the store: two instances on one location never get the same one, and a reopen continues the count"), async (t) => {
  const location = await kind.location(t);
  const a = await kind.open(location);
  const b = await kind.open(location);
  // The session's record is made by the first number when it is missing.
  const got = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? a : b).nextShellCall!("s")));
  assert.deepEqual([...got].sort((x, y) => x - y), Array.from({ length: 12 }, (_, i) => i + 1));
  await a.close();
  await b.close();
  const again = await kind.open(location);
  const snap = await again.openSession({ id: "s", metadata: {}, files: { fs: createEngine().fs, exclude: [] } });
  assert.equal(snap.shellCalls, 12);
  assert.equal(await again.nextShellCall!("s"), 13);
  await again.close();
});

test(name("a session's files come back after a reopen: text, bytes, folders, symlinks, modes, deletions"), async (t) => {
  const file = await kind.location(t);
  const e1 = createEngine();
  const store = await kind.open(file);
  await store.openSession({ id: "s", metadata: { agent_id: "a1", team: "x" }, files: { fs: e1.fs, exclude: [] } });
  await store.beginStep({ sessionId: "s", stepId: "1", kind: "shell", toolCallId: "call_bash_1", requestHash: "h", request: {}, status: "running", attempt: 1, startedAt: new Date().toISOString() }, 1);
  const r = await e1.exec("mkdir -p d/e && echo hi > d/e/f.txt && printf '\\x00\\xff\\x01' > bin && ln -s d/e/f.txt link && chmod 600 d/e/f.txt && echo gone > gone.txt && echo t > /tmp/t");
  assert.equal(r.exitCode, 0, r.stderr);
  await store.endStep({ sessionId: "s", stepId: "1", status: "completed", result: { ok: 1 }, files: { fs: e1.fs, exclude: [] } });
  await e1.exec("rm gone.txt");
  const probe = "cat d/e/f.txt; cat link; od -c bin; stat -c %a d/e/f.txt; ls; cat /tmp/t";
  const before = await e1.exec(probe);
  await store.beginStep({ sessionId: "s", stepId: "2", kind: "shell", toolCallId: "call_bash_2", requestHash: "h2", request: {}, status: "running", attempt: 1, startedAt: new Date().toISOString() }, 2);
  await store.endStep({ sessionId: "s", stepId: "2", status: "completed", result: null, files: { fs: e1.fs, exclude: [] } });
  await store.close();

  const again = await kind.open(file);
  const e2 = createEngine();
  const snap = await again.openSession({ id: "s", metadata: {}, files: { fs: e2.fs, exclude: [] } });
  assert.equal(snap.created, false);
  assert.equal(snap.shellCalls, 2);
  assert.deepEqual(snap.metadata, { agent_id: "a1", team: "x" });
  const check = await e2.exec(probe);
  assert.equal(check.stdout, before.stdout);
  assert.match(check.stdout, /^hi\nhi\n[\s\S]*\n600\nbin\nd\nlink\nt\n$/);
  assert.deepEqual(await e2.fs.readFileBuffer("/workspace/bin"), await e1.fs.readFileBuffer("/workspace/bin"));
  // The engine's own paths are never saved.
  const saved = await kind.savedPaths(again, "s");
  assert.ok(saved.includes("/workspace/bin"));
  assert.ok(!saved.some((p) => p.startsWith("/bin/") || p.startsWith("/dev/") || p.startsWith("/usr/bin/")), saved.join(" "));
  assert.ok(!saved.includes("/workspace/gone.txt"));
  // Excluded prefixes (a mounted workspace) are neither read nor written.
  assert.ok(!(await readTree(e2.fs, ["/workspace"])).some((x) => x.path.startsWith("/workspace")));
  await again.close();
});

test(name("a completed nested call is written together with its event, and only then"), async (t) => {
  const store = await kind.open(await kind.location(t));
  const fs = createEngine().fs;
  await store.openSession({ id: "s", metadata: {}, files: { fs, exclude: [] } });
  const call = { index: 0, callId: "call_bash_1:tools:0:x", command: "tools x", inputKey: "{}", output: { kind: "json" as const, value: { a: 1 } }, readOnly: false, done: { tool: "tools x", input: {}, ok: true, result: { a: 1 } } };
  store.recordCall("s", "call_bash_1", call);
  assert.deepEqual(await store.recordedCalls("s", "call_bash_1"), []);
  store.appendEvent({ type: "tool.nested_call", session_id: "s", at: new Date().toISOString(), call_id: call.callId, parent_tool_call_id: "call_bash_1", status: "completed" } as never);
  assert.deepEqual(await store.recordedCalls("s", "call_bash_1"), [call]);
  const events = await store.listEvents("s");
  assert.equal(events.length, 1);
  assert.equal(events[0].seq > 0, true);
  await store.close();
});

test(name("a list of one principal's sessions is the database's, read from metadata as principalOf reads it, limited after the filter"), async (t) => {
  const store = await kind.open(await kind.location(t));
  t.after(() => store.close());
  const kinds: Array<[string, Record<string, unknown>]> = [
    ["named", { principal: "bob" }],
    ["empty-principal", { principal: "", agent_id: "bob" }],
    ["number-principal", { principal: 5, agent_id: "bob" }],
    ["null-principal", { principal: null, agent_id: "bob" }],
    ["agent-only", { agent_id: "bob" }],
    ["nothing", {}],
    ["other", { principal: "alice", agent_id: "bob" }],
    ["quote", { principal: "o'brien" }],
  ];
  for (const [id, metadata] of kinds) await store.openSession({ id, metadata, files: { fs: createEngine().fs, exclude: [] } });
  await kind.flush(store);
  const ids = async (principal: string, limit?: number) => (await store.listSessions({ principal, ...(limit ? { limit } : {}) })).map((s) => s.id).sort();
  // The same answer as principalOf for every session, one principal at a time.
  for (const principal of ["bob", "default", "alice", "o'brien", ""]) {
    const expected = kinds.filter(([, m]) => principalOf(m) === principal).map(([id]) => id).sort();
    assert.deepEqual(await ids(principal), expected, principal);
  }
  // The limit counts that principal's sessions only.
  assert.equal((await ids("bob", 2)).length, 2);
  assert.deepEqual(await ids("alice", 1), ["other"]);
});

test(name("sessions are listed last active first: an appended event moves its session's updated_at"), async (t) => {
  const store = await kind.open(await kind.location(t));
  for (const id of ["old", "new"]) await store.openSession({ id, metadata: { agent_id: "a" }, files: { fs: createEngine().fs, exclude: [] } });
  const at = (s: number) => `2999-01-01T00:00:0${s}.000Z`;
  const order = async () => {
    await kind.flush(store);
    return (await store.listSessions({})).map((s) => [s.id, s.updated_at]);
  };
  store.appendEvent({ type: "approval.answered", session_id: "new", at: at(1) } as never);
  store.appendEvent({ type: "approval.answered", session_id: "old", at: at(2) } as never);
  assert.deepEqual(await order(), [["old", at(2)], ["new", at(1)]]);
  store.appendEvent({ type: "approval.answered", session_id: "new", at: at(3) } as never);
  assert.deepEqual(await order(), [["new", at(3)], ["old", at(2)]]);
  assert.deepEqual((await store.listSessions({ agentId: "a" })).map((s) => s.id), ["new", "old"]);
  await store.close();
});

test(name("events keep their order and page by seq; the timeline puts nested calls under their shell call"), async (t) => {
  const store = await kind.open(kind.name === "sqlite" ? ":memory:" : await kind.location(t));
  const at = "2026-01-01T10:00:00.000Z";
  const ev = (x: Record<string, unknown>) => store.appendEvent({ session_id: "s", at, ...x } as never);
  ev({ type: "shell_call.started", tool_call_id: "call_bash_1", script_preview: "tools a; tools b" });
  ev({ type: "tool.nested_call", parent_tool_call_id: "call_bash_1", call_id: "call_bash_1:tools:0:a", command: "tools a", status: "completed", input_preview: "{}", duration_ms: 3 });
  ev({ type: "tool.nested_call", parent_tool_call_id: "call_bash_1", call_id: "call_bash_1:tools:1:b", command: "tools b", status: "needs_approval", input_preview: '{"x":1}', duration_ms: 1, error: { code: "needs_approval", message: "asks" } });
  ev({ type: "approval.requested", request_id: "apr_1", tool: "tools b", tool_call_id: "call_bash_1:tools:1:b" });
  ev({ type: "shell_call.ended", tool_call_id: "call_bash_1", exit_code: 1, stopped: "needs_approval" });
  const all = await store.listEvents("s");
  assert.deepEqual(all.map((e) => e.type), ["shell_call.started", "tool.nested_call", "tool.nested_call", "approval.requested", "shell_call.ended"]);
  const page = await store.listEvents("s", { after: all[1].seq, limit: 2 });
  assert.deepEqual(page.map((e) => e.seq), [all[2].seq, all[3].seq]);
  const lines = renderTimeline(all as StoredEvent[]).split("\n");
  const start = lines.findIndex((l) => l.includes("▶ call_bash_1"));
  const a = lines.findIndex((l) => l.includes("├─ tools a"));
  const b = lines.findIndex((l) => l.includes("├─ tools b"));
  const end = lines.findIndex((l) => l.includes("■ call_bash_1 exit 1"));
  assert.ok(start >= 0 && start < a && a < b && b < end, lines.join("\n"));
  assert.match(lines[b], /needs_approval/);
  await store.close();
});

test(name("scripts are versioned and archived; triggers and runs are kept; approvals and ratings survive a reopen"), async (tc) => {
  const file = await kind.location(tc);
  const store = await kind.open(file);
  const v1 = await store.saveScript("a1", { name: "triage", description: "v1", input_schema: { type: "object" }, body: "echo 1" });
  const v2 = await store.saveScript("a1", { name: "triage", description: "v2", input_schema: { type: "object" }, body: "echo 2" });
  assert.equal(v1.id, v2.id);
  assert.deepEqual([v1.version, v2.version], [1, 2]);
  assert.equal((await store.getScript("a1", "triage"))?.body, "echo 2");
  assert.equal((await store.getScript("a1", "triage", { version: 1 }))?.body, "echo 1");
  assert.equal(await store.getScript("a2", "triage"), undefined);
  await store.setScriptArchived("a1", v1.id, true);
  assert.deepEqual(await store.listScripts("a1"), []);
  assert.deepEqual((await store.listScripts("a1", { includeArchived: true })).map((s) => [s.name, s.archived]), [["triage", true]]);
  const v3 = await store.saveScript("a1", { name: "triage", description: "v3", input_schema: { type: "object" }, body: "echo 3" });
  assert.deepEqual([v3.version, v3.archived], [3, false]);
  assert.deepEqual((await store.scriptVersions("a1", "triage")).map((v) => v.description), ["v1", "v2", "v3"]);
  // A version saved without an input schema keeps the previous one's; a first version has no fields.
  const typed = { type: "object", properties: { text: { type: "string" } }, required: ["text"] };
  await store.saveScript("a1", { name: "count", description: "c1", input_schema: typed, body: "wc -w" });
  const c2 = await store.saveScript("a1", { name: "count", description: "c2", body: "wc -w; echo" });
  assert.deepEqual([c2.version, c2.input_schema], [2, typed]);
  assert.deepEqual((await store.saveScript("a1", { name: "fresh", description: "f1", body: "true" })).input_schema, { type: "object", properties: {} });

  const t = new Date().toISOString();
  await store.putTrigger({ id: "trg_1", agent_id: "a1", name: "nightly", kind: "schedule", cron: "0 3 * * *", timezone: "UTC", script: "triage", input: {}, enabled: true, wake_agent_on_failure: false, origin: "api", created_at: t, updated_at: t });
  await store.putTriggerRun({ id: "run_1", trigger_id: "trg_1", agent_id: "a1", reason: "manual", status: "ok", session_id: "trg_trg_1", payload: {}, started_at: t });

  const book = await store.approvalBook("s1");
  const req = book.request({ tool: "tools x", toolName: "x", input: { a: 1 }, toolCallId: "call_bash_1:tools:0:x" });
  const req2 = book.request({ tool: "tools y", toolName: "y", input: {}, toolCallId: "call_bash_1:tools:1:y" });
  book.answer(req2.id, "allow_always");
  await store.ratings.add({ key: "k", probability: 0.7, rated_at: t, by: "offline" });
  await store.close();

  const again = await kind.open(file);
  assert.equal((await again.findTrigger("a1", "nightly"))?.cron, "0 3 * * *");
  assert.deepEqual((await again.listTriggerRuns("trg_1")).map((r) => r.id), ["run_1"]);
  const book2 = await again.approvalBook("s1");
  assert.deepEqual(book2.pending().map((r) => r.id), [req.id]);
  assert.equal(book2.allowsAlways("tools y"), true);
  assert.deepEqual((await again.pendingApprovals()).map((r) => r.id), [req.id]);
  assert.equal((await again.ratings.get("k"))?.probability, 0.7);
  assert.equal(await again.deleteTrigger("trg_1"), true);
  assert.equal(await again.getTrigger("trg_1"), undefined);
  await again.close();
});

test(name("a rating one instance keeps is used by another open on the same store; two rating one tool at once both answer with the first kept"), async (t) => {
  const location = await kind.location(t);
  // Both open before anything is rated: what B finds later comes from the database.
  const a = await kind.open(location);
  const b = await kind.open(location);
  const asked: string[] = [];
  const service = (who: string, p: number, gate?: Promise<void>) => ({
    async rateChanges() {
      asked.push(who);
      await gate;
      return p;
    },
  });
  const tool = { name: "sync_things", source: "kit", description: "Syncs things.", inputSchema: { type: "object" } };
  assert.equal(await new Rater(service("a", 0.8), a.ratings).rate(tool), 0.8);
  assert.equal(await new Rater(service("b", 0.1), b.ratings).rate(tool), 0.8, "B uses A's rating");
  assert.deepEqual(asked, ["a"], "B did not ask its decision service");

  // Both miss at once (each service is asked), A keeps its answer first: B answers with A's too.
  asked.length = 0;
  const other = { ...tool, name: "tidy_things", description: "Tidies things." };
  let openA!: () => void;
  let openB!: () => void;
  const ra = new Rater(service("a", 0.9, new Promise<void>((r) => (openA = r))), a.ratings).rate(other);
  const rb = new Rater(service("b", 0.2, new Promise<void>((r) => (openB = r))), b.ratings).rate(other);
  while (asked.length < 2) await new Promise((r) => setImmediate(r));
  openA();
  assert.equal(await ra, 0.9);
  openB();
  assert.equal(await rb, 0.9, "the first rating kept wins");
  assert.deepEqual(asked.sort(), ["a", "b"]);
  const c = await kind.open(location);
  assert.equal((await c.ratings.get(ratingKey(other)))?.probability, 0.9);
  await Promise.all([a.close(), b.close(), c.close()]);
});

test(name("idle sessions leave memory when a store holds them; asked for again, they come back with their files"), async (t) => {
  const { openHost } = await import("../../src/server/index.js");
  const host = await openHost({ store: kind.name === "sqlite" ? ":memory:" : await kind.location(t), maxSessionsInMemory: 2 });
  {
    const a = host.session("a");
    await a.bash("echo kept > a.txt");
  }
  const held = host.session("held");
  await held.bash("true");
  for (const id of ["b", "c", "d"]) await host.session(id).bash("true");
  assert.equal(host.shell.sessionsInMemory(), 2, "the least recently used idle sessions left memory");
  const again = host.session("a");
  assert.equal((await again.bash("cat a.txt")).stdout, "kept\n", "restored from the store");
  assert.equal(host.session("held"), held, "a session still held elsewhere is the same object");
  await host.close();
});

test(name("an answer given by another process on the same store reaches a running host, and is never written over"), async (t) => {
  const { openHost } = await import("../../src/server/index.js");
  const { always, defineTool } = await import("../../src/index.js");
  const file = await kind.location(t);
  const ran: string[] = [];
  const tools = {
    refund: defineTool({ description: "Refunds a charge.", inputSchema: { type: "object", properties: { id: { type: "string" } } }, approval: always(), execute: ({ id }) => (ran.push(`refund ${id}`), "refunded") }),
    wipe: defineTool({ description: "Deletes a thing.", inputSchema: { type: "object", properties: { id: { type: "string" } } }, approval: always(), execute: ({ id }) => (ran.push(`wipe ${id}`), "wiped") }),
  };
  // `toolshell serve` (long-running) and `toolshell approve` (another process) each open the file.
  const server = await openHost({ store: file, config: { manageScripts: false }, tools });
  try {
    const s = server.session("s1");
    const stopped = await s.bash("tools refund id=ch_1");
    const requestId = stopped.tools!.stopped!.request_id!;
    const cli = await openHost({ store: file, config: { manageScripts: false }, tools });
    // PostgreSQL tells the server of the answer by a notification, which arrives on its own.
    const heard = kind.nextChange(server.store);
    assert.equal((await cli.session("s1").answer(requestId, "allow")).status, "answered");
    await cli.close();
    await heard;
    const again = await s.bash("tools refund id=ch_1");
    assert.equal(again.exit_code, 0, again.stderr);
    assert.deepEqual(ran, ["refund ch_1"]);
    // A later change in the server's book keeps the other process's answer.
    await s.bash("tools wipe id=x");
    await kind.flush(server.store);
    const check = await kind.open(file);
    assert.equal((await check.pendingApprovals()).some((r) => r.id === requestId), false);
    await check.close();
  } finally {
    await server.close();
  }
});
}

test("a store file SQLite cannot open is named in the error, with what SQLite said", (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), "ts-store-bad-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const notDb = path.join(dir, "notes.txt");
  writeFileSync(notDb, "plain text, not a database\n".repeat(100));
  assert.throws(() => openSqliteStore(notDb), (err: Error) => err.message === `the store ${notDb} could not be opened: file is not a database`);
});
