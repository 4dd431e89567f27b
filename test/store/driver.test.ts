/**
 * The SQLite driver under the store, on whichever driver this Node uses (node:sqlite from Node
 * 22.13, else better-sqlite3; TOOLSHELL_SQLITE_DRIVER names one): transactions commit or roll
 * back whole, nested ones are savepoints, pragmas read back, bytes come back as written, and a
 * file written by one process is read by another.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { openDatabase, sqliteDriver } from "../../src/store/index.js";

function dbFile(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(path.join(tmpdir(), "toolshell-driver-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return path.join(dir, "d.db");
}

test("the driver is node:sqlite where Node has it, else better-sqlite3; a bad name is refused", () => {
  const has = !!(process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule?.("node:sqlite");
  assert.equal(sqliteDriver({}), has ? "node:sqlite" : "better-sqlite3");
  assert.equal(sqliteDriver({ TOOLSHELL_SQLITE_DRIVER: "better-sqlite3" }), "better-sqlite3");
  assert.throws(() => sqliteDriver({ TOOLSHELL_SQLITE_DRIVER: "sqlite4" }), /must be node:sqlite or better-sqlite3/);
});

test("transactions commit or roll back whole; a nested one is a savepoint", (t) => {
  const db = openDatabase(dbFile(t));
  t.after(() => db.close());
  db.exec("CREATE TABLE t (k TEXT PRIMARY KEY, v BLOB)");
  const put = db.prepare("INSERT INTO t (k, v) VALUES (?, ?)");
  const keys = () => (db.prepare("SELECT k FROM t ORDER BY k").all() as Array<{ k: string }>).map((r) => r.k);
  db.transaction(() => {
    put.run("a", null);
    put.run("b", null);
  })();
  assert.throws(() =>
    db.transaction(() => {
      put.run("c", null);
      put.run("a", null); // duplicate key: the whole transaction goes
    })(),
  );
  assert.deepEqual(keys(), ["a", "b"]);
  const out = db.transaction(() => {
    put.run("d", null);
    assert.throws(() =>
      db.transaction(() => {
        put.run("e", null);
        throw new Error("inner fails");
      })(),
    );
    return "outer kept";
  })();
  assert.equal(out, "outer kept");
  assert.deepEqual(keys(), ["a", "b", "d"]);
  // Bytes come back as written; named parameters bind by name.
  db.prepare("INSERT INTO t (k, v) VALUES (@k, @v)").run({ k: "bin", v: Buffer.from([0, 255, 1]) });
  const row = db.prepare("SELECT v FROM t WHERE k = ?").get("bin") as { v: Uint8Array };
  assert.deepEqual([...row.v], [0, 255, 1]);
  db.pragma("user_version = 7");
  assert.equal(db.pragma("user_version"), 7);
  assert.equal(db.open, true);
});

test("a file written here is read by another process with the same driver", (t) => {
  const file = dbFile(t);
  const db = openDatabase(file);
  db.exec("PRAGMA journal_mode = WAL; CREATE TABLE t (v TEXT); INSERT INTO t VALUES ('from the parent')");
  db.close();
  assert.equal(db.open, false);
  const code = `import(${JSON.stringify(new URL("../../src/store/driver.ts", import.meta.url).href)}).then((m) => { const d = m.openDatabase(${JSON.stringify(file)}); console.log(d.driver, d.prepare("SELECT v FROM t").get().v); d.close(); })`;
  const r = spawnSync(process.execPath, ["--import", "tsx", "-e", code], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, `${sqliteDriver()} from the parent\n`);
  assert.equal(r.stderr, "", "no warning about the driver");
});
