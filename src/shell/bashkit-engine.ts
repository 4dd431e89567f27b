/**
 * The experimental engine: bashkit (`@everruns/bashkit`, a bash interpreter in native code) behind
 * the same {@link Engine} interface as just-bash, with toolshell's `tools` and real jq as its
 * JavaScript builtins. Measured against just-bash in docs/shell.md ("The other road: bashkit"),
 * which says why it is not the default: a builtin can print only stdout and end with status 0, or
 * fail with status 1 (its stderr is the thrown message), so jq's statuses 2–5 and `tools`' own
 * cannot come through; a run takes no stdin; files are text.
 *
 * See docs/shell.md → The other road: bashkit.
 */
import { createRequire } from "node:module";
import path from "node:path";
import type { Command, FsStat, IFileSystem } from "./just-bash.js";
import { HALT_LINE } from "./halt.js";
import { DEFAULT_MAX_OUTPUT_BYTES, OutputKeeper, outputPassed } from "./output-bound.js";
import { currentScope, runInScope, type ShellScope } from "./scope.js";
import { createToolsCommand } from "./commands/tools/command.js";
import { WORKDIR, type Engine, type EngineOptions } from "./engine.js";

/** bashkit's file handle, as much of it as this adapter uses. */
interface KitFs {
  readFile(p: string): string;
  writeFile(p: string, c: string): void;
  appendFile(p: string, c: string): void;
  mkdir(p: string, recursive?: boolean): void;
  remove(p: string, recursive?: boolean): void;
  stat(p: string): { fileType: string; size: number; mode: number; modified: number };
  exists(p: string): boolean;
  readDir(p: string): Array<{ name: string; metadata: { fileType: string } }>;
  chmod?(p: string, mode: number): void;
  symlink?(target: string, link: string): void;
  readLink?(p: string): string;
}

interface KitBash {
  analyze(script: string): { commands: Array<{ name?: string | null; args: Array<string | null> }>; isOpaque: boolean; truncated: boolean };
  execute(script: string, o?: { signal?: AbortSignal; onOutput?: (chunk: { stdout: string; stderr: string }) => void }): Promise<{ stdout: string; stderr: string; exitCode?: number; exit_code?: number }>;
  fs(): KitFs;
}

const utf8 = new TextDecoder();
const fail = (code: string, p: string) => Object.assign(new Error(`${code}: ${p}`), { code });

/** An async `IFileSystem` over bashkit's synchronous, text-only file handle. */
function adaptFs(kit: () => KitFs): IFileSystem {
  const stat = async (p: string): Promise<FsStat> => {
    const fs = kit();
    if (!fs.exists(p)) throw fail("ENOENT", p);
    const s = fs.stat(p);
    const kind = s.fileType.toLowerCase();
    return { isFile: kind.includes("file"), isDirectory: kind.includes("dir"), isSymbolicLink: kind.includes("link"), mode: s.mode, size: s.size, mtime: new Date(s.modified * 1000) };
  };
  const text = (c: unknown) => (typeof c === "string" ? c : utf8.decode(c as Uint8Array));
  const all = (dir: string, out: string[]) => {
    for (const e of kit().readDir(dir)) {
      const p = dir === "/" ? `/${e.name}` : `${dir}/${e.name}`;
      out.push(p);
      if (e.metadata.fileType.toLowerCase().includes("dir")) all(p, out);
    }
    return out;
  };
  const fs: IFileSystem = {
    readFile: async (p) => kit().readFile(p),
    readFileBuffer: async (p) => new TextEncoder().encode(kit().readFile(p)),
    writeFile: async (p, c) => kit().writeFile(p, text(c)),
    appendFile: async (p, c) => kit().appendFile(p, text(c)),
    exists: async (p) => kit().exists(p),
    stat,
    lstat: stat,
    mkdir: async (p, o) => {
      if (!(o?.recursive && kit().exists(p))) kit().mkdir(p, o?.recursive ?? false);
    },
    readdir: async (p) => kit().readDir(p).map((e) => e.name),
    rm: async (p, o) => {
      if (!kit().exists(p)) {
        if (o?.force) return;
        throw fail("ENOENT", p);
      }
      kit().remove(p, o?.recursive ?? false);
    },
    cp: async (a, b) => kit().writeFile(b, kit().readFile(a)),
    mv: async (a, b) => {
      kit().writeFile(b, kit().readFile(a));
      kit().remove(a, false);
    },
    resolvePath: (base, p) => path.posix.resolve(base, p),
    getAllPaths: () => all("/", []),
    chmod: async (p, mode) => kit().chmod?.(p, mode),
    symlink: async (target, link) => kit().symlink?.(target, link),
    link: async (a, b) => kit().writeFile(b, kit().readFile(a)),
    readlink: async (p) => kit().readLink?.(p) ?? p,
    realpath: async (p) => p,
    utimes: async () => {},
  };
  return fs;
}

/**
 * A toolshell command (a just-bash `Command`) as a bashkit builtin: the same `execute`, given a
 * context built from bashkit's; status 0 returns stdout, any other throws its stderr (bashkit
 * reports status 1), so stdout printed before a failure is lost. Its files are the builtin's own
 * handle on bashkit's filesystem.
 */
