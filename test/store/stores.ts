/**
 * The stores the store suite runs on: SQLite (a file in a temp folder, through whichever driver
 * this Node uses) and PostgreSQL (a fresh database on a real server, test/fixtures/postgres.ts).
 * Each test of test/store/*.test.ts runs once per kind; what only one kind can show (SQLite's
 * WAL mode, PostgreSQL's schema table) is asked of the kind.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after } from "node:test";
import { MIGRATIONS, openDatabase, openStore, PG_MIGRATIONS, PostgresStore, SqliteStore, sqliteDriver, type Store } from "../../src/store/index.js";
import { freshDatabase } from "../fixtures/postgres.js";

type T = { after(fn: () => unknown): void };

// A store a failing test left open is closed when the file's tests end (a PostgreSQL store's
// connections would keep the process alive).
const opened: Store[] = [];
after(() => Promise.all(opened.splice(0).map((s) => s.close().catch(() => {}))));
const track = async (s: Promise<Store>): Promise<Store> => {
  const store = await s;
  opened.push(store);
  return store;
};

/** One kind of store, as the tests use it. */
export interface StoreKind {
  name: "sqlite" | "postgres";
  /** A new, empty store location (a file path in a fresh folder, or a fresh database's URL), removed when `t` ends. */
  location(t: T): Promise<string>;
  /** Opens the store at `location`. */
  open(location: string): Promise<Store>;
  /** The schema version the store's database records, and the kind's own settings (SQLite: journal mode, driver). */
  describe(store: Store): Promise<{ version: number; latest: number; journal?: unknown; driver?: string }>;
  /** Marks the database at `location` as one schema version newer than this code knows. */
  makeNewer(location: string): Promise<void>;
  /** Paths of the files saved for a session. */
  savedPaths(store: Store, sessionId: string): Promise<string[]>;
  /** Resolves when every write `store` queued has been committed (SQLite writes at once). */
  flush(store: Store): Promise<void>;
  /** A promise that resolves when `store` hears of another instance's approval change (SQLite sees it at once). */
  nextChange(store: Store): Promise<unknown>;
}

const sqlite: StoreKind = {
  name: "sqlite",
  async location(t) {
    const d = mkdtempSync(path.join(tmpdir(), "toolshell-store-"));
    t.after(() => rmSync(d, { recursive: true, force: true }));
    return path.join(d, "nested", "state.db");
  },
  open: (location) => track(openStore(location)),
  async describe(store) {
    const db = (store as SqliteStore).db;
    return { version: Number(db.pragma("user_version")), latest: MIGRATIONS.length, journal: db.pragma("journal_mode"), driver: db.driver === sqliteDriver() ? db.driver : `unexpected ${db.driver}` };
  },
  async makeNewer(location) {
    const raw = openDatabase(location);
    raw.exec(`PRAGMA user_version = ${MIGRATIONS.length + 1}`);
    raw.close();
  },
  async savedPaths(store, sessionId) {
    return ((store as SqliteStore).db.prepare("SELECT path FROM session_files WHERE session_id = ?").all(sessionId) as Array<{ path: string }>).map((x) => x.path);
  },
  flush: async () => {},
  nextChange: async () => {},
};

const postgres: StoreKind = {
  name: "postgres",
  location: (t) => freshDatabase(t),
  open: (location) => track(openStore(location)),
  async describe(store) {
    const r = await (store as PostgresStore).pool.query("SELECT version FROM toolshell_schema");
    return { version: Number(r.rows[0].version), latest: PG_MIGRATIONS.length };
  },
  async makeNewer(location) {
    const s = await openStore(location);
    try {
      await (s as PostgresStore).pool.query("UPDATE toolshell_schema SET version = $1", [PG_MIGRATIONS.length + 1]);
    } finally {
      await s.close();
    }
  },
  async savedPaths(store, sessionId) {
    return (await (store as PostgresStore).pool.query("SELECT path FROM session_files WHERE session_id = $1", [sessionId])).rows.map((x: { path: string }) => x.path);
  },
  flush: (store) => (store as PostgresStore).flush(),
  nextChange: (store) => (store as PostgresStore).nextChange(),
};

/** Every kind the suite runs on. */
export const STORES: readonly StoreKind[] = [sqlite, postgres];
