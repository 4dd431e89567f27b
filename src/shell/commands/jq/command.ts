import { defineCommand, latin1FromBytes, type Command, type ResolvedCommandContext } from "../../just-bash.js";
import { JQ_OPT, planJqArgv } from "./argv.js";
import { sharedJqEngine, type JqRunner, type JqStagedFile } from "./engine.js";

/** The version our jq reports (`jq --version`); jq-web's build leaves it empty. */
export const JQ_VERSION = "jq-1.7.1";

/**
 * Definitions every run gets through `~/.jq` (jq imports that file as a library):
 * `leaf_paths` and `recurse_down` (1.6 builtins removed in 1.7), and `strftime`/
 * `strflocaltime` that print "UTC" for `%Z` (jq-web's libc leaves the zone name empty,
 * which makes strftime fail). Time is UTC in the sandbox.
 */
export const JQ_SHIM = [
  "def leaf_paths: paths(scalars);",
  "def recurse_down: recurse;",
  "def _ts_strftime(f): strftime(f);",
  "def _ts_strflocaltime(f): strflocaltime(f);",
  'def _ts_zone: if type == "string" then gsub("(?<!%)(?<p>(?:%%)*)%Z"; "\\(.p)UTC") else . end;',
  "def strftime(f): f as $f | _ts_strftime($f | _ts_zone);",
  "def strflocaltime(f): f as $f | _ts_strflocaltime($f | _ts_zone);",
].join("\n");

/** Argv bytes we pass to jq's `main` on its 64 KiB wasm stack; larger values go through files. */
const MAX_INLINE_ARG = 4096;
const MAX_ARGV_BYTES = 16 * 1024;
/** Limits on what `-L` directories may bring in. */
const MAX_LIB_FILES = 500;
const MAX_LIB_BYTES = 32 * 1024 * 1024;

/** How jq 1.7.1's `main` would read one argv: which entries name files, and what mode is left at the end. */
export interface JqArgvScan {
  /** Index in argv (after argv[0]) of the program text (or the program file with -f); -1 if none. */
  programIndex: number;
  /** `-f`/`--from-file` seen. */
  fromFile: boolean;
  /** Indexes of positional input files. */
  inputFileIndexes: number[];
  /** Indexes of `--rawfile`/`--slurpfile` file operands. */
  operandFileIndexes: number[];
  /** Library directories from `-L dir` / `-Ldir`, as written. */
  libDirs: string[];
  /** Positional args after the last `--args`/`--jsonargs` are strings/JSON, not files. */
  endsInArgsMode: boolean;
  /** `--version`/`-V` or `-h`/`--help` seen (jq prints and exits before reading input). */
  infoOnly: "version" | "help" | null;
  /** An option lacks its operands (jq stops with a usage error). */
  incomplete: boolean;
}

/**
 * `-n` given and an inline program that never mentions `input`/`inputs`: jq reads no input, so
 * stdin is left unread (the shell's stdin is one stream commands use up, docs/shell.md).
 */
function nullInputOnly(args: string[], scan: JqArgvScan): boolean {
  if (scan.fromFile || scan.programIndex < 0) return false;
  const flags = args.filter((a, i) => i !== scan.programIndex && (a === "--null-input" || /^-[A-Za-z]*n[A-Za-z]*$/.test(a)));
  return flags.length > 0 && !/\binputs?\b/.test(args[scan.programIndex] ?? "");
}

function isOptish(a: string): boolean {
  return a.length >= 2 && a[0] === "-" && (a[1] === "-" || /[A-Za-z]/.test(a[1]));
}

/**
 * Classify jq arguments the way jq 1.7.1's `main` does (src/main.c: the argv loop),
 * so the command knows which operands are files to bring from the virtual filesystem.
 * `args` excludes argv[0]. Pure; never throws.
 */
