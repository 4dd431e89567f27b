/**
 * A session's filesystem as the just-bash engine sees it: an in-memory tree bounded in bytes
 * (config `maxSessionFileBytes`), the command stubs under `/bin` and `/usr/bin`, a real folder
 * mounted read-write at the working directory when one is given, and every write named to the
 * running shell call.
 *
 * The bound of bytes is just-bash's own (`InMemoryFs`'s `maxTotalBytes`); the store saves every
 * path apart, so hard links (one body, counted once by the engine) are refused here, and so are
 * names past Linux's NAME_MAX / PATH_MAX (a path's text is saved too); a session holds at most
 * one entry per KiB of the bound. A write past a bound fails as on a full disk, with one message
 * that names the setting.
 *
 * See docs/security.md → What each limit defends; docs/sessions.md → The store.
 */
import { totalmem } from "node:os";
import { InMemoryFs, MountableFs, ReadWriteFs, type IFileSystem } from "./just-bash.js";
import { currentScope } from "./scope.js";

/** Where the working directory is inside the sandbox. */
export const WORKDIR = "/workspace";

/** Bytes a session may add to the command stubs' folders (its own scripts in /usr/bin): they are not saved. */
const STUB_ROOM = 1024 * 1024;

const DISCARD = new Set(["/dev/null", "/dev/zero", "/dev/stdout", "/dev/stderr"]);
const MUTATORS = new Set(["writeFile", "appendFile", "mkdir", "rm", "cp", "mv", "symlink", "link", "chmod", "utimes"]);
/** The mutating methods of a filesystem (async and sync forms). */
const WRITES = new Set([...MUTATORS, "writeFileSync", "appendFileSync", "mkdirSync", "rmSync", "symlinkSync", "chmodSync"]);

/**
 * What every session's in-memory files of this process may hold together: the environment's
 * `TOOLSHELL_HOST_FILE_BYTES`, else a quarter of the machine's memory, at most 4 GiB. Each session
 * is bounded by `maxSessionFileBytes`; this bounds many sessions at once (their bodies are
 * outside the heap the memory bound watches).
 */
export function hostFileBound(): number {
  const set = Number(process.env.TOOLSHELL_HOST_FILE_BYTES);
  return Number.isSafeInteger(set) && set > 0 ? set : Math.min(Math.floor(totalmem() / 4), 4 * 1024 ** 3);
}

/** Every session filesystem of this process that is still alive, to count their bytes together. */
const everyBase = new Set<WeakRef<InMemoryFs>>();
const gone = new FinalizationRegistry<WeakRef<InMemoryFs>>((ref) => everyBase.delete(ref));

/** The bytes just-bash counts as held by `fs` (its own count, kept as it writes). */
function heldBy(fs: InMemoryFs): number {
  const n = (fs as unknown as { retainedBytes?: unknown }).retainedBytes;
  return typeof n === "number" ? n : 0;
}

/** The bytes every live session filesystem holds, together. */
export function hostFileBytes(): number {
  let n = 0;
  for (const ref of everyBase) {
    const fs = ref.deref();
    if (fs) n += heldBy(fs);
  }
  return n;
}

/** The bytes a write adds (at most): its content's, or a copy's source's. */
async function bytesAdded(fs: IFileSystem, prop: string, args: unknown[]): Promise<number> {
  if (prop === "cp" || prop === "mv") {
    const st = typeof args[0] === "string" ? await fs.stat(args[0]).catch(() => undefined) : undefined;
    return st?.isFile ? st.size : 0;
  }
  const content = args[1];
  return typeof content === "string" ? Buffer.byteLength(content) : content instanceof Uint8Array ? content.byteLength : 0;
}

/** The error a write fails with when every session's files together would pass {@link hostFileBound}. */
export function hostFullError(path: string, bound: number): Error {
  return Object.assign(new Error(`ENOSPC: no space left on device, write '${path}' (the sessions of this host hold at most ${bound} bytes of files together: TOOLSHELL_HOST_FILE_BYTES)`), { code: "ENOSPC" });
}

/** The line a shell call's stderr ends with when one of its writes failed at the host's bound. */
export function hostFullLine(bound: number): string {
  return `toolshell: the sessions of this host hold ${bound} bytes of files together, the most they may (TOOLSHELL_HOST_FILE_BYTES), so a write failed (No space left on device); remove files sessions no longer need\n`;
}

