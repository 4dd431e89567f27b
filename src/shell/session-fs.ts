/**
 * A session's filesystem as the just-bash engine sees it: an in-memory tree bounded in bytes
 * (config `maxSessionFileBytes`), the command stubs under `/bin` and `/usr/bin`, a real folder
 * mounted read-write at the working directory when one is given, and every write named to the
 * running shell call.
 *
 * The bound is just-bash's own (`InMemoryFs`'s `maxTotalBytes`), which counts a body shared by
 * hard links once; the store saves every path, so a hard link is counted here as a copy. A write
 * past the bound fails as on a full disk, with one message that names the setting.
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
  if (prop === "cp") {
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
export function filesFullError(path: string, bound: number): Error {
  return Object.assign(new Error(`ENOSPC: no space left on device, write '${path}' (a session's files hold at most ${bound} bytes together: maxSessionFileBytes)`), { code: "ENOSPC" });
}

/** The line a shell call's stderr ends with when one of its writes failed at the bound. */
export function filesFullLine(bound: number): string {
  return `toolshell: the session's files reached maxSessionFileBytes (${bound} bytes), so a write failed (No space left on device); remove files the session no longer needs, or raise the bound\n`;
}

/** Bytes of every file under `dir` of `fs`, a path at a time (hard links counted once per path, as the store saves them). */
async function bytesUnder(fs: IFileSystem, dir: string, skip: (p: string) => boolean): Promise<number> {
  let total = 0;
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch {
    return 0;
  }
  for (const name of names) {
    const p = dir === "/" ? `/${name}` : `${dir}/${name}`;
    if (skip(p)) continue;
    const st = await fs.lstat(p).catch(() => undefined);
    if (!st) continue;
    if (st.isDirectory) total += await bytesUnder(fs, p, skip);
    else if (st.isFile) total += st.size;
  }
  return total;
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

/**
 * Wraps the session's filesystem: every write names its path to the current shell call, `/dev/null`
 * and the std streams as files swallow what is written to them, a hard link is refused when the
 * session's files would pass `bound` counted path by path, and the engine's byte-limit error
 * becomes {@link filesFullError}.
 */
function trackWrites(fs: IFileSystem, bound: number, counted: (p: string) => boolean): IFileSystem {
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
        if ((prop === "writeFile" || prop === "appendFile" || prop === "cp") && typeof path === "string" && counted(path)) {
          const adds = await bytesAdded(target, prop, args);
          const host = adds > 0 ? hostFileBound() : 0;
          if (adds > 0 && hostFileBytes() + adds > host) {
            scope?.noteFilesFull?.(hostFullLine(host));
            throw hostFullError(path, host);
          }
        }
        if (prop === "link" && typeof args[0] === "string" && typeof path === "string" && counted(path)) {
          const st = await target.stat(args[0]);
          if (st.isFile && (await bytesUnder(target, "/", (p) => !counted(p))) + st.size > bound) {
            scope?.noteFilesFull?.(filesFullLine(bound));
            throw filesFullError(path, bound);
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
  return { fs: trackWrites(mountable, options.maxFileBytes, counted), base };
}