export function scanJqArgv(args: string[]): JqArgvScan {
  const scan: JqArgvScan = {
    programIndex: -1,
    fromFile: false,
    inputFileIndexes: [],
    operandFileIndexes: [],
    libDirs: [],
    endsInArgsMode: false,
    infoOnly: null,
    incomplete: false,
  };
  let argsDone = false;
  let mode: "files" | "strings" | "json" = "files";
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (argsDone || !isOptish(a)) {
      if (scan.programIndex < 0) scan.programIndex = i;
      else if (mode === "files") scan.inputFileIndexes.push(i);
      continue;
    }
    if (a === "--") {
      argsDone = true;
      continue;
    }
    if (a[1] === "L") {
      if (a.length > 2) scan.libDirs.push(a.slice(2));
      else if (i + 1 < args.length) scan.libDirs.push(args[++i]);
      else scan.incomplete = true;
      continue;
    }
    if (a.startsWith("--")) {
      const name = a.slice(2);
      if (name === "args") mode = "strings";
      else if (name === "jsonargs") mode = "json";
      else if (name === "from-file") scan.fromFile = true;
      else if (name === "indent") {
        if (i + 1 >= args.length) scan.incomplete = true;
        i += 1;
      } else if (name === "arg" || name === "argjson") {
        if (i + 2 >= args.length) scan.incomplete = true;
        i += 2;
      }
      else if (name === "rawfile" || name === "slurpfile") {
        if (i + 2 < args.length) scan.operandFileIndexes.push(i + 2);
        else scan.incomplete = true;
        i += 2;
      } else if (name === "version") scan.infoOnly ??= "version";
      else if (name === "help") scan.infoOnly ??= "help";
      continue;
    }
    // a cluster of short options, e.g. -nr
    for (const ch of a.slice(1)) {
      if (ch === "f") scan.fromFile = true;
      else if (ch === "V") scan.infoOnly ??= "version";
      else if (ch === "h") scan.infoOnly ??= "help";
    }
  }
  scan.endsInArgsMode = mode !== "files";
  return scan;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function toBytes(s: string): Uint8Array {
  return encoder.encode(s);
}

/** Names the shim defines: a run that can reach none of them goes without `~/.jq`'s shim. */
const SHIM_NAMES = /leaf_paths|recurse_down|strftime|strflocaltime/;

async function stage(
  ctx: ResolvedCommandContext,
  written: string,
  files: Map<string, JqStagedFile>,
): Promise<Uint8Array | null> {
  const abs = ctx.fs.resolvePath(ctx.cwd, written);
  if (files.has(abs)) return files.get(abs)?.data ?? null;
  // One read in the common case (a file); only a failed read asks whether it was a directory.
  try {
    const data = await ctx.fs.readFileBuffer(abs);
    files.set(abs, { path: abs, data });
    return data;
  } catch {
    try {
      if ((await ctx.fs.stat(abs)).isDirectory) files.set(abs, { path: abs, dir: true });
    } catch {}
    return null;
  }
}

async function stageTree(ctx: ResolvedCommandContext, dir: string, files: Map<string, JqStagedFile>): Promise<void> {
  const root = ctx.fs.resolvePath(ctx.cwd, dir);
  let count = 0;
  let bytes = 0;
  const walk = async (d: string, depth: number): Promise<void> => {
    if (depth > 8 || count >= MAX_LIB_FILES) return;
    let names: string[];
    try {
      names = await ctx.fs.readdir(d);
    } catch {
      return;
    }
    files.set(d, { path: d, dir: true });
    for (const n of names) {
      if (count >= MAX_LIB_FILES || bytes >= MAX_LIB_BYTES) return;
      const p = d === "/" ? `/${n}` : `${d}/${n}`;
      try {
        const st = await ctx.fs.stat(p);
        if (st.isDirectory) await walk(p, depth + 1);
        else if (/\.(jq|json)$/.test(n)) {
          const data = await ctx.fs.readFileBuffer(p);
          files.set(p, { path: p, data });
          count++;
          bytes += data.length;
        }
      } catch {}
    }
  };
  await walk(root, 0);
}

function exportedEnv(ctx: ResolvedCommandContext): string[] {
  const src = ctx.exportedEnv ?? Object.fromEntries(ctx.env);
  return Object.entries(src).map(([k, v]) => `${k}=${v}`);
}

/** The most output one jq run may produce, in bytes. */
export const JQ_MAX_OUTPUT = 16 * 1024 * 1024;

