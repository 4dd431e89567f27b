/**
 * What only the PostgreSQL store does, on a real server (test/fixtures/postgres.ts) with real
 * processes: migrations started by two processes at once, session leases across processes (a
 * holder killed with SIGKILL lets go), the fence that refuses a stale holder's writes, newer
 * files restored by refreshSession, LISTEN/NOTIFY behind changedElsewhere, the order of events
 * under concurrent appends, and the errors of a bad URL or an unreachable server.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { parseConfig } from "../../src/config/index.js";
import { defineTool } from "../../src/index.js";
import { openHost } from "../../src/server/index.js";
import { runShellStep, type DurableSessionView } from "../../src/runtime/index.js";
import { createEngine } from "../../src/shell/index.js";
import { FenceError, openPostgresStore, openStore, PG_MIGRATIONS, type PostgresStore } from "../../src/store/index.js";
import { MIGRATION_LOCK } from "../../src/store/postgres/migrations.js";
import { LEASE_LOCK_CLASS } from "../../src/store/postgres/lease.js";
import { freshDatabase } from "../fixtures/postgres.js";

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), "pg-child.ts");
type T = { after(fn: () => unknown): void };

async function open(t: T, url: string, options: Parameters<typeof openPostgresStore>[1] = {}): Promise<PostgresStore> {
  const s = await openPostgresStore(url, options);
  t.after(() => s.close());
  return s;
}

async function client(t: T, url: string): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: url });
  // The database is dropped (its connections ended) when the test ends.
  c.on("error", () => {});
  await c.connect();
  t.after(() => c.end().catch(() => {}));
  return c;
}

function child(t: T, args: string[]) {
  const p = spawn(process.execPath, ["--import", import.meta.resolve("tsx"), CHILD, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  const lines: Array<(line: string) => void> = [];
  p.stdout.on("data", (d) => {
    stdout += d;
    const nl = stdout.indexOf("\n");
    if (nl >= 0) for (const l of lines.splice(0)) l(stdout.slice(0, nl));
  });
  p.stderr.on("data", (d) => (stderr += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => p.on("exit", (code, signal) => resolve({ code, signal })));
  t.after(() => {
    if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
  });
  const firstLine = () =>
    new Promise<string>((resolve, reject) => {
      if (stdout.includes("\n")) return resolve(stdout.slice(0, stdout.indexOf("\n")));
      lines.push(resolve);
      void exited.then((e) => reject(new Error(`the child exited (${e.code ?? e.signal}) before printing: ${stderr}`)));
    });
  return { p, exited, firstLine, err: () => stderr, out: () => stdout };
}

/** Resolves once `n` connections wait (not granted) for an advisory lock matching `where`. */
async function waiting(c: pg.Client, where: string, params: unknown[], n: number): Promise<void> {
  for (;;) {
    const r = await c.query(`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND ${where}`, params);
    if (r.rows[0].n >= n) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const step = (sessionId: string, stepId: string, n: number) => ({ sessionId, stepId, kind: "shell", toolCallId: `call_bash_${n}`, requestHash: "h", request: {}, status: "running" as const, attempt: 1, startedAt: new Date().toISOString() });

test("two processes that start together migrate once: one waits for the other's lock, both open the latest schema", async (t) => {
  const url = await freshDatabase(t);
  const admin = await client(t, url);
  // Hold the migration lock so both children are sure to reach it before either migrates.
  await admin.query("SELECT pg_advisory_lock($1::bigint)", [MIGRATION_LOCK]);
  const a = child(t, ["migrate", url]);
  const b = child(t, ["migrate", url]);
  const key = BigInt(MIGRATION_LOCK);
  await waiting(admin, "classid = $1 AND objid = $2 AND objsubid = 1", [Number(key >> 32n), Number(key & 0xffffffffn)], 2);
  await admin.query("SELECT pg_advisory_unlock($1::bigint)", [MIGRATION_LOCK]);
  const [ea, eb] = await Promise.all([a.exited, b.exited]);
  assert.equal(ea.code, 0, a.err());
  assert.equal(eb.code, 0, b.err());
  assert.equal(a.out(), "opened\n");
  assert.equal(b.out(), "opened\n");
  const v = await admin.query("SELECT version FROM toolshell_schema");
  assert.deepEqual(v.rows, [{ version: PG_MIGRATIONS.length }]);
  const tables = await admin.query("SELECT count(*)::int AS n FROM information_schema.tables WHERE table_name = 'sessions' AND table_schema = current_schema()");
  assert.equal(tables.rows[0].n, 1);
});

test("a lease held by another process blocks; the bounded wait says so; SIGKILL of the holder lets the session go with a newer fence", async (t) => {
  const url = await freshDatabase(t);
  await (await openPostgresStore(url)).close(); // migrated before the child starts
  const holder = child(t, ["lease", url, "s1"]);
  const { fence } = JSON.parse(await holder.firstLine()) as { fence: number };
  assert.equal(fence, 1);

  const impatient = await open(t, url, { leaseWaitMs: 200 });
  await assert.rejects(impatient.lease("s1"), /session s1 is held by another process: waited 200 ms for its lease/);
  // Another session is free meanwhile.
  const other = await impatient.lease("s2");
  await other.release();

  const store = await open(t, url);
  const admin = await client(t, url);
  const taken = store.lease("s1");
  await waiting(admin, "classid = $1", [LEASE_LOCK_CLASS], 1);
  holder.p.kill("SIGKILL");
  assert.equal((await holder.exited).signal, "SIGKILL");
  const lease = await taken;
  assert.equal(lease.fence, fence + 1);
  await lease.release();
  await lease.release(); // safe twice
  const again = await store.lease("s1");
  assert.equal(again.fence, fence + 2);
  await again.release();
});

test("a holder whose lease was lost has its step writes refused; the new holder's stand", async (t) => {
  const url = await freshDatabase(t);
  const a = await open(t, url);
  const b = await open(t, url);
  const fs = createEngine().fs;
  await a.openSession({ id: "s", metadata: {}, files: { fs, exclude: [] } });
  const la = await a.lease("s");
  await a.beginStep(step("s", "1", 1), 1);
  // A's lease connection drops (a network cut): the database lets the lock go, and B takes it.
  const admin = await client(t, url);
  await admin.query("SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND classid = $1 AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())", [LEASE_LOCK_CLASS]);
  const lb = await b.lease("s");
  assert.equal(lb.fence, la.fence + 1);
  await b.beginStep(step("s", "1", 1), 1);
  await b.endStep({ sessionId: "s", stepId: "1", status: "completed", result: { by: "b" }, files: { fs, exclude: [] } });
  await assert.rejects(a.endStep({ sessionId: "s", stepId: "1", status: "completed", result: { by: "a" }, files: { fs, exclude: [] } }), (err: unknown) => {
    assert.ok(err instanceof FenceError);
    assert.match((err as Error).message, /session s was taken over by another process \(lease fence 2, this process holds 1\)/);
    return true;
  });
  await assert.rejects(a.beginStep(step("s", "2", 2), 2), FenceError);
  assert.deepEqual((await b.getStep("s", "1"))?.result, { by: "b" });
  assert.equal(await b.getStep("s", "2"), undefined);
  await la.release();
  await lb.release();
});

test("refreshSession brings another process's newer files and shell-call count, and nothing when nothing changed", async (t) => {
  const url = await freshDatabase(t);
  const a = await open(t, url);
  const b = await open(t, url);
  const ea = createEngine();
  const eb = createEngine();
  await a.openSession({ id: "s", metadata: { agent_id: "x" }, files: { fs: ea.fs, exclude: [] } });
  await ea.exec("echo old > keep.txt && echo bye > gone.txt");
  await a.beginStep(step("s", "1", 1), 1);
  await a.endStep({ sessionId: "s", stepId: "1", status: "completed", result: null, files: { fs: ea.fs, exclude: [] } });
  await b.openSession({ id: "s", metadata: {}, files: { fs: eb.fs, exclude: [] } });
  assert.equal(await b.refreshSession({ id: "s", files: { fs: eb.fs, exclude: [] } }), undefined);
  // A runs the session again: one file changed, one removed, one new.
  await ea.exec("echo new > keep.txt && rm gone.txt && mkdir -p d && echo n > d/n.txt");
  await a.beginStep(step("s", "2", 2), 2);
  await a.endStep({ sessionId: "s", stepId: "2", status: "completed", result: null, files: { fs: ea.fs, exclude: [] } });
  const snap = await b.refreshSession({ id: "s", files: { fs: eb.fs, exclude: [] } });
  assert.deepEqual(snap, { metadata: { agent_id: "x" }, shellCalls: 2, created: false });
  assert.equal((await eb.exec("cat keep.txt d/n.txt; ls")).stdout, "new\nn\nd\nkeep.txt\n");
  assert.equal(await b.refreshSession({ id: "s", files: { fs: eb.fs, exclude: [] } }), undefined);
});

test("an approval change in one store instance is heard by another (LISTEN/NOTIFY), not by itself", async (t) => {
  const url = await freshDatabase(t);
  const a = await open(t, url);
  const b = await open(t, url);
  assert.equal(b.changedElsewhere(), false);
  const heard = b.nextChange();
  const book = await a.approvalBook("s1");
  const req = book.request({ tool: "tools x", toolName: "x", input: {}, toolCallId: "call_bash_1:tools:0:x" });
  const note = await heard;
  assert.equal(note?.session, "s1");
  assert.equal(b.changedElsewhere(), true);
  assert.equal(b.changedElsewhere(), false, "reported once");
  assert.deepEqual((await b.pendingApprovals()).map((r) => r.id), [req.id]);
  const answered = a.nextChange();
  (await b.approvalBook("s1")).answer(req.id, "allow");
  await answered;
  assert.equal(a.changedElsewhere(), true);
  await a.flush();
  assert.equal(a.changedElsewhere(), false, "its own writes are not a change elsewhere");
  assert.deepEqual(await a.pendingApprovals(), []);
});

test("events of one session keep each writer's order and a growing seq under concurrent appends from two instances", async (t) => {
  const url = await freshDatabase(t);
  const stores = [await open(t, url), await open(t, url)];
  const N = 300;
  for (let i = 0; i < N; i++) {
    for (const [w, s] of stores.entries()) {
      s.appendEvent({ type: "shell_call.started", session_id: "shared", at: new Date().toISOString(), tool_call_id: `w${w}:${i}` } as never);
      s.appendEvent({ type: "shell_call.started", session_id: `own${w}`, at: new Date().toISOString(), tool_call_id: `w${w}:${i}` } as never);
    }
  }
  await Promise.all(stores.map((s) => s.flush()));
  const all = await stores[0].listEvents("shared", { limit: 10_000 });
  assert.equal(all.length, 2 * N);
  for (let i = 1; i < all.length; i++) assert.ok(all[i].seq > all[i - 1].seq);
  for (const w of [0, 1]) {
    const mine = all.map((e) => String((e as Record<string, unknown>).tool_call_id)).filter((id) => id.startsWith(`w${w}:`));
    assert.deepEqual(mine, Array.from({ length: N }, (_, i) => `w${w}:${i}`));
    assert.equal((await stores[1].listEvents(`own${w}`, { limit: 10_000 })).length, N);
  }
  // Paging by seq walks the same list.
  const paged = [];
  for (let after = 0; ; ) {
    const page = await stores[1].listEvents("shared", { after, limit: 97 });
    if (!page.length) break;
    paged.push(...page);
    after = page[page.length - 1].seq;
  }
  assert.deepEqual(paged.map((e) => e.seq), all.map((e) => e.seq));
});

test("a bad URL or an unreachable server fails at open with a clear error that never shows the password", async (t) => {
  await assert.rejects(openStore("postgres://me:s3cret@127.0.0.1:99999/db"), (err: Error) => {
    assert.match(err.message, /is not a valid PostgreSQL URL/);
    assert.ok(!err.message.includes("s3cret"), err.message);
    return true;
  });
  // Port 1 on loopback: nothing listens, the connection is refused.
  await assert.rejects(openStore("postgres://me:s3cret@127.0.0.1:1/db"), (err: Error) => {
    assert.match(err.message, /^could not open the PostgreSQL store at postgres:\/\/me@127\.0\.0\.1:1\/db: /);
    assert.ok(!err.message.includes("s3cret"), err.message);
    return true;
  });
  const url = await freshDatabase(t);
  const withPassword = new URL(url);
  withPassword.password = "pw-not-shown";
  const store = await open(t, withPassword.toString());
  assert.ok(!store.location.includes("pw-not-shown"), store.location);
  assert.equal(store.location, url);
});

test("config store: ${DATABASE_URL} expands and a URL is kept as written; openHost opens it", async (t) => {
  const url = await freshDatabase(t);
  const config = parseConfig({ store: "${DATABASE_URL}" }, { baseDir: "/some/dir", env: { DATABASE_URL: url } });
  assert.equal(config.store, url);
  assert.equal(parseConfig({ store: "state.db" }, { baseDir: "/some/dir" }).store, "/some/dir/state.db");
  const host = await openHost({ config: { store: "${DATABASE_URL}" }, env: { ...process.env, DATABASE_URL: url } });
  t.after(() => host.close());
  assert.equal(host.store.location, url);
  const r = await host.session("cfg").bash("echo hi > f.txt; cat f.txt");
  assert.equal(r.stdout, "hi\n");
  assert.equal((await host.store.getSession("cfg"))?.shell_calls, 1);
});

test("a queued write the database refuses is reported and takes no other write with it", async (t) => {
  const url = await freshDatabase(t);
  const failures: string[] = [];
  const store = await open(t, url, { onWriteError: (err) => failures.push(err.message) });
  const ev = (type: string, id: string) => store.appendEvent({ type, session_id: "s", at: new Date().toISOString(), tool_call_id: id } as never);
  ev("shell_call.started", "before");
  // PostgreSQL text cannot hold a NUL character: this row is refused (SQLSTATE 22021).
  ev("bad\u0000type", "refused");
  ev("shell_call.started", "after");
  await store.flush();
  assert.deepEqual((await store.listEvents("s")).map((e) => (e as Record<string, unknown>).tool_call_id), ["before", "after"]);
  assert.equal(failures.length, 1);
  assert.match(failures[0], /0x00|null character|invalid byte sequence/i);
});

test("a lease goes only after what was queued under it is committed: the next holder reads the answer given under it", async (t) => {
  const url = await freshDatabase(t);
  const a = await open(t, url);
  const b = await open(t, url);
  const book = await a.approvalBook("s1");
  const req = book.request({ tool: "tools x", toolName: "x", input: {}, toolCallId: "call_bash_1:tools:0:x" });
  await a.flush();
  // A third connection holds the request's row, so the answer queued under a's lease waits.
  const blocker = await client(t, url);
  await blocker.query("BEGIN");
  await blocker.query("SELECT 1 FROM approval_requests WHERE id = $1 FOR UPDATE", [req.id]);
  const lease = await a.lease("s1");
  (await a.approvalBook("s1")).answer(req.id, "allow");
  const released = lease.release();
  let committed = false;
  const next = b.lease("s1").then(async (l) => {
    const sawCommit = committed;
    const pending = (await b.pendingApprovals()).map((r) => r.id);
    await l.release();
    return { sawCommit, pending };
  });
  // Give a lease that went too early every chance to be taken before the answer is written.
  await new Promise((r) => setTimeout(r, 500));
  committed = true;
  await blocker.query("COMMIT");
  await released;
  const seen = await next;
  assert.equal(seen.sawCommit, true, "the next holder got the session only after the answer was written");
  assert.deepEqual(seen.pending, [], "and it reads the answer");
});

test("a shell call that cannot take its session from another host in time did not run, and its id says so (call_bash_busy); control: once the other ends it runs", async (t) => {
  const url = await freshDatabase(t);
  let started!: () => void;
  const began = new Promise<void>((resolve) => (started = resolve));
  const execute = async ({ ms }: { ms?: unknown }) => (started(), await new Promise((r) => setTimeout(r, Number(ms))), "waited");
  const a = await openHost({ store: url, config: { mcpServers: {} }, tools: { wait: defineTool({ description: "Waits.", inputSchema: { type: "object", properties: { ms: { type: "number" } } }, execute }) } });
  t.after(() => a.close());
  const b = await openHost({ store: url, config: { mcpServers: {} } });
  t.after(() => b.close());
  await a.session("busy").ready;
  const long = a.session("busy").bash("tools wait ms=3000");
  // The tool runs: its shell call holds the session.
  await began;
  const refused = await b.session("busy").bash("echo ran > ran.txt", { timeoutMs: 200 });
  assert.equal(refused.tool_call_id, "call_bash_busy", JSON.stringify(refused));
  assert.match(refused.stderr, /session busy is busy/);
  assert.equal((await long).stdout, "waited\n");
  const after = await b.session("busy").bash("ls");
  assert.equal(after.stdout, "", "the refused call wrote nothing");
  assert.match(after.tool_call_id, /^call_bash_\d+$/);
});

test("a shell call whose lease's database connection breaks stops at once and says so, and the call that takes the session next never sees what the script would have written after", async (t) => {
  const url = await freshDatabase(t);
  let started!: () => void;
  const began = new Promise<void>((resolve) => (started = resolve));
  const wait = defineTool({
    description: "Waits until stopped.",
    inputSchema: { type: "object" },
    execute: async (_input, ctx) => {
      started();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 60_000);
        ctx.signal.addEventListener("abort", () => (clearTimeout(timer), resolve()));
      });
      return ctx.signal.aborted ? "stopped" : "waited";
    },
  });
  const a = await openHost({ store: url, config: { mcpServers: {} }, tools: { wait } });
  t.after(() => a.close());
  const b = await openHost({ store: url, config: { mcpServers: {} } });
  t.after(() => b.close());
  await a.session("cut").ready;
  const first = a.session("cut").bash("echo before > before.txt; tools wait; echo after > after.txt");
  await began;
  // The connection holding the session's lock is cut, as a restarted server or a network blip cuts it.
  const admin = new pg.Client({ connectionString: url });
  // The database is dropped (its connections cut) when the test ends.
  admin.on("error", () => {});
  await admin.connect();
  t.after(() => admin.end());
  const cut = await admin.query("SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND classid = $1 AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())", [LEASE_LOCK_CLASS]);
  assert.equal(cut.rowCount, 1);
  const r = await first;
  assert.equal(r.success, false, JSON.stringify(r));
  assert.match(r.stderr, /the shell call stopped: the database connection holding session cut's lease broke/);
  const next = await b.session("cut").bash("ls");
  assert.doesNotMatch(next.stdout, /after\.txt/, "the script did not go on after its lease was lost");
});