function asBuiltin(cmd: Command, scope: () => ShellScope | undefined, halt: () => void, maxOutputBytes: number) {
  return async (ctx: { argv: string[]; stdin: string | null; env: Record<string, string>; cwd: string; fs: unknown }): Promise<string> => {
    const context = {
      // The builtin's own live handle: the instance's handle would re-enter the running interpreter.
      fs: adaptFs(() => ctx.fs as KitFs),
      cwd: ctx.cwd,
      env: new Map(Object.entries(ctx.env)),
      exportedEnv: ctx.env,
      stdin: ctx.stdin ?? "",
      limits: { maxExecutionTimeMs: 600_000, maxOutputSize: maxOutputBytes },
      // A halt (src/shell/halt.ts) cancels the run: bashkit has no way for a builtin to stop the script.
      executionScope: {
        consumeLimited: () => {
          halt();
          throw new Error("toolshell: the shell call stopped");
        },
      },
    } as unknown as Parameters<Command["execute"]>[1];
    const s = scope();
    const run = () => cmd.execute(ctx.argv, context);
    const r = s ? await runInScope(s, run) : await run();
    if (r.exitCode !== 0) throw new Error((r.stderr || `${cmd.name}: exit ${r.exitCode}`).replace(/\n$/, ""));
    return r.stdout;
  };
}

/** What bashkit's own parser finds in a script: its `tools` calls (null for a word not literal) and whether it hides work. */
export interface BashkitReading {
  calls: Array<Array<string | null>>;
  opaque: boolean;
}

/** An engine on bashkit: the {@link Engine} interface and bashkit's own reading of a script. */
export interface BashkitEngine extends Engine {
  /** bashkit's `analyze()` of `script`: what the pre-start check must agree with before a run. */
  read(script: string): BashkitReading;
}

/**
 * Creates a session's engine on bashkit: one bashkit instance per session (its files live in it),
 * `tools` and the given commands (real jq among them) as builtins. Experimental: see the file comment.
 * @throws Error when `@everruns/bashkit` cannot be loaded (it is a development dependency)
 */
export function createBashkitEngine(options: EngineOptions = {}): BashkitEngine {
  const { Bash } = createRequire(import.meta.url)("@everruns/bashkit") as { Bash: new (o: object) => KitBash };
  let active: ShellScope | undefined;
  let stop: AbortController | null = null;
  let kit: KitBash | null = null;
  const fs = adaptFs(() => kit!.fs());
  const maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  const builtins: Record<string, ReturnType<typeof asBuiltin>> = {};
  for (const cmd of [...(options.commands ?? []).filter((c) => c.name === "jq"), createToolsCommand()]) builtins[cmd.name] = asBuiltin(cmd, () => active, () => stop?.abort(), maxOutputBytes);
  kit = new Bash({
    cwd: WORKDIR,
    env: { HOME: WORKDIR, PWD: WORKDIR, ...(options.env ?? {}) },
    customBuiltins: builtins,
    timeoutMs: options.maxExecutionTimeMs ?? 600_000,
    maxCommands: 10_000_000,
    maxLoopIterations: 10_000_000,
    ...(options.workspaceDir ? { mounts: [{ path: WORKDIR, root: options.workspaceDir, writable: true }], allowedMountPaths: [options.workspaceDir] } : {}),
  });
  const k = kit;
  if (!options.workspaceDir) k.fs().mkdir(WORKDIR, true);
  for (const [p, c] of Object.entries(options.files ?? {})) {
    const abs = p.startsWith("/") ? p : `${WORKDIR}/${p}`;
    k.fs().mkdir(path.posix.dirname(abs), true);
    k.fs().writeFile(abs, c);
  }
  let queue: Promise<unknown> = Promise.resolve();
  return {
    fs,
    cwd: WORKDIR,
    read(script) {
      const a = k.analyze(script);
      return { calls: a.commands.filter((c) => c.name === "tools").map((c) => c.args), opaque: a.isOpaque || a.truncated };
    },
    exec(script, o = {}) {
      // One run at a time per instance (bashkit queues too); the scope is the caller's.
      const scope = currentScope();
      const run = async () => {
        active = scope;
        stop = new AbortController();
        const signal = o.signal ? AbortSignal.any([o.signal, stop.signal]) : stop.signal;
        // bashkit has no output limit: its output is counted as it streams out, and the run
        // cancelled at the bound (output-bound.ts); a cancelled run's own result holds nothing,
        // so what streamed is kept. bashkit streams more than it prints (the lines of a loop or
        // group piped into another command) and at times less (`{ echo a; } | wc -l` streams
        // "a", not the count), so a finished run's own result is measured too.
        const keeper = new OutputKeeper(maxOutputBytes);
        const cancel = stop;
        const onOutput = (chunk: { stdout: string; stderr: string }) => {
          if (!keeper.add(chunk)) cancel.abort();
        };
        try {
          const prefix = [o.cwd ? `cd ${JSON.stringify(o.cwd)}` : "", ...Object.entries(o.env ?? {}).map(([n, v]) => `export ${n}=${JSON.stringify(v)}`)].filter(Boolean);
          const r = await k.execute(prefix.length ? `${prefix.join("; ")}\n${script}` : script, { signal, onOutput });
          if (keeper.passed) return outputPassed(keeper.kept(), maxOutputBytes);
          const ran = { stdout: r.stdout, stderr: r.stderr.replace(HALT_LINE, ""), exitCode: r.exitCode ?? r.exit_code ?? 0 };
          const whole = new OutputKeeper(maxOutputBytes);
          return whole.add(ran) ? ran : outputPassed(whole.kept(), maxOutputBytes);
        } catch (err) {
          if (keeper.passed) return outputPassed(keeper.kept(), maxOutputBytes);
          return { stdout: "", stderr: `bash: ${err instanceof Error ? err.message : String(err)}\n`, exitCode: 2 };
        } finally {
          active = undefined;
          stop = null;
        }
      };
      const p = queue.then(run, run);
      queue = p.catch(() => {});
      return p;
    },
  };
}