/**
 * Build the `jq` command: the real jq 1.7.1 (WebAssembly, via `engine.ts`) with its
 * files read from the session's virtual filesystem (`ctx.fs`), never the host's.
 *
 * The command line is read as jq's `main` reads it (`planJqArgv`) and the worker drives libjq
 * (worker-driver.ts): a program is compiled once per program, arguments and `~/.jq`, then run for
 * each call. What main answers by itself (help, usage errors) and `-C` run jq's own `main`.
 * stdin is staged as a file literally named `<stdin>` in the working directory and named as the
 * last input (jq labels stdin `<stdin>`, so messages and `input_filename` read the same).
 * `--version` prints `jq-1.7.1`.
 * @param options.driver "main" runs every call through jq's own `main` (the reference the
 *   conformance tests compare the driver with); default "libjq"
 * Exit codes are jq's (0, 1, 2, 3, 4, 5); 124 when the run passes the shell's time budget.
 * Source of the rules: jq 1.7.1 manual and src/main.c; docs/shell.md.
 */
export function createJqCommand(engine: () => JqRunner = sharedJqEngine, options: { driver?: "libjq" | "main" } = {}): Command {
  return defineCommand("jq", async (args, ctx) => {
    const scan = scanJqArgv(args);
    if (scan.infoOnly === "version") return { stdout: `${JQ_VERSION}\n`, stderr: "", exitCode: 0 };
    const readsNoInput = nullInputOnly(args, scan);
    const argv = [...args];
    if (scan.programIndex < 0 && scan.infoOnly === null && !scan.incomplete) {
      // jq uses "." when no program is given and stdin or stdout is not a terminal,
      // which is always the case in the sandbox.
      argv.push(".");
      scan.programIndex = argv.length - 1;
    }
    // The libjq driver runs what main's option loop accepts; -C (colours from $JQ_COLORS) and
    // everything main would answer by itself (help, usage errors) go to jq's own main.
    let plan = options.driver === "main" ? null : planJqArgv(argv);
    if (plan && plan.options & JQ_OPT.COLOR_OUTPUT) plan = null;
    const files = new Map<string, JqStagedFile>();
    let programText = scan.programIndex >= 0 && !scan.fromFile ? argv[scan.programIndex] : "";
    if (scan.programIndex >= 0 && scan.fromFile) {
      const data = await stage(ctx, argv[scan.programIndex], files);
      programText = data ? decoder.decode(data) : "";
    }
    for (const i of [...scan.inputFileIndexes, ...scan.operandFileIndexes]) {
      if (argv[i] !== "-") await stage(ctx, argv[i], files);
    }
    for (const d of scan.libDirs) await stageTree(ctx, d, files);

    // stdin: a file named `<stdin>` (what jq calls stdin) when argv can name it.
    // stdin is read only when jq would read it: the shell's stdin is used up by a command that
    // reads it (docs/shell.md), so `jq . file` or `jq -n '{}'` must leave it for later commands.
    const stdinBytes = (): Uint8Array => new Uint8Array(Buffer.from(latin1FromBytes(ctx.stdin), "latin1"));
    let realStdin: Uint8Array | null = null;
    const stdinPath = ctx.fs.resolvePath(ctx.cwd, "<stdin>");
    const readsStdin = scan.programIndex >= 0 && scan.infoOnly === null && !(readsNoInput && scan.inputFileIndexes.length === 0);
    if (plan) {
      if (readsStdin && (plan.inputs.length === 0 || plan.inputs.includes("-"))) {
        files.set(stdinPath, { path: stdinPath, data: stdinBytes() });
        plan.inputs = plan.inputs.length ? plan.inputs.map((f) => (f === "-" ? "<stdin>" : f)) : ["<stdin>"];
      }
    } else {
      spillBigArguments(argv, scan, files);
      const dashes = scan.inputFileIndexes.filter((i) => argv[i] === "-");
      if (readsStdin && scan.inputFileIndexes.length === 0) {
        if (scan.endsInArgsMode) realStdin = stdinBytes();
        else {
          files.set(stdinPath, { path: stdinPath, data: stdinBytes() });
          argv.push("<stdin>");
        }
      } else if (readsStdin && dashes.length) {
        files.set(stdinPath, { path: stdinPath, data: stdinBytes() });
        for (const i of dashes) argv[i] = "<stdin>";
      }
    }
    const useEnv = /env|ENV/.test(programText) || scan.fromFile || scan.libDirs.length > 0;
    const env = useEnv ? exportedEnv(ctx) : [];
    const libKey = await stageHomeJq(ctx, files, programText, useEnv ? (env.find((e) => e.startsWith("HOME="))?.slice(5) ?? null) : "/", useEnv);
    if (!plan && argv.reduce((n, a) => n + toBytes(a).length + 1, 0) > MAX_ARGV_BYTES) {
      return { stdout: "", stderr: "jq: error: argument list too long\n", exitCode: 2 };
    }

    const remaining = ctx.executionScope?.remainingTimeMs?.();
    const timeoutMs = Math.max(
      1,
      Math.min(Number.isFinite(remaining) && remaining !== undefined ? remaining : Infinity, ctx.limits.maxExecutionTimeMs || 60_000),
    );
    const res = await engine().run({
      argv: ["jq", ...argv],
      cwd: ctx.cwd,
      files: [...files.values()],
      stdin: realStdin,
      env,
      useEnv,
      // jq's own output cap (16 MiB, or less when the shell's limit is lower): far past what an
      // agent reads, and small enough that a runaway program cannot exhaust the host's memory.
      maxOutput: Math.min(ctx.limits.maxOutputSize || JQ_MAX_OUTPUT, JQ_MAX_OUTPUT),
      timeoutMs,
      signal: ctx.signal,
      plan: plan ?? undefined,
      libKey,
    });
    return { stdout: decoder.decode(res.stdout), stderr: decoder.decode(res.stderr), exitCode: res.exitCode };
  });
}