test("a shell call that ran while another process took its session over (its lease's connection broke) is answered as not a success: its files were not kept", async (t) => {
  const url = await freshDatabase(t);
  const a = await openPostgresStore(url);
  t.after(() => a.close());
  const b = await openPostgresStore(url);
  t.after(() => b.close());
  const admin = new pg.Client({ connectionString: url });
  admin.on("error", () => {});
  await admin.connect();
  t.after(() => admin.end());
  const fs = createEngine().fs;
  let calls = 0;
  const view: DurableSessionView = {
    id: "over",
    store: a,
    files: () => ({ fs, exclude: [] }),
    nextToolCallId: async () => `call_bash_${++calls}`,
    shellCallCount: () => calls,
    emit: () => {},
    pendingApprovalIds: async () => [],
  };
  await a.openSession({ id: "over", metadata: {}, files: view.files() });
  const held = await a.lease!("over");
  t.after(() => held.release());
  const r = await runShellStep(view, { script: "echo hi > hi.txt", stepId: "s" }, async (d) => {
    await fs.writeFile("/workspace/hi.txt", "hi\n");
    // While it runs, its lease's connection is cut and the other store takes the session.
    await admin.query("SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND classid = $1 AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())", [LEASE_LOCK_CLASS]);
    const taken = await b.lease!("over", Date.now() + 30_000);
    await taken.release();
    return { stdout: "", stderr: "", exit_code: 0, success: true, tool_call_id: d.toolCallId };
  });
  assert.equal(r.success, false, JSON.stringify(r));
  assert.equal(r.exit_code, 1);
  assert.match(r.stderr, /was taken over by another process .*: this call ran, but its changes to the session's files were not kept/);
});
