/**
 * A session's files are bounded (config `maxSessionFileBytes`, docs/security.md "What each limit
 * defends"): in memory they are held outside the heap the memory bound watches, and the store
 * saves them whole, so a session writing without end held the host and filled the store. A
 * write past the bound fails as on a full disk, whatever makes it — a redirection, `cp`, a hard
 * link (one body, but the store saves each path), an append, a tool's `sandbox.writeFile`, a
 * script of its own under /usr/bin — and says which setting; what fits stays, and removing files
 * makes room again. A real folder mounted as the workspace is not counted.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { ConfigError, createToolShell, defineTool, never, parseConfig } from "../../src/index.js";
import { z } from "zod";
import { openStore } from "../../src/store/open.js";

const MiB = 1024 * 1024;
const LINE = "toolshell: the session's files reached maxSessionFileBytes (1048576 bytes), so a write failed (No space left on device); remove files the session no longer needs, or raise the bound\n";
const FULL = /ENOSPC: no space left on device, write '\/workspace\/[\w.]+' \(a session's files hold at most 1048576 bytes together: maxSessionFileBytes\)|(?:write error|tee: \w+|split: failed to write output): No space left on device/;

async function shellOf(t: { after(fn: () => unknown): void }, extra: Record<string, unknown> = {}) {
  const writer = defineTool({
    description: "writes N bytes into a file of the sandbox",
    inputSchema: z.object({ path: z.string(), bytes: z.number() }),
    approval: never(),
    async execute({ path: p, bytes }, ctx) {
      await ctx.getSandbox().writeFile(p, "w".repeat(bytes));
      return "written";
    },
  });
  const ts = await createToolShell({ config: { maxSessionFileBytes: MiB, maxOutputBytes: 4 * MiB }, tools: { writer }, ...extra });
  t.after(() => ts.close());
  return ts;
}

test("each way of writing stops at the bound with the same error; what fits stays; removing files makes room", async (t) => {
  const s = (await shellOf(t)).session("files");
  const first = await s.bash(`printf '%0600000d' 0 > a; echo "a: $?"`);
  assert.equal(first.stdout, "a: 0\n", first.stderr);
  for (const [name, script] of [
    ["redirection", `printf '%0600000d' 0 > b; echo "rc=$?"`],
    ["append", `cat a >> a; echo "rc=$?"`],
    ["cp", `cp a c; echo "rc=$?"`],
    ["tee", `cat a | tee e > /dev/null; echo "rc=$?"`],
    ["tool's sandbox.writeFile", `tools writer '{"path":"f","bytes":600000}'; echo "rc=$?"`],
  ] as const) {
    const r = await s.bash(script);
    assert.match(r.stdout, /rc=[1-9]/, `${name}: the write failed: ${JSON.stringify(r)}`);
    assert.match(r.stdout + r.stderr, FULL, `${name}: says the disk is full: ${JSON.stringify(r)}`);
    assert.ok(r.stderr.endsWith(LINE), `${name}: the shell call's stderr ends saying which bound: ${JSON.stringify(r)}`);
  }
  const size = await s.bash("wc -c < a; ls");
  assert.match(size.stdout, /^600000\n/, "the file that fit is whole");
  const room = await s.bash(`rm -f a b e; printf '%0900000d' 0 > big; echo "rc=$?"; wc -c < big`);
  assert.match(room.stdout, /rc=0\n900000\n/, `removed files make room: ${JSON.stringify(room)}`);
  const small = await s.bash(`echo fits > small && cat small`);
  assert.deepEqual([small.stdout, small.stderr], ["fits\n", ""], "control: a small write still fits, and no line is added");
});

test("scripts of a session's own under /usr/bin hold at most 1 MiB more (they are not saved); control: a small one runs", async (t) => {
  const s = (await shellOf(t)).session("stubs");
  const big = await s.bash(`printf '%02000000d' 0 > /usr/bin/huge; echo "rc=$?"`);
  assert.match(big.stdout, /rc=1/, JSON.stringify(big));
  const ok = await s.bash(`printf '#!/bin/bash\\necho mine\\n' > /usr/bin/mine && chmod +x /usr/bin/mine && mine`);
  assert.equal(ok.stdout, "mine\n", ok.stderr);
});

test("a real folder mounted as the workspace is not counted; the in-memory rest is", async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), "ts-files-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const s = (await shellOf(t, { workspaceDir: dir })).session("mounted");
  const r = await s.bash(`printf '%02000000d' 0 > on-disk; echo "rc=$?"; printf '%02000000d' 0 > /tmp/in-memory; echo "tmp=$?"`);
  assert.match(r.stdout, /^rc=0\ntmp=1\n$/, JSON.stringify(r));
  assert.equal(statSync(path.join(dir, "on-disk")).size, 2_000_000);
});

test("the files that fit are saved and come back from a SQLite store; the hashes are read without the bodies", async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), "ts-files-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, "state.db");
  const store = await openStore(file);
  t.after(() => store.close());
  const s = (await shellOf(t, { store })).session("saved");
  const r = await s.bash(`printf '%0700000d' 0 > keep; cp keep lost; echo "rc=$?"`);
  assert.match(r.stdout, /rc=1/, JSON.stringify(r));
  const store2 = await openStore(file);
  t.after(() => store2.close());
  const again = (await shellOf(t, { store: store2 })).session("saved");
  const back = await again.bash("ls; wc -c < keep");
  assert.equal(back.stdout, "keep\n700000\n", back.stderr);
  // The check made before every shell call (did another process change the files?) reads path
  // and hash from an index: a column after a large body would walk the body's pages.
  const plan = (store as unknown as { db: { prepare(sql: string): { all(...a: unknown[]): Array<{ detail: string }> } } }).db
    .prepare("EXPLAIN QUERY PLAN SELECT path, hash FROM session_files WHERE session_id = ?")
    .all("saved");
  assert.match(plan.map((p) => p.detail).join("; "), /COVERING INDEX session_files_hash/);
});

test("maxSessionFileBytes is checked like every limit: 1 MiB to 1 GiB, 64 MiB by default", () => {
  assert.equal(parseConfig({}, { baseDir: tmpdir() }).maxSessionFileBytes, 64 * MiB);
  for (const bad of [MiB - 1, 1024 * MiB + 1, 1.5 * MiB + 0.5, "64MiB", -1]) {
    assert.throws(() => parseConfig({ maxSessionFileBytes: bad }, { baseDir: tmpdir() }), (e: unknown) => e instanceof ConfigError && /maxSessionFileBytes: expected a whole number of bytes from 1048576 \(1 MiB\) to 1073741824 \(1 GiB\)/.test(e.message), String(bad));
  }
});

test("what the store keeps beside the bytes is bounded too: no hard links, names as long as Linux's, one entry per KiB of the bound; controls: ln -s, cp and ordinary names work", async (t) => {
  const s = (await shellOf(t)).session("names");
  const hard = await s.bash(`echo hi > a; ln a b; echo "rc=$?"; ln -s a c && cp a d && cat c d`);
  assert.equal(hard.stdout, "rc=1\nhi\nhi\n", JSON.stringify(hard));
  assert.match(hard.stderr, /ln: failed to create hard link 'b' => 'a': Operation not permitted \(a session's files keep no hard links: use ln -s, or cp\)/);
  const names = await s.bash(
    `t=$(printf '%05000d' 0); ln -s "$t" long-target; echo "target=$?"; touch $(printf '%0256d' 0); echo "name=$?"; ` +
      `c=$(printf '%0200d' 0); p=/tmp; for i in $(seq 1 30); do p="$p/$c"; done; mkdir -p "$p"; echo "path=$?"; mkdir -p /tmp/$(printf '%0255d' 0)/ok; echo "control=$?"`,
  );
  assert.equal(names.stdout, "target=1\nname=1\npath=1\ncontrol=0\n", JSON.stringify(names));
  assert.match(names.stderr, /ENAMETOOLONG: File name too long/);
  const many = await s.bash(`for i in $(seq 1 1100); do touch /tmp/f$i || { echo "stopped at $i"; break; }; done`);
  assert.match(many.stdout, /^stopped at \d+\n$/, JSON.stringify(many));
  assert.match(many.stderr, /a session's files hold at most 1024 files and folders together: maxSessionFileBytes/);
  assert.ok(many.stderr.endsWith(LINE), many.stderr.slice(-300));
});

test("files that no longer fit when the session comes back (a lowered bound) stay in the store: the session's next step does not delete them", async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), "ts-files-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, "state.db");
  const open = async (bound: number) => {
    const store = await openStore(file);
    const ts = await createToolShell({ config: { maxSessionFileBytes: bound, maxOutputBytes: 4 * MiB }, store });
    return { s: ts.session("lowered"), close: async () => (await ts.close(), await store.close()) };
  };
  const wide = await open(2 * MiB);
  const wrote = await wide.s.bash(`printf '%0800000d' 0 > a; printf '%0700000d' 0 > b; echo ok`);
  assert.equal(wrote.stdout, "ok\n", wrote.stderr);
  await wide.close();
  const narrow = await open(MiB);
  const step = await narrow.s.bash("ls; echo x > c");
  assert.equal(step.exit_code, 0, step.stderr);
  assert.match(step.stdout, /^a\n$|^b\n$/, `one of the two came back: ${step.stdout}`);
  await narrow.close();
  const again = await open(2 * MiB);
  t.after(() => again.close());
  const back = await again.s.bash("wc -c < a; wc -c < b; cat c");
  assert.equal(back.stdout, "800000\n700000\nx\n", back.stderr);
});