/**
 * `~/.jq`, which jq imports as a library: ours restores two 1.6 builtins that 1.7 removed and
 * makes strftime's %Z print "UTC" (the wasm libc leaves it empty); a session's own `~/.jq` follows.
 * @returns the text staged there ("" when none), which keys the driver's compiled programs
 */
async function stageHomeJq(ctx: ResolvedCommandContext, files: Map<string, JqStagedFile>, programText: string, home: string | null, useEnv: boolean): Promise<string> {
  if (!home) return "";
  const rc = ctx.fs.resolvePath("/", `${home}/.jq`);
  const own = await stage(ctx, rc, files);
  const entry = files.get(rc);
  if (entry?.dir) return "";
  const mine = own ? decoder.decode(own) : "";
  // The shim costs every compile a parse; a plain program that names none of its
  // definitions (and no ~/.jq of the session's) runs without it, with the same result.
  if (useEnv || mine || SHIM_NAMES.test(programText)) {
    const text = `${JQ_SHIM}\n${mine}`;
    files.set(rc, { path: rc, data: toBytes(text) });
    return text;
  }
  files.delete(rc);
  return "";
}

/**
 * For jq's own `main`, whose argv sits on its 64 KiB wasm stack: `--arg` values and programs
 * over 4 KiB move into staged files (`--rawfile`, `-f`), `--argjson` values into `--slurpfile`
 * with `$v[0] as $v |` put before the program. Edits `argv`, `scan` and `files` in place.
 */
function spillBigArguments(argv: string[], scan: JqArgvScan, files: Map<string, JqStagedFile>): void {
  let serial = 0;
  const spill = (data: Uint8Array): string => {
    const p = `/dev/shm/tmp/jq-arg-${serial++}`;
    files.set(p, { path: p, data });
    return p;
  };
  const prefixes: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if ((a === "--arg" || a === "--argjson") && i + 2 < argv.length && argv[i + 2].length > MAX_INLINE_ARG) {
      const value = toBytes(argv[i + 2]);
      argv[i] = a === "--arg" ? "--rawfile" : "--slurpfile";
      argv[i + 2] = spill(value);
      if (a === "--argjson" && /^[A-Za-z_][A-Za-z0-9_]*$/.test(argv[i + 1])) {
        prefixes.push(`$${argv[i + 1]}[0] as $${argv[i + 1]} | `);
      }
      i += 2;
    } else if (a === "--arg" || a === "--argjson" || a === "--rawfile" || a === "--slurpfile") {
      i += 2;
    } else if (a === "--indent") {
      i += 1;
    }
  }
  if (scan.programIndex >= 0 && !scan.fromFile) {
    const prog = prefixes.join("") + (prefixes.length ? `(${argv[scan.programIndex]})` : argv[scan.programIndex]);
    if (prog.length > MAX_INLINE_ARG) {
      argv[scan.programIndex] = spill(toBytes(prog));
      argv.unshift("-f");
      scan.programIndex += 1;
      scan.inputFileIndexes = scan.inputFileIndexes.map((i) => i + 1);
    } else {
      argv[scan.programIndex] = prog;
    }
  }
}
