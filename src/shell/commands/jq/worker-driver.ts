/**
 * The jq worker's driver of libjq: what jq 1.7.1's `main` does after reading its command line
 * (src/main.c), done through libjq's own functions, so a program is compiled once
 * (`jq_compile_args`, which binds jq's builtin library) and then run for each call with
 * `jq_start`/`jq_next` (inside main.c's own `process`, which prints the results).
 *
 * Serialised into the worker's source like worker-helpers.ts: self-contained, everything it
 * uses comes in its arguments. `ex` holds libjq's functions exported under `ts_<name>` by
 * `withExports` (worker-helpers.ts); `cb` the function-table slots of main.c's `debug_cb`,
 * `stderr_cb` and util.c's `jq_util_input_next_input_cb`.
 *
 * C's calling convention for jq's `jv` (a 16-byte struct): passed by pointer to a copy the
 * callee owns, returned through a pointer given as the first argument. `jv` values live in a
 * ring of scratch slots and are copied into a fresh slot before each call that takes one.
 */
import type { JqPlan } from "./argv.js";

/** One compiled program kept for later runs on the same instance. */
export interface JqCompiled {
  jq: number;
}

/** What the driver needs of its instance. */
export interface JqDriverInstance {
  ex: any;
  FS: any;
  /** Function-table indexes of `debug_cb`, `stderr_cb`, `jq_util_input_next_input_cb`. */
  cb: { debug: number; stderr: number; input: number };
  /** Compiled programs by key, most recently used last. */
  cache: Map<string, JqCompiled>;
  /** Scratch memory from `malloc`, {@link JQ_DRIVER_SCRATCH} bytes: the jv ring, then `dumpopts`, two pointers and two held jv values. */
  scratch: number;
  /** `jq --build-configuration` and `jq --version` of this build (the values `main` binds). */
  info: { config: string; versionDir: string };
}

/** What one planned run brings besides its plan. */
export interface JqDriverRequest {
  plan: JqPlan;
  cwd: string;
  /** Extra text that changes what a compile reads (`~/.jq`), part of the cache key. */
  libKey: string;
  /** Staged file contents by absolute path (the cache key includes `--rawfile`/`--slurpfile` data). */
  staged: Map<string, Uint8Array>;
}

/** The functions the driver calls, by their C names (exported as `ts_<name>` by `withExports`). */
export function jqDriverExports(): string[] {
  return [
    "process", "skip_shebang", "jq_init", "jq_teardown", "jq_set_attr", "jq_compile_args", "jq_halted",
    "jq_set_input_cb", "jq_set_debug_cb", "jq_set_stderr_cb", "jq_realpath", "jq_util_input_init",
    "jq_util_input_set_parser", "jq_util_input_add_input", "jq_util_input_errors", "jq_util_input_next_input",
    "jq_util_input_free", "jv_parser_new", "jv_string_sized", "jv_string_value", "jv_parse_sized", "jv_load_file",
    "jv_object", "jv_object_set", "jv_object_has", "jv_array", "jv_array_append", "jv_copy", "jv_free", "jv_null",
    "jv_get_kind", "jv_invalid_get_msg", "jv_invalid_has_msg", "emscripten_builtin_malloc", "emscripten_builtin_free", "fflush",
  ];
}

/**
 * What main binds as `$JQ_BUILD_CONFIGURATION` and the `VERSION_DIR` attribute, from this
 * build's own `--build-configuration` and `--version` answers.
 * @param ask runs main with one flag and returns its stdout
 */
export function jqBuildInfo(ask: (flag: string) => string): { config: string; versionDir: string } {
  const config = ask("--build-configuration").replace(/\n$/, "");
  const version = ask("--version").replace(/\n$/, "").replace(/^jq-/, "");
  return { config, versionDir: version.includes("-") ? `${version.slice(0, version.indexOf("-"))}-master` : version };
}

/** Bytes of scratch memory an instance gives the driver: 256 jv slots and 48 bytes after them. */
export const JQ_DRIVER_SCRATCH = 16 * 256 + 48;

