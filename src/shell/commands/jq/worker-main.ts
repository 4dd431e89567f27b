import type { JqPlan } from "./argv.js";
import type { JqDriverInstance, JqDriverRequest } from "./worker-driver.js";
import type { Sink } from "./worker-helpers.js";

/**
 * The body of the jq worker thread.
 *
 * `jqWorkerMain` is serialised with `Function.prototype.toString()` and run as the
 * source of a `worker_threads` Worker (`eval: true`), so it must stay self-contained:
 * no imports, no references to anything outside its own body (it uses `require`, which
 * an eval worker has) except the helpers of worker-helpers.ts, which the engine puts in the
 * same source before it.
 *
 * What it does: loads jq-web's Emscripten glue (jq 1.7.1 compiled to WebAssembly)
 * without letting the glue start an instance of its own, instantiates the wasm itself (libjq's
 * functions exported, worker-driver.ts drives them) with a few imports replaced, and answers
 * run requests one at a time:
 * - `exit`/`proc_exit` throw a private exception, so jq's exit status comes back
 *   without touching `process.exitCode`;
 * - `environ_get`/`environ_sizes_get` serve the session's exported variables (UTF-8),
 *   so `env`/`$ENV` see the shell's environment and never the host's;
 * - `_tzset_js`/`_localtime_js` are UTC, like just-bash's `date` (no host time zone);
 * - stdout/stderr are char devices that copy each write into one growing buffer per stream
 *   (so memory follows the bytes, however many small writes) and stop the run once the
 *   output cap is passed.
 * Files named on the command line are staged into the instance's in-memory FS at the
 * same absolute paths as in the session's virtual filesystem, and removed after the run.
 * An instance that hit an abnormal end (trap, output cap, stdin left half-read), grew its heap
 * past the limit, or served too many calls is dropped (its compiled programs with it).
 */
// Defined beside this function in the worker's source (worker-helpers.ts; engine.ts puts them there).
declare function withMemoryMaximum(bin: Uint8Array, maxBytes: number): Uint8Array<ArrayBuffer>;
declare function withExports(bin: Uint8Array, names: string[]): Uint8Array<ArrayBuffer>;
declare function callJqMain(ex: any, argv: string[], exitCode: (e: unknown) => number | null): number;
declare function stageJqFiles(FS: any, cwd: string, files: Array<{ path: string; data?: Uint8Array; dir?: boolean }>): { files: string[]; dirs: string[] };
declare function jqDriverExports(): string[];
declare function jqBuildInfo(ask: (flag: string) => string): { config: string; versionDir: string };
declare function jqLibMain(inst: JqDriverInstance, req: JqDriverRequest, say: (text: string) => void, posixPath: unknown): number;
declare function append(sink: Sink, data: Uint8Array): void;
declare function reset(sink: Sink): void;