/** just-bash's own message when `InMemoryFs` would pass its byte limit. */
const ENGINE_FULL = /^ENOSPC: in-memory filesystem byte limit exceeded/;

/** The error a write past the bound fails with, whatever made it (a redirection, a command, a tool's `writeFile`). */
export function filesFullError(path: string, bound: number, what = `${bound} bytes`): Error {
  return Object.assign(new Error(`ENOSPC: no space left on device, write '${path}' (a session's files hold at most ${what} together: maxSessionFileBytes)`), { code: "ENOSPC" });
}

/** The line a shell call's stderr ends with when one of its writes failed at the bound. */
export function filesFullLine(bound: number): string {
  return `toolshell: the session's files reached maxSessionFileBytes (${bound} bytes), so a write failed (No space left on device); remove files the session no longer needs, or raise the bound\n`;
}

/** Command stubs (path → text) by command-name set, and their one filesystem shared by every session. */
const stubLayers = new Map<string, { stubs: Record<string, string>; bytes: number; shared: InMemoryFs }>();

/**
 * The files `/bin/NAME` and `/usr/bin/NAME` of just-bash's default layout, so `which`, `/usr/bin/tools`
 * and `command -v` behave as on a real system. Every session reads one shared filesystem of them;
 * a session's first write there (a script of its own in /usr/bin) gives it its own copy, so an
 * idle session holds none of them. That copy holds at most {@link STUB_ROOM} bytes more.
 */
function stubLayer(names: Set<string>): IFileSystem {
  const key = [...names].sort().join("\n");
  let layer = stubLayers.get(key);
  if (!layer) {
    const stubs: Record<string, string> = {};
    for (const name of names) stubs[`/${name}`] = `#!/bin/bash\n# built-in command: ${name}\n`;
    const bytes = Object.values(stubs).reduce((n, s) => n + Buffer.byteLength(s), 0);
    layer = { stubs, bytes, shared: new InMemoryFs(stubs) };
    stubLayers.set(key, layer);
  }
  const { stubs, bytes, shared } = layer;
  let own: InMemoryFs | null = null;
  return new Proxy(shared, {
    get(_target, prop) {
      if (typeof prop === "string" && WRITES.has(prop)) own ??= new InMemoryFs(stubs, { maxTotalBytes: bytes + STUB_ROOM });
      const fs = own ?? shared;
      const value = Reflect.get(fs, prop, fs);
      return typeof value === "function" ? value.bind(fs) : value;
    },
  });
}

/** The path a filesystem method writes (its destination). */
function writtenPath(prop: string, args: unknown[]): unknown {
  return prop === "cp" || prop === "mv" || prop === "symlink" || prop === "link" ? args[1] : args[0];
}

/** The longest name of one entry, and of a whole path or a symbolic link's target, in bytes (Linux's NAME_MAX and PATH_MAX). */
const NAME_MAX = 255;
const PATH_MAX = 4096;
/** What one entry (a file, a folder, a link) costs against `maxSessionFileBytes` in the count of entries: a session holds at most bound / 1 KiB of them. */
const ENTRY_BYTES = 1024;

/** The error of a name past {@link NAME_MAX} or {@link PATH_MAX}, as Linux gives it. */
function nameTooLong(path: string): Error {
  return Object.assign(new Error(`ENAMETOOLONG: File name too long, '${path.length > 200 ? `${path.slice(0, 200)}…` : path}' (a name is at most ${NAME_MAX} bytes, a path or a link's target ${PATH_MAX})`), { code: "ENAMETOOLONG" });
}

/** The reason `path` (or a link's target) is refused as a name, if it is. */
function nameProblem(path: string, target?: string): Error | undefined {
  if (Buffer.byteLength(path) > PATH_MAX || path.split("/").some((part) => Buffer.byteLength(part) > NAME_MAX)) return nameTooLong(path);
  if (target !== undefined && Buffer.byteLength(target) > PATH_MAX) return nameTooLong(target);
  return undefined;
}

/** How many entries just-bash holds in `fs` (its own map of them). */
function entriesOf(fs: InMemoryFs): number {
  const data = (fs as unknown as { data?: { size?: unknown } }).data;
  return typeof data?.size === "number" ? data.size : 0;
}

/** The methods that make entries. */
const MAKES_ENTRIES = new Set(["writeFile", "appendFile", "mkdir", "cp", "mv", "symlink"]);