/**
 * Runs one planned jq command on an instance. Writes to the instance's stdout/stderr devices
 * through C's stdio (and `say` for `main`'s own messages).
 * @returns `{ exitCode, halted }`: jq's exit status as `main` computes it; halted when the program
 *   called `halt`/`halt_error` (its compiled state is then dropped: libjq frees the halt's values
 *   only once per reset)
 * @throws whatever the instance throws (exit, trap); the caller ends that instance
 */
export function jqLibMain(inst: JqDriverInstance, req: JqDriverRequest, say: (text: string) => void, posixPath: any): number {
  const ex = inst.ex;
  const SLOTS = 256;
  const CACHE = 32;
  const enc = new TextEncoder();
  const dec = new TextDecoder();
  const OPT = { SLURP: 1, RAW_INPUT: 2, PROVIDE_NULL: 4, RAW_OUTPUT: 8, ASCII_OUTPUT: 32, COLOR_OUTPUT: 64, NO_COLOR_OUTPUT: 128, SORTED_OUTPUT: 256, FROM_FILE: 512, EXIT_STATUS: 4096, SEQ: 16384 };
  const PRINT = { ASCII: 2, COLOR: 4, SORTED: 8 };
  const plan = req.plan;
  let ring = 0;
  const slot = (): number => inst.scratch + 16 * (ring++ % SLOTS);
  const u8 = () => new Uint8Array(ex.memory.buffer);
  /** A fresh copy of the jv at `p`, for a call that takes a jv. */
  const pass = (p: number): number => {
    const q = slot();
    u8().copyWithin(q, p, p + 16);
    return q;
  };
  const ret1 = (f: (out: number) => void): number => {
    const out = slot();
    f(out);
    return out;
  };
  const withCString = <T>(s: string | Uint8Array, f: (ptr: number, len: number) => T): T => {
    const b = typeof s === "string" ? enc.encode(s) : s;
    const p = ex.ts_emscripten_builtin_malloc(b.length + 1);
    try {
      const m = u8();
      m.set(b, p);
      m[p + b.length] = 0;
      return f(p, b.length);
    } finally {
      ex.ts_emscripten_builtin_free(p);
    }
  };
  const str = (s: string): number => withCString(s, (p, n) => ret1((o) => ex.ts_jv_string_sized(o, p, n)));
  const parse = (s: string): number => withCString(s, (p, n) => ret1((o) => ex.ts_jv_parse_sized(o, p, n)));
  const kind = (p: number): number => ex.ts_jv_get_kind(pass(p));
  const free = (p: number) => ex.ts_jv_free(pass(p));
  const cstring = (p: number): string => {
    const m = u8();
    let end = p;
    while (m[end]) end++;
    return dec.decode(m.subarray(p, end));
  };
  /** The text of a jv string (not consumed). */
  const text = (p: number): string => cstring(ex.ts_jv_string_value(pass(p)));
  /** The message of an invalid jv, consumed; "" when it has none. */
  const message = (p: number): string => {
    const m = ret1((o) => ex.ts_jv_invalid_get_msg(o, pass(p)));
    const t = kind(m) === 5 ? text(m) : "";
    free(m);
    return t;
  };
  const die = (line: string): number => {
    say(`${line}\nUse jq --help for help with command-line options,\nor see the jq manpage, or online docs  at https://jqlang.github.io/jq\n`);
    return 2;
  };

  // Named and positional arguments, in argv order (main's loop), kept in two slots past the ring.
  const base = inst.scratch + 16 * SLOTS;
  const named = base + 16;
  const positional = base + 32;
  const hold = (at: number, p: number) => u8().copyWithin(at, p, p + 16);
  hold(named, ret1((o) => ex.ts_jv_object(o)));
  hold(positional, ret1((o) => ex.ts_jv_array(o)));
  const drop = () => {
    free(named);
    free(positional);
  };
  for (const op of plan.ops) {
    if ("positional" in op) {
      let v: number;
      if (op.json) {
        v = parse(op.positional);
        if (kind(v) === 0) {
          free(v);
          drop();
          return die("jq: invalid JSON text passed to --jsonargs");
        }
      } else v = str(op.positional);
      hold(positional, ret1((o) => ex.ts_jv_array_append(o, pass(positional), pass(v))));
      continue;
    }
    const has = ex.ts_jv_object_has(ret1((o) => ex.ts_jv_copy(o, pass(named))), str(op.named));
    if (has) continue;
    let v: number;
    if (op.kind === "arg") v = str(op.value);
    else if (op.kind === "argjson") {
      v = parse(op.value);
      if (kind(v) === 0) {
        free(v);
        drop();
        return die("jq: invalid JSON text passed to --argjson");
      }
    } else {
      v = withCString(op.value, (p) => ret1((o) => ex.ts_jv_load_file(o, p, op.kind === "rawfile" ? 1 : 0)));
      if (kind(v) === 0) {
        say(`jq: Bad JSON in --${op.kind} ${op.named} ${op.value}: ${message(v)}\n`);
        drop();
        return 2;
      }
    }
    hold(named, ret1((o) => ex.ts_jv_object_set(o, pass(named), str(op.named), pass(v))));
  }

  let dumpopts = plan.dumpopts;
  if (plan.options & OPT.SORTED_OUTPUT) dumpopts |= PRINT.SORTED;
  if (plan.options & OPT.ASCII_OUTPUT) dumpopts |= PRINT.ASCII;
  if (plan.options & OPT.COLOR_OUTPUT) dumpopts |= PRINT.COLOR;
  if (plan.options & OPT.NO_COLOR_OUTPUT) dumpopts &= ~PRINT.COLOR;

  // The program: its text (-f reads the file, as main does, before compiling).
  let programText = plan.program;
  const fromFile = (plan.options & OPT.FROM_FILE) !== 0;
  let programOrigin = ".";
  if (fromFile) {
    const data = withCString(plan.program, (p) => ret1((o) => ex.ts_jv_load_file(o, p, 1)));
    if (kind(data) === 0) {
      say(`jq: ${message(data)}\n`);
      drop();
      return 2;
    }
    programText = text(data);
    free(data);
    programOrigin = posixPath.dirname(plan.program);
  }

  // The compiled program: from the cache when the same program, arguments, files and
  // search list were compiled before on this instance; modules are always compiled afresh.
  const cacheable = plan.libDirs === null && !/\b(import|include)\b/.test(programText);
  let key = "";
  if (cacheable) {
    const files = plan.ops.map((op) =>
      "named" in op && (op.kind === "rawfile" || op.kind === "slurpfile")
        ? Buffer.from(req.staged.get(posixPath.resolve(req.cwd, op.value)) ?? new Uint8Array(0)).toString("latin1")
        : "",
    );
    key = JSON.stringify([programText, fromFile, programOrigin, plan.ops, files, req.cwd, req.libKey]);
  }
  let compiled = cacheable ? inst.cache.get(key) : undefined;
  if (compiled) {
    inst.cache.delete(key);
  } else {
    const jq = ex.ts_jq_init();
    const attr = (name: string, v: number) => ex.ts_jq_set_attr(jq, str(name), pass(v));
    let lib = ret1((o) => ex.ts_jv_array(o));
    for (const d of plan.libDirs ?? ["~/.jq", "$ORIGIN/../lib/jq", "$ORIGIN/../lib"]) {
      const v = plan.libDirs ? ret1((o) => ex.ts_jq_realpath(o, str(d))) : str(d);
      lib = ret1((o) => ex.ts_jv_array_append(o, pass(lib), pass(v)));
    }
    attr("JQ_LIBRARY_PATH", lib);
    attr("JQ_ORIGIN", str("."));
    attr("VERSION_DIR", str(inst.info.versionDir));
    attr("PROGRAM_ORIGIN", ret1((o) => ex.ts_jq_realpath(o, str(programOrigin))));
    // $ARGS = {positional, named}; the named arguments with ARGS and JQ_BUILD_CONFIGURATION.
    let args = ret1((o) => ex.ts_jv_object(o));
    args = ret1((o) => ex.ts_jv_object_set(o, pass(args), str("positional"), ret1((c) => ex.ts_jv_copy(c, pass(positional)))));
    args = ret1((o) => ex.ts_jv_object_set(o, pass(args), str("named"), ret1((c) => ex.ts_jv_copy(c, pass(named)))));
    let bound = ret1((o) => ex.ts_jv_copy(o, pass(named)));
    bound = ret1((o) => ex.ts_jv_object_set(o, pass(bound), str("ARGS"), pass(args)));
    if (!ex.ts_jv_object_has(ret1((o) => ex.ts_jv_copy(o, pass(bound))), str("JQ_BUILD_CONFIGURATION"))) {
      bound = ret1((o) => ex.ts_jv_object_set(o, pass(bound), str("JQ_BUILD_CONFIGURATION"), str(inst.info.config)));
    }
    const ok = withCString(programText, (p) => ex.ts_jq_compile_args(jq, fromFile ? ex.ts_skip_shebang(p) : p, pass(bound)));
    if (!ok) {
      teardown(jq);
      drop();
      return 3;
    }
    compiled = { jq };
  }
  drop();
  const jq = compiled.jq;

  // Inputs, callbacks and the run (main after the compile).
  const dumpPtr = base;
  new DataView(ex.memory.buffer).setInt32(dumpPtr, dumpopts, true);
  const statePtr = base + 4;
  const input = ex.ts_jq_util_input_init(0, 0);
  let parserFlags = plan.parserFlags;
  if (plan.options & OPT.SEQ) parserFlags |= 1;
  const parser = plan.options & OPT.RAW_INPUT ? 0 : ex.ts_jv_parser_new(parserFlags);
  ex.ts_jq_util_input_set_parser(input, parser, plan.options & OPT.SLURP ? 1 : 0);
  ex.ts_jq_set_input_cb(jq, inst.cb.input, input);
  ex.ts_jq_set_debug_cb(jq, inst.cb.debug, dumpPtr);
  ex.ts_jq_set_stderr_cb(jq, inst.cb.stderr, dumpPtr);
  const inputs = plan.inputs.length ? plan.inputs : ["-"];
  for (const f of inputs) withCString(f, (p) => ex.ts_jq_util_input_add_input(input, p));

  let ret = -4;
  let last = -1;
  let halted = false;
  try {
    if (plan.options & OPT.PROVIDE_NULL) {
      ret = ex.ts_process(jq, ret1((o) => ex.ts_jv_null(o)), plan.jqFlags, dumpopts, plan.options);
      halted = ex.ts_jq_halted(jq) !== 0;
    } else {
      for (;;) {
        if (ex.ts_jq_util_input_errors(input) !== 0) break;
        const value = ret1((o) => ex.ts_jq_util_input_next_input(o, input));
        if (kind(value) !== 0) {
          ret = ex.ts_process(jq, pass(value), plan.jqFlags, dumpopts, plan.options);
          if (ret <= 0 && ret !== -4) last = ret !== -1 ? 1 : 0;
          if (ex.ts_jq_halted(jq)) {
            halted = true;
            break;
          }
          continue;
        }
        if (!ex.ts_jv_invalid_has_msg(ret1((o) => ex.ts_jv_copy(o, pass(value))))) break;
        const msg = message(value);
        if (!(plan.options & OPT.SEQ)) {
          ret = 5;
          say(`jq: parse error: ${msg}\n`);
          break;
        }
        say(`jq: ignoring parse error: ${msg}\n`);
      }
    }
    if (ex.ts_jq_util_input_errors(input) !== 0) ret = 2;
  } finally {
    ex.ts_fflush(0);
    new DataView(ex.memory.buffer).setUint32(statePtr, input, true);
    ex.ts_jq_util_input_free(statePtr);
    ex.ts_jq_set_input_cb(jq, 0, 0);
    if (cacheable && !halted) {
      inst.cache.set(key, compiled);
      while (inst.cache.size > CACHE) {
        const [oldest, c] = inst.cache.entries().next().value as [string, JqCompiled];
        inst.cache.delete(oldest);
        teardown(c.jq);
      }
    } else {
      teardown(jq);
    }
  }
  if (plan.options & OPT.EXIT_STATUS) {
    if (ret !== -4) return Math.abs(ret);
    return last === -1 ? 4 : last === 0 ? 1 : 0;
  }
  return ret > 0 ? ret : 0;

  function teardown(state: number): void {
    const p = inst.scratch + 16 * SLOTS + 8;
    new DataView(ex.memory.buffer).setUint32(p, state, true);
    ex.ts_jq_teardown(p);
  }
}
