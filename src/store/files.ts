/**
 * A session's sandbox filesystem as rows: read the whole tree (files, folders, symlinks, modes)
 * and write it back into a fresh filesystem. A real folder mounted as the workspace is left out
 * (it persists by itself); only what lives in memory is saved.
 *
 * See docs/sessions.md → The store.
 */
import { createHash } from "node:crypto";
import type { IFileSystem } from "just-bash";

/** One entry of a saved tree. */
export interface FileEntry {
  /** Absolute path in the sandbox. */
  path: string;
  kind: "file" | "dir" | "symlink";
  /** Permission bits (e.g. 0o644). */
  mode: number;
  /** Bytes of a file. */
  content?: Buffer;
  /** Target of a symlink. */
  target?: string;
  /** SHA-1 of kind, mode and content/target: equal hashes mean nothing changed. */
  hash: string;
}

/**
 * Paths the shell engine makes itself on every start (command stubs, devices, /proc): never
 * saved, never restored.
 */
export const ENGINE_PATHS: readonly string[] = ["/bin", "/usr/bin", "/dev", "/proc"];

function under(path: string, prefixes: readonly string[]): boolean {
  return prefixes.some((p) => path === p || path.startsWith(p.endsWith("/") ? p : p + "/"));
}

function hashOf(kind: string, mode: number, data: Buffer | string): string {
  return createHash("sha1").update(`${kind}\0${mode}\0`).update(data).digest("hex");
}

/**
 * The hash of a file body already read, by the body's identity: the in-memory filesystem hands
 * out the body it holds and replaces it on every write (never changes it in place), so a body
 * seen before is hashed once, not at every step's end (a session's files are read whole then).
 */
const fileHashes = new WeakMap<Uint8Array, { mode: number; hash: string }>();

function fileHash(mode: number, bytes: Uint8Array): string {
  const known = fileHashes.get(bytes);
  if (known?.mode === mode) return known.hash;
  const hash = hashOf("file", mode, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  fileHashes.set(bytes, { mode, hash });
  return hash;
}

/**
 * Reads every entry under `/` except paths under `exclude` and {@link ENGINE_PATHS}, parents
 * before children. Entries that vanish while reading are skipped.
 */
export async function readTree(fs: IFileSystem, exclude: string[]): Promise<FileEntry[]> {
  const skip = [...exclude, ...ENGINE_PATHS];
  const out: FileEntry[] = [];
  const walk = async (dir: string): Promise<void> => {
    let names: string[];
    try {
      names = await fs.readdir(dir);
    } catch {
      return;
    }
    for (const name of names.sort()) {
      const path = dir === "/" ? `/${name}` : `${dir}/${name}`;
      if (under(path, skip)) continue;
      let st;
      try {
        st = await fs.lstat(path);
      } catch {
        continue;
      }
      const mode = st.mode & 0o7777;
      if (st.isSymbolicLink) {
        const target = await fs.readlink(path).catch(() => undefined);
        if (target !== undefined) out.push({ path, kind: "symlink", mode, target, hash: hashOf("symlink", mode, target) });
      } else if (st.isDirectory) {
        out.push({ path, kind: "dir", mode, hash: hashOf("dir", mode, "") });
        await walk(path);
      } else if (st.isFile) {
        const bytes = await fs.readFileBuffer(path).catch(() => undefined);
        if (bytes === undefined) continue;
        const content = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
        out.push({ path, kind: "file", mode, content, hash: fileHash(mode, bytes) });
      }
    }
  };
  await walk("/");
  return out;
}

/**
 * Writes saved entries into `fs` (folders created as needed, modes set). Entries under `exclude`
 * are skipped. A failing entry does not stop the others; their paths are returned.
 */
export async function writeTree(fs: IFileSystem, entries: FileEntry[], exclude: string[]): Promise<string[]> {
  const failed: string[] = [];
  const sorted = [...entries].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (const e of sorted) {
    if (under(e.path, exclude) || under(e.path, ENGINE_PATHS)) continue;
    try {
      const parent = e.path.slice(0, e.path.lastIndexOf("/")) || "/";
      if (parent !== "/") await fs.mkdir(parent, { recursive: true });
      if (e.kind === "dir") await fs.mkdir(e.path, { recursive: true });
      else if (e.kind === "file") await fs.writeFile(e.path, new Uint8Array(e.content ?? Buffer.alloc(0)));
      else if (e.kind === "symlink" && e.target !== undefined) {
        if (await fs.exists(e.path)) await fs.rm(e.path, { force: true });
        await fs.symlink(e.target, e.path);
      }
      if (e.kind !== "symlink") await fs.chmod(e.path, e.mode);
    } catch {
      failed.push(e.path);
    }
  }
  return failed;
}

/**
 * The saved entries that came back into the filesystem (`failed`: the paths writeTree or syncTree
 * could not write, e.g. past a lowered `maxSessionFileBytes`). A store remembers only these as
 * its last read, so a path that did not come back is neither saved again nor deleted from the
 * store at the step's end: it stays there, not lost.
 */
export function restored(entries: FileEntry[], failed: readonly string[]): FileEntry[] {
  if (!failed.length) return entries;
  const gone = new Set(failed);
  return entries.filter((e) => !gone.has(e.path));
}

/** What a step's end writes: the entries whose hash changed since `saved`, and the saved paths now gone. */
export function diffTree(entries: FileEntry[], saved: ReadonlyMap<string, string>): { changed: FileEntry[]; removed: string[] } {
  const seen = new Set(entries.map((e) => e.path));
  return { changed: entries.filter((e) => saved.get(e.path) !== e.hash), removed: [...saved.keys()].filter((p) => !seen.has(p)) };
}

/**
 * Makes `fs` hold exactly `entries` (a newer saved tree): what `fs` has and the entries do not is
 * removed, what differs is written. Paths under `exclude` and {@link ENGINE_PATHS} are left
 * alone. A failing entry does not stop the others; their paths are returned.
 */
export async function syncTree(fs: IFileSystem, entries: FileEntry[], exclude: string[]): Promise<string[]> {
  const current = await readTree(fs, exclude);
  const want = new Set(entries.map((e) => e.path));
  const failed: string[] = [];
  // Children come after their parents in a read tree: remove from the end.
  for (const e of [...current].reverse()) {
    if (want.has(e.path)) continue;
    await fs.rm(e.path, { recursive: true, force: true }).catch(() => failed.push(e.path));
  }
  const have = new Map(current.map((e) => [e.path, e.hash]));
  failed.push(...(await writeTree(fs, entries.filter((e) => have.get(e.path) !== e.hash), exclude)));
  return failed;
}
