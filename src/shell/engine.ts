/**
 * The shell engine adapter: just-bash behind one small interface. Builds the session's
 * filesystem (in memory, or a real folder mounted read-write as the working directory), registers
 * the `tools` command and the compatibility commands, runs scripts with a time limit and an
 * abort signal, and turns everything the engine throws into an exit code and stderr.
 *
 * See docs/architecture.md → One shell call; README → The shell.
 */
import { DEFAULT_MAX_SESSION_FILE_BYTES } from "../config/index.js";
import { assertEngine, Bash, getCommandNames, type Command, type IFileSystem } from "./just-bash.js";
import { HALT_LINE, installHaltAtYield } from "./halt.js";
import { afterJustBash, DEFAULT_MAX_OUTPUT_BYTES } from "./output-bound.js";
import { createSleepCommand } from "./commands/sleep/sleep.js";
import { createToolsCommand } from "./commands/tools/command.js";
import { createSessionFs, WORKDIR } from "./session-fs.js";

export { WORKDIR };

/** Options of one session's engine. */
export interface EngineOptions {
  /** A real folder mounted read-write at WORKDIR; omitted = everything in memory. */
  workspaceDir?: string;
  /** Files to create at start (path → content), relative paths under WORKDIR. */
  files?: Record<string, string>;
  /** Extra commands (compatibility fixes, …) registered beside `tools`. */
  commands?: Command[];
  /** Upper bound of one exec in milliseconds (the engine's own deadline; the runtime also aborts). */
  maxExecutionTimeMs?: number;
  /**
   * What one exec may print, stdout and stderr together, in bytes (config `maxOutputBytes`; default
   * its default): past it the script stops, exit code 126, output up to the bound kept (output-bound.ts).
   */
  maxOutputBytes?: number;
  /**
   * What the session's in-memory files may hold together, in bytes (config `maxSessionFileBytes`;
   * default its default): a write past it fails as on a full disk (session-fs.ts).
   */
  maxFileBytes?: number;
  /** Environment variables the scripts see. */
  env?: Record<string, string>;
  /**
   * just-bash's defense-in-depth layer (patches JS globals while a script runs), a second line
   * behind the interpreter's own sandbox. Default false: toolshell enables no in-shell JavaScript
   * or Python, and the layer costs a measured share of every nested call (see README).
   */
  defenseInDepth?: boolean;
}

/** The result of one script run. */
export interface EngineResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** One session's shell: a filesystem that persists and a bash that runs scripts over it. */
export interface Engine {
  readonly fs: IFileSystem;
  readonly cwd: string;
  /** Runs a script. Never throws: failures become exit code and stderr. */
  exec(script: string, options?: { signal?: AbortSignal; stdin?: string; env?: Record<string, string>; cwd?: string }): Promise<EngineResult>;
}

/**
 * just-bash's limit errors end `, increase executionLimits.NAME`, a setting of its own API that
 * toolshell's users do not have: they are told what they can do instead (README "Limits").
 */
export function limitAdvice(stderr: string): string {
  if (!stderr.includes("increase executionLimits.")) return stderr;
  return stderr.replace(/, increase executionLimits\.(\w+)/g, (_m, name: string) =>
    name === "maxOutputSize" ? "; raise maxOutputBytes in the config" : "; this is a fixed limit of toolshell's shell (docs/security.md \"What each limit defends\")",
  );
}

/**
 * Marks one of toolshell's own commands to run without just-bash's per-command guard
 * (patches/README.md, H23): it honours the exec's signal and its own limits.
 */
export function markDirect(command: Command): Command {
  return Object.assign(command, { tsDirect: true });
}

/**
 * Creates a session's engine: the session's filesystem, and a just-bash interpreter made for each
 * run and let go after it, so a session that is not running holds its files and nothing else
 * (README "Performance": memory per idle session).
 * @throws Error when `workspaceDir` does not exist or is not a folder.
 */
export function createEngine(options: EngineOptions = {}): Engine {
  assertEngine();
  installHaltAtYield();
  const names = new Set([...getCommandNames(), ...(options.commands ?? []).map((c) => c.name), "tools"]);
  const { fs, base } = createSessionFs({ commandNames: names, workspaceDir: options.workspaceDir, maxFileBytes: options.maxFileBytes ?? DEFAULT_MAX_SESSION_FILE_BYTES });
  // Initial files, written once (before the first run when they sit in the mounted workspace).
  let pending: Promise<unknown> | null = null;
  const later: Array<[string, string]> = [];
  for (const [p, c] of Object.entries(options.files ?? {})) {
    const abs = p.startsWith("/") ? p : `${WORKDIR}/${p}`;
    if (options.workspaceDir && (abs === WORKDIR || abs.startsWith(`${WORKDIR}/`))) later.push([abs, c]);
    else {
      base.mkdirSync(abs.slice(0, abs.lastIndexOf("/")) || "/", { recursive: true });
      base.writeFileSync(abs, c);
    }
  }
  if (later.length) {
    pending = (async () => {
      for (const [abs, c] of later) {
        await fs.mkdir(abs.slice(0, abs.lastIndexOf("/")) || "/", { recursive: true });
        await fs.writeFile(abs, c);
      }
    })();
  }
  // toolshell's own commands honour the exec's signal and their own limits, so they run without
  // just-bash's per-command guard (patches/README.md, H23), as just-bash's own commands do; the
  // compatibility commands carry the same mark (defaults.ts), an embedder's own commands do not.
  const commands = [markDirect(createSleepCommand()), ...(options.commands ?? []), markDirect(createToolsCommand())];
  const env = { HOME: WORKDIR, PWD: WORKDIR, ...(options.env ?? {}) };
  const maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  // just-bash counts what the script prints (and what `$(...)` captures) against maxOutputSize,
  // and caps each command's own output at it, before the bytes are kept.
  const limits = { maxExecutionTimeMs: options.maxExecutionTimeMs ?? 600_000, maxOutputSize: maxOutputBytes };
  return {
    fs,
    cwd: WORKDIR,
    async exec(script, o = {}) {
      try {
        if (pending) await pending;
        // A fresh interpreter per run (variables never persist across runs; the files do).
        const bash = new Bash({ fs, cwd: WORKDIR, env, customCommands: commands, executionLimits: limits, defenseInDepth: options.defenseInDepth ?? false });
        const r = await bash.exec(script, { signal: o.signal, stdin: o.stdin, env: o.env, cwd: o.cwd, rawScript: true });
        return afterJustBash({ stdout: r.stdout, stderr: limitAdvice(r.stderr.replace(HALT_LINE, "")), exitCode: r.exitCode }, maxOutputBytes);
      } catch (err) {
        return { stdout: "", stderr: `bash: ${err instanceof Error ? err.message : String(err)}\n`, exitCode: 2 };
      }
    },
  };
}
