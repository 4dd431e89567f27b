/**
 * The SQLite driver under the store: Node's own `node:sqlite` where Node has it (22.13 and
 * later, without a flag), else better-sqlite3 12.x (an optional peer dependency: on Node 20,
 * `npm install better-sqlite3@12`). Both meet the one small interface below, so the store has one
 * implementation and one behaviour; `TOOLSHELL_SQLITE_DRIVER=better-sqlite3` (or `node:sqlite`)
 * picks a driver by name, which is how the store tests run on each.
 *
 * Why: installing better-sqlite3 compiles it from source when no prebuilt binary can be fetched
 * (minutes on two cores); with `node:sqlite` an install compiles nothing. README "Set-up" has the
 * measured install times.
 */
import { createRequire } from "node:module";

/** A prepared statement: parameters by position, or one object of named ones (`@name`). */
export interface SqlStatement {
  run(...params: unknown[]): unknown;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

/** The calls the store makes on a database. */
export interface SqlDatabase {
  /** Which driver opened it. */
  readonly driver: SqliteDriverName;
  /** False once closed. */
  readonly open: boolean;
  prepare(sql: string): SqlStatement;
  /** Runs one or more statements without results. */
  exec(sql: string): void;
  /** `PRAGMA <text>`: the first column of the first row (a setting's value), or undefined. */
  pragma(text: string): unknown;
  /**
   * Wraps `fn` so that calling the result runs it in a transaction: committed when it returns,
   * rolled back when it throws. Nested calls become savepoints.
   */
  transaction<T>(fn: () => T): () => T;
  close(): void;
}

/** The drivers. */
export type SqliteDriverName = "node:sqlite" | "better-sqlite3";

const require = createRequire(import.meta.url);

interface NodeSqliteModule {
  DatabaseSync: new (file: string) => {
    prepare(sql: string): SqlStatement;
    exec(sql: string): void;
    close(): void;
  };
}

/**
 * `node:sqlite`, or undefined where Node has none (Node 20; 22 before 22.13 needs a flag). Node 22
 * calls it experimental and warns once when it loads; that warning is left out, since the store's
 * behaviour is checked by the same tests on both drivers.
 */
function nodeSqlite(): NodeSqliteModule | undefined {
  const get = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
  if (!get) return undefined;
  const emit = process.emitWarning;
  process.emitWarning = function (this: unknown, warning: string | Error, ...rest: unknown[]) {
    const text = typeof warning === "string" ? warning : warning?.message;
    if (typeof text === "string" && text.startsWith("SQLite is an experimental feature")) return;
    return (emit as (...a: unknown[]) => void).call(process, warning, ...rest);
  } as typeof process.emitWarning;
  try {
    return get.call(process, "node:sqlite") as NodeSqliteModule | undefined;
  } catch {
    return undefined;
  } finally {
    process.emitWarning = emit;
  }
}

/** The driver {@link openDatabase} uses: `TOOLSHELL_SQLITE_DRIVER` when set, else `node:sqlite` where Node has it. */
export function sqliteDriver(env: Readonly<Record<string, string | undefined>> = process.env): SqliteDriverName {
  const asked = env.TOOLSHELL_SQLITE_DRIVER;
  if (asked === "node:sqlite" || asked === "better-sqlite3") return asked;
  if (asked) throw new Error(`TOOLSHELL_SQLITE_DRIVER must be node:sqlite or better-sqlite3, got ${JSON.stringify(asked)}`);
  return nodeSqlite() ? "node:sqlite" : "better-sqlite3";
}

/** Runs `fn` in a transaction or, nested, a savepoint (the way better-sqlite3's `transaction` does). */
function transactions(exec: (sql: string) => void) {
  let depth = 0;
  return <T>(fn: () => T): (() => T) =>
    () => {
      const nested = depth > 0;
      const name = `ts_${depth}`;
      exec(nested ? `SAVEPOINT ${name}` : "BEGIN");
      depth++;
      try {
        const out = fn();
        depth--;
        exec(nested ? `RELEASE ${name}` : "COMMIT");
        return out;
      } catch (err) {
        depth--;
        try {
          exec(nested ? `ROLLBACK TO ${name}; RELEASE ${name}` : "ROLLBACK");
        } catch {}
        throw err;
      }
    };
}

/**
 * Opens (creating when missing) the SQLite database `file` (or `:memory:`) with `driver`.
 * @throws Error when the driver is missing (better-sqlite3 not installed on a Node without
 *         `node:sqlite`) or the file cannot be opened.
 */
export function openDatabase(file: string, driver: SqliteDriverName = sqliteDriver()): SqlDatabase {
  if (driver === "node:sqlite") {
    const mod = nodeSqlite();
    if (!mod) throw new Error(`node:sqlite is not available in Node ${process.versions.node} (it is from Node 22.13); install better-sqlite3@12 or upgrade Node`);
    const db = new mod.DatabaseSync(file);
    let open = true;
    const exec = (sql: string) => db.exec(sql);
    return {
      driver,
      get open() {
        return open;
      },
      prepare: (sql) => db.prepare(sql),
      exec,
      pragma(text) {
        const row = db.prepare(`PRAGMA ${text}`).get() as Record<string, unknown> | undefined;
        return row ? Object.values(row)[0] : undefined;
      },
      transaction: transactions(exec),
      close() {
        if (!open) return;
        open = false;
        db.close();
      },
    };
  }
  let Better: new (file: string) => {
    open: boolean;
    prepare(sql: string): SqlStatement;
    exec(sql: string): void;
    pragma(text: string, o: { simple: true }): unknown;
    transaction<T>(fn: () => T): () => T;
    close(): void;
  };
  try {
    Better = require("better-sqlite3");
  } catch (err) {
    throw new Error(`the store needs node:sqlite (Node 22.13 or later) or the better-sqlite3 package, which is not installed here (npm install better-sqlite3@12): ${(err as Error).message.split("\n")[0]}`, { cause: err });
  }
  const db = new Better(file);
  return {
    driver,
    get open() {
      return db.open;
    },
    prepare: (sql) => db.prepare(sql),
    exec: (sql) => db.exec(sql),
    pragma: (text) => db.pragma(text, { simple: true }),
    transaction: (fn) => db.transaction(fn),
    close: () => db.close(),
  };
}