/**
 * Wraps the session's filesystem: every write names its path to the current shell call, `/dev/null`
 * and the std streams as files swallow what is written to them; in the in-memory files (`counted`),
 * a name past Linux's limits is refused, a hard link is refused (the store saves every path apart,
 * while the engine counts a shared body once), a write past the host's bound or the session's count
 * of entries fails as on a full disk, and the engine's byte-limit error becomes {@link filesFullError}.
 */
function trackWrites(fs: IFileSystem, base: InMemoryFs, bound: number, counted: (p: string) => boolean): IFileSystem {
  const maxEntries = Math.floor(bound / ENTRY_BYTES);
  return new Proxy(fs, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== "function") return value;
      if (typeof prop !== "string" || !MUTATORS.has(prop)) return value.bind(target);
      return async (...args: unknown[]) => {
        const path = writtenPath(prop, args);
        if ((prop === "writeFile" || prop === "appendFile") && typeof path === "string" && DISCARD.has(path)) return;
        const scope = currentScope();
        if (scope && typeof path === "string" && !path.startsWith("/dev/")) scope.noteFiles([path]);
        if (typeof path === "string") {
          const bad = nameProblem(path, prop === "symlink" && typeof args[0] === "string" ? args[0] : undefined);
          if (bad) throw bad;
        }
        if (typeof path === "string" && counted(path)) {
          if (prop === "link") throw Object.assign(new Error(`EPERM: operation not permitted, link '${String(args[0])}' -> '${path}' (hard links are not kept in a session's files: use ln -s, or cp)`), { code: "EPERM" });
          if (MAKES_ENTRIES.has(prop) && entriesOf(base) >= maxEntries) {
            scope?.noteFilesFull?.(filesFullLine(bound));
            throw filesFullError(path, bound, `${maxEntries} files and folders`);
          }
          const adds = prop === "writeFile" || prop === "appendFile" || prop === "cp" || (prop === "mv" && typeof args[0] === "string" && !counted(args[0])) ? await bytesAdded(target, prop, args) : 0;
          const host = adds > 0 ? hostFileBound() : 0;
          if (adds > 0 && hostFileBytes() + adds > host) {
            scope?.noteFilesFull?.(hostFullLine(host));
            throw hostFullError(path, host);
          }
        }
        try {
          return await (value as (...a: unknown[]) => unknown).apply(target, args);
        } catch (err) {
          if (!(err instanceof Error && ENGINE_FULL.test(err.message))) throw err;
          scope?.noteFilesFull?.(filesFullLine(bound));
          throw filesFullError(String(path), bound);
        }
      };
    },
  });
}

/** Options of a session's filesystem. */
export interface SessionFsOptions {
  /** Every command name, for the stubs under /bin and /usr/bin. */
  commandNames: Set<string>;
  /** A real folder mounted read-write at {@link WORKDIR}; omitted = everything in memory. */
  workspaceDir?: string;
  /** What the in-memory files may hold together, in bytes. */
  maxFileBytes: number;
}

/** Builds a session's filesystem (see the file comment). */
export function createSessionFs(options: SessionFsOptions): { fs: IFileSystem; base: InMemoryFs } {
  const base = new InMemoryFs(undefined, { maxTotalBytes: options.maxFileBytes });
  const ref = new WeakRef(base);
  everyBase.add(ref);
  gone.register(base, ref);
  // The device files and folders just-bash's default layout makes (it makes them only on a bare
  // InMemoryFs, and ours is mounted and wrapped).
  for (const dir of ["/tmp", "/dev/fd", "/proc/self/fd", "/usr"]) base.mkdirSync(dir, { recursive: true });
  for (const dev of ["/dev/null", "/dev/stdin", "/dev/stdout", "/dev/stderr"]) base.writeFileSync(dev, "");
  base.writeFileSync("/dev/zero", new Uint8Array(0));
  const mountable = new MountableFs({ base });
  mountable.mount("/bin", stubLayer(options.commandNames));
  mountable.mount("/usr/bin", stubLayer(options.commandNames));
  if (options.workspaceDir) mountable.mount(WORKDIR, new ReadWriteFs({ root: options.workspaceDir }));
  else base.mkdirSync(WORKDIR, { recursive: true });
  const mounted = ["/bin", "/usr/bin", ...(options.workspaceDir ? [WORKDIR] : [])];
  const counted = (p: string) => !mounted.some((m) => p === m || p.startsWith(`${m}/`));
  return { fs: trackWrites(mountable, base, options.maxFileBytes, counted), base };
}