export function jqWorkerMain(): void {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const wt = require("node:worker_threads");
  const nodeFs = require("node:fs");
  const vm = require("node:vm");
  const nodePath = require("node:path");
  /* eslint-enable @typescript-eslint/no-require-imports */
  const parentPort = wt.parentPort;
  const data = wt.workerData as {
    jsPath: string;
    wasmPath: string;
    maxHeapBytes: number;
    maxMemoryBytes: number;
    maxCallsPerInstance: number;
  };

  // Load the Emscripten factory: run jq.js as a CommonJS body whose `module.exports`
  // setter keeps the first value (the factory) and stops the file right there, before
  // it creates the default instance of its own.
  // jq-web keeps Emscripten's FS inside its closure; one added line, next to where the glue
  // publishes `callMain`, exposes it on the module object (what jq-web's own `raw()` reads).
  const EXPOSE_AT = "Module['callMain'] = callMain;";
  const text: string = nodeFs.readFileSync(data.jsPath, "utf8");
  if (text.split(EXPOSE_AT).length !== 2) throw new Error("jq-web: unexpected jq.js (cannot expose its FS)");
  const src = text.replace(EXPOSE_AT, `${EXPOSE_AT} Module['FS'] = FS;`);
  const STOP = { stop: true };
  let factory: any = null;
  const fakeModule: any = {};
  Object.defineProperty(fakeModule, "exports", {
    get() {
      return {};
    },
    set(v: unknown) {
      factory = v;
      throw STOP;
    },
  });
  const body = vm.compileFunction(src, ["exports", "require", "module", "__filename", "__dirname"], {
    filename: data.jsPath,
  });
  try {
    body.call({}, {}, require, fakeModule, data.jsPath, nodePath.dirname(data.jsPath));
  } catch (e) {
    if (e !== STOP) throw e;
  }
  if (typeof factory !== "function") throw new Error("jq-web: could not load the jq factory");
  // libjq's functions, main.c's `process` and its callbacks, exported for the driver (worker-driver.ts).
  const CALLBACKS = ["debug_cb", "stderr_cb", "jq_util_input_next_input_cb"];
  const LIBJQ = [...CALLBACKS, ...jqDriverExports()];
  const wasmModule = new WebAssembly.Module(
    withMemoryMaximum(withExports(nodeFs.readFileSync(data.wasmPath), LIBJQ), data.maxMemoryBytes),
  );

  const enc = new TextEncoder();

  class JqExit {
    constructor(public code: number) {}
  }

  interface Inst extends JqDriverInstance {
    FS: any;
    ex: any;
    envKey: string;
    calls: number;
    broken: boolean;
    out: Sink;
    err: Sink;
    maxOutput: number;
    /** Set when output passed `maxOutput` (later writes are dropped); bytes written this run. */
    overflow: boolean;
    accounted: number;
    /** Set when jq asked for more memory than `maxMemoryBytes` allows. */
    outOfMemory: boolean;
  }

  async function createInstance(envStrings: string[], envKey: string): Promise<Inst> {
    const envBytes = envStrings.map((s) => enc.encode(s));
    let ex: any = null;
    const inst: Inst = {
      FS: null,
      ex: null,
      envKey,
      calls: 0,
      broken: false,
      out: { buf: new Uint8Array(64 * 1024), bytes: 0 },
      err: { buf: new Uint8Array(64 * 1024), bytes: 0 },
      maxOutput: Infinity,
      overflow: false,
      accounted: 0,
      outOfMemory: false,
      cb: { debug: 0, stderr: 0, input: 0 },
      cache: new Map(),
      scratch: 0,
      info: { config: "", versionDir: "" },
    };
    const mem = () => ex.memory.buffer as ArrayBuffer;
    const writeCString = (ptr: number, s: string) => {
      const b = enc.encode(s);
      const u8 = new Uint8Array(mem());
      u8.set(b, ptr);
      u8[ptr + b.length] = 0;
    };
    const M = await factory({
      noInitialRun: true,
      preRun: [],
      print: () => {},
      printErr: () => {},
      instantiateWasm(imports: any, receive: (i: WebAssembly.Instance, m: WebAssembly.Module) => void) {
        const env = imports.env;
        const wasi = imports.wasi_snapshot_preview1;
        const gmtime = env._gmtime_js;
        const resize = env.emscripten_resize_heap;
        // malloc grows the heap through this import; past the cap it fails, jq prints
        // "cannot allocate memory" and aborts, and the run ends with the limit error below.
        env.emscripten_resize_heap = (requested: number) => {
          const ok = (requested >>> 0) <= data.maxMemoryBytes && resize(requested);
          if (!ok) inst.outOfMemory = true;
          return ok ? 1 : 0;
        };
        wasi.environ_sizes_get = (pCount: number, pSize: number) => {
          const v = new DataView(mem());
          v.setUint32(pCount, envBytes.length, true);
          v.setUint32(pSize, envBytes.reduce((n, b) => n + b.length + 1, 0), true);
          return 0;
        };
        wasi.environ_get = (pEnv: number, pBuf: number) => {
          const v = new DataView(mem());
          const u8 = new Uint8Array(mem());
          let at = pBuf;
          envBytes.forEach((b, i) => {
            v.setUint32(pEnv + i * 4, at, true);
            u8.set(b, at);
            u8[at + b.length] = 0;
            at += b.length + 1;
          });
          return 0;
        };
        const exit = (code: number) => {
          throw new JqExit(code);
        };
        env.exit = exit;
        wasi.proc_exit = exit;
        env._tzset_js = (tz: number, daylight: number, stdName: number, dstName: number) => {
          const v = new DataView(mem());
          v.setUint32(tz, 0, true);
          v.setInt32(daylight, 0, true);
          writeCString(stdName, "UTC");
          writeCString(dstName, "UTC");
        };
        env._localtime_js = (time: bigint, tm: number) => {
          gmtime(time, tm);
          const v = new DataView(mem());
          v.setInt32(tm + 32, 0, true); // tm_isdst
          v.setInt32(tm + 36, 0, true); // tm_gmtoff
        };
        const instance = new WebAssembly.Instance(wasmModule, imports);
        ex = instance.exports;
        receive(instance, wasmModule);
        return {};
      },
    });
    if (!M.FS) throw new Error("jq-web: its FS is not exposed");
    inst.FS = M.FS;
    inst.ex = ex;
    // The table slots main.c's callbacks already have (it takes their addresses).
    const table = ex.__indirect_function_table as WebAssembly.Table;
    const slots = CALLBACKS.map((name) => {
      for (let i = 0; i < table.length; i++) if (table.get(i) === ex[`ts_${name}`]) return i;
      throw new Error(`jq-web: ${name} is not in the function table`);
    });
    inst.cb = { debug: slots[0], stderr: slots[1], input: slots[2] };
    inst.scratch = ex.ts_emscripten_builtin_malloc(16 * 256 + 48);
    const FS = M.FS;
    let major = 90;
    for (const [name, sink] of [
      ["jqout", inst.out],
      ["jqerr", inst.err],
    ] as Array<[string, Sink]>) {
      const dev = FS.makedev(major++, 0);
      FS.registerDevice(dev, {
        open() {},
        close() {},
        read() {
          return 0;
        },
        write(_stream: unknown, buffer: Uint8Array, offset: number, length: number) {
          if (length <= 0) return 0;
          // Emscripten swallows exceptions thrown here, so an overflow is a flag: the write that
          // would pass the cap and every later one are dropped, and the run ends as a limit error.
          inst.accounted += length;
          if (inst.overflow || inst.accounted > inst.maxOutput) {
            inst.overflow = true;
            return length;
          }
          append(sink, buffer.subarray(offset, offset + length));
          return length;
        },
      });
      FS.mkdev("/dev/" + name, dev);
    }
    return inst;
  }

  interface StagedFile {
    path: string;
    data?: Uint8Array;
    dir?: boolean;
  }
  interface RunRequest {
    id: number;
    argv: string[];
    cwd: string;
    files: StagedFile[];
    stdin: Uint8Array | null;
    env: string[];
    useEnv: boolean;
    maxOutput: number;
    /** The command line planned for the libjq driver; absent: jq's own `main` runs argv. */
    plan?: JqPlan;
    /** `~/.jq` text the compile may read (part of the driver's cache key). */
    libKey?: string;
  }

  const pool: Inst[] = [];
  const neutralEnv = ["HOME=/", "PATH=/usr/bin:/bin", "LANG=C.UTF-8"];

  async function getInstance(req: RunRequest): Promise<Inst> {
    const envStrings = req.useEnv ? req.env : neutralEnv;
    const key = req.useEnv ? "env:" + envStrings.join("\0") : "neutral";
    // A program that never reads the environment can run on any instance.
    const i = req.useEnv ? pool.findIndex((p) => p.envKey === key) : pool.length ? 0 : -1;
    if (i >= 0) {
      const found = pool[i];
      pool.splice(i, 1);
      pool.unshift(found);
      return found;
    }
    const inst = await createInstance(envStrings, key);
    pool.unshift(inst);
    while (pool.length > 2) pool.pop();
    return inst;
  }

  function runOn(inst: Inst, req: RunRequest) {
    const FS = inst.FS;
    const ex = inst.ex;
    reset(inst.out);
    reset(inst.err);
    inst.maxOutput = req.maxOutput;
    inst.overflow = false;
    inst.accounted = 0;
    inst.outOfMemory = false;
    inst.calls++;
    let created: { files: string[]; dirs: string[] } = { files: [], dirs: [] };
    let exitCode: number;
    const sp = ex.emscripten_stack_get_current();
    const callMain = (argv: string[]): number => callJqMain(ex, argv, (e) => (e instanceof JqExit ? e.code : null));
    // fds 0,1,2: stdin (only used in --args mode without files by jq's own main), stdout, stderr
    const openStdio = (stdin: Uint8Array | null) => {
      for (const s of FS.streams) if (s) FS.close(s);
      if (stdin) {
        const p = "/dev/shm/tmp/.jq-stdin";
        FS.writeFile(p, stdin);
        FS.open(p, "r");
        FS.unlink(p);
        inst.broken = true; // C stdin keeps its buffer: never reuse this instance
      } else {
        FS.open("/dev/null", "r");
      }
      FS.open("/dev/jqout", "w");
      FS.open("/dev/jqerr", "w");
    };
    try {
      if (req.plan && !inst.info.versionDir) {
        // What this build's main binds as $JQ_BUILD_CONFIGURATION and VERSION_DIR, asked once.
        inst.info = jqBuildInfo((flag) => {
          openStdio(null);
          callMain(["jq", flag]);
          const text = new TextDecoder().decode(inst.out.buf.subarray(0, inst.out.bytes));
          reset(inst.out);
          reset(inst.err);
          return text;
        });
        inst.accounted = 0;
      }
      openStdio(req.stdin);
      created = stageJqFiles(FS, req.cwd, req.files);
      FS.chdir(req.cwd);
      if (req.plan) {
        const staged = new Map<string, Uint8Array>();
        for (const f of req.files) if (f.data) staged.set(f.path, f.data);
        const say = (text: string) => {
          const b = enc.encode(text);
          FS.write(FS.streams[2], b, 0, b.length);
        };
        exitCode = jqLibMain(inst, { plan: req.plan, cwd: req.cwd, libKey: req.libKey ?? "", staged }, say, nodePath.posix);
      } else {
        exitCode = callMain(req.argv);
      }
    } catch (e) {
      if (e instanceof JqExit) {
        exitCode = e.code;
        // main exits by design; libjq driven by the driver never should: start afresh.
        if (req.plan) inst.broken = true;
      } else if (inst.outOfMemory) {
        inst.broken = true;
        exitCode = 5;
        append(inst.err, enc.encode(`jq: error: memory limit exceeded (${data.maxMemoryBytes / 1048576} MiB)\n`));
      } else {
        inst.broken = true;
        exitCode = 5;
        const msg = "jq: error: internal failure: " + String((e as Error)?.message ?? e) + "\n";
        append(inst.err, enc.encode(msg));
      }
    } finally {
      if (inst.overflow) {
        inst.broken = true;
        exitCode = 2;
        append(inst.err, enc.encode(`jq: error: output limit exceeded (${inst.maxOutput} bytes)\n`));
      }
      try {
        ex._emscripten_stack_restore(sp);
      } catch {}
      try {
        FS.chdir("/");
        for (const f of created.files.reverse()) FS.unlink(f);
        for (const d of created.dirs.reverse()) FS.rmdir(d);
      } catch {
        inst.broken = true;
      }
    }
    const heap = (ex.memory.buffer as ArrayBuffer).byteLength;
    if (heap > data.maxHeapBytes || inst.calls >= data.maxCallsPerInstance) inst.broken = true;
    return {
      stdout: inst.out.buf.slice(0, inst.out.bytes),
      stderr: inst.err.buf.slice(0, inst.err.bytes),
      exitCode,
      heapBytes: heap,
    };
  }

  let chain: Promise<void> = Promise.resolve();
  parentPort.on("message", (req: RunRequest) => {
    chain = chain.then(async () => {
      try {
        const inst = await getInstance(req);
        const res = runOn(inst, req);
        if (inst.broken) {
          const i = pool.indexOf(inst);
          if (i >= 0) pool.splice(i, 1);
        }
        parentPort.postMessage({ id: req.id, ...res }, [res.stdout.buffer, res.stderr.buffer]);
      } catch (e) {
        parentPort.postMessage({ id: req.id, fatal: String((e as Error)?.stack ?? e) });
      }
    });
  });
  parentPort.postMessage({ ready: true });
}
