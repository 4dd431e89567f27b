import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import path from "node:path";
import { Worker } from "node:worker_threads";
import type { JqPlan } from "./argv.js";
import { jqBuildInfo, jqDriverExports, jqLibMain } from "./worker-driver.js";
import { append, callJqMain, reset, stageJqFiles, withExports, withMemoryMaximum } from "./worker-helpers.js";
import { jqWorkerMain } from "./worker-main.js";

/** One file or directory to place in the jq instance's filesystem for one run. */
export interface JqStagedFile {
  /** Absolute path, the same as in the session's virtual filesystem. */
  path: string;
  /** File bytes; absent for a directory. */
  data?: Uint8Array;
  /** True for a directory (created, left empty unless other entries fill it). */
  dir?: boolean;
}

/** One jq run: argv as jq's `main` sees it, plus everything it may read. */
export interface JqRunRequest {
  /** Full argv, `argv[0]` = "jq". */
  argv: string[];
  /** Absolute working directory (relative paths in argv resolve against it). */
  cwd: string;
  /** Files named by argv (inputs, -f program, --rawfile/--slurpfile, -L modules). */
  files: JqStagedFile[];
  /** Bytes served on jq's real stdin (only used when argv cannot name a stdin file). */
  stdin: Uint8Array | null;
  /** `NAME=value` strings jq sees as its environment when `useEnv` is set. */
  env: string[];
  /** Whether the program may read the environment (`env`, `$ENV`). */
  useEnv: boolean;
  /** Cap on stdout+stderr bytes; past it the run stops with exit 2. */
  maxOutput: number;
  /** Wall-clock budget in ms; past it the worker is ended and the run fails with 124. */
  timeoutMs: number;
  /** Cancels the run (the worker is ended); the run fails with 130. */
  signal?: AbortSignal;
  /**
   * The command line as jq's `main` would read it (`planJqArgv`): the worker then drives libjq
   * itself and keeps the compiled program for the next run with the same program and arguments.
   * Absent: jq's own `main` runs `argv`.
   */
  plan?: JqPlan;
  /** Text besides the files named by `plan` that a compile reads (`~/.jq`); keys the compiled program. */
  libKey?: string;
}

/** What a jq run produced. */
export interface JqRunResult {
  stdout: Uint8Array;
  stderr: Uint8Array;
  exitCode: number;
  /** Size of the wasm heap after the run, bytes (diagnostics, benchmarks). */
  heapBytes?: number;
}

interface Pending {
  req: JqRunRequest;
  resolve: (r: JqRunResult) => void;
}

/** The most memory one jq instance may use (its WebAssembly memory maximum), bytes. */
export const JQ_MAX_MEMORY = 256 * 1024 * 1024;

const enc = new TextEncoder();
const failure = (message: string, exitCode: number): JqRunResult => ({
  stdout: new Uint8Array(0),
  stderr: enc.encode(message),
  exitCode,
});

/**
 * Runs jq 1.7.1 (the `jq-web` package: real jq compiled to WebAssembly) in one worker
 * thread, one run at a time, in arrival order.
 *
 * Why a worker: a wasm call is synchronous, so a runaway program (`repeat(1)`,
 * `range(1e12)`) would freeze every session of the process; in a worker it is ended
 * at its time budget. Why one run at a time: the wasm instance has global state (its
 * C stdio, its filesystem), so concurrent callers (several sessions, or a call made
 * while another is in flight) are queued instead of interleaved. Memory stays bounded:
 * the worker drops an instance whose heap passed `maxHeapBytes` or that served
 * `maxCallsPerInstance` runs.
 */
export class JqEngine {
  private worker: Worker | null = null;
  private ready: Promise<void> | null = null;
  private queue: Pending[] = [];
  private busy = false;
  private nextId = 1;
  private readonly jsPath: string;
  private readonly wasmPath: string;

  /**
   * @param options.maxHeapBytes heap size (bytes) past which an instance is replaced; default 64 MiB
   * @param options.maxMemoryBytes the most memory one jq instance may have (its WebAssembly
   *   memory maximum); a run that needs more ends with `jq: error: memory limit exceeded`, exit 5;
   *   default 256 MiB, a multiple of 64 KiB
   * @param options.maxCallsPerInstance runs after which an instance is replaced; default 5000
   * @throws Error when the `jq-web` package cannot be resolved
   */
  constructor(
    private readonly options: { maxHeapBytes?: number; maxMemoryBytes?: number; maxCallsPerInstance?: number } = {},
  ) {
    const require = createRequire(import.meta.url);
    this.jsPath = require.resolve("jq-web/jq.js");
    this.wasmPath = path.join(path.dirname(this.jsPath), "jq.wasm");
  }

  /** True when it runs nothing and has nothing waiting. */
  get idle(): boolean {
    return !this.busy && this.queue.length === 0;
  }

  /**
   * Run jq once. Never rejects: engine failures come back as a non-zero exit code and a
   * `jq: error: …` line on stderr.
   */
  run(req: JqRunRequest): Promise<JqRunResult> {
    return new Promise((resolve) => {
      this.queue.push({ req, resolve });
      void this.pump();
    });
  }

  /** End the worker (a later `run` starts a new one). */
  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    this.ready = null;
    if (w) await w.terminate();
  }

  private start(): Promise<void> {
    if (this.ready) return this.ready;
    const code = `var __name = (f) => f;\n${[withMemoryMaximum, withExports, callJqMain, stageJqFiles, append, reset, jqDriverExports, jqBuildInfo, jqLibMain].map(String).join("\n")}\n(${jqWorkerMain.toString()})();`;
    const w = new Worker(code, {
      eval: true,
      workerData: {
        jsPath: this.jsPath,
        wasmPath: this.wasmPath,
        maxHeapBytes: this.options.maxHeapBytes ?? 64 * 1024 * 1024,
        maxMemoryBytes: this.options.maxMemoryBytes ?? JQ_MAX_MEMORY,
        maxCallsPerInstance: this.options.maxCallsPerInstance ?? 5000,
      },
      // jq-web's glue reads nothing from stdin/stdout of the process; keep them detached.
      stdout: true,
      stderr: true,
      execArgv: [],
      // The worker's own JavaScript heap is small (jq's data lives in the wasm memory, capped
      // above); a runaway ends the worker (the run answers an error), never the host process.
      resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16 },
    });
    w.unref();
    this.worker = w;
    this.ready = new Promise<void>((resolve, reject) => {
      const onMsg = (m: { ready?: boolean }) => {
        if (m && m.ready) {
          w.off("message", onMsg);
          resolve();
        }
      };
      w.on("message", onMsg);
      w.once("error", (e) => reject(e));
      w.once("exit", () => {
        if (this.worker === w) {
          this.worker = null;
          this.ready = null;
        }
        reject(new Error("jq worker exited"));
      });
    });
    this.ready.catch(() => {});
    return this.ready;
  }

  private async pump(): Promise<void> {
    if (this.busy) return;
    const next = this.queue.shift();
    if (!next) return;
    this.busy = true;
    try {
      next.resolve(await this.runOne(next.req));
    } finally {
      this.busy = false;
      void this.pump();
    }
  }

  private async runOne(req: JqRunRequest): Promise<JqRunResult> {
    if (req.signal?.aborted) return failure("jq: interrupted\n", 130);
    try {
      await this.start();
    } catch (e) {
      this.worker = null;
      this.ready = null;
      return failure(`jq: error: could not start jq: ${(e as Error).message}\n`, 2);
    }
    const w = this.worker;
    if (!w) return failure("jq: error: could not start jq\n", 2);
    const id = this.nextId++;
    w.ref();
    try {
      return await new Promise<JqRunResult>((resolve) => {
        let done = false;
        const finish = (r: JqRunResult) => {
          if (done) return;
          done = true;
          clearTimeout(timer);
          w.off("message", onMsg);
          w.off("exit", onExit);
          req.signal?.removeEventListener("abort", onAbort);
          resolve(r);
        };
        const kill = (r: JqRunResult) => {
          finish(r);
          if (this.worker === w) {
            this.worker = null;
            this.ready = null;
          }
          void w.terminate();
        };
        const onMsg = (m: any) => {
          if (!m || m.id !== id) return;
          if (m.fatal) {
            kill(failure(`jq: error: internal failure: ${String(m.fatal).split("\n")[0]}\n`, 5));
            return;
          }
          finish({ stdout: m.stdout, stderr: m.stderr, exitCode: m.exitCode, heapBytes: m.heapBytes });
        };
        const onExit = () => finish(failure("jq: error: jq worker stopped\n", 5));
        const onAbort = () => kill(failure("jq: interrupted\n", 130));
        const timer = setTimeout(
          () => kill(failure(`jq: error: time limit exceeded (${Math.round(req.timeoutMs)} ms)\n`, 124)),
          Math.max(1, req.timeoutMs),
        );
        w.on("message", onMsg);
        w.once("exit", onExit);
        req.signal?.addEventListener("abort", onAbort, { once: true });
        const { signal: _s, timeoutMs: _t, ...msg } = req;
        w.postMessage({ id, ...msg });
      });
    } finally {
      w.unref();
    }
  }
}

/** What runs jq: one engine, or the process's pool of them. */
export interface JqRunner {
  run(req: JqRunRequest): Promise<JqRunResult>;
  close(): Promise<void>;
}

/** How long an engine beyond the pool's first stays started with nothing to run. */
const EXTRA_IDLE_MS = 30_000;

/**
 * A few jq engines, each one worker running one jq at a time: a run goes to an engine with
 * nothing to do, a new one is started while there are fewer than `size`, and otherwise it waits
 * for the first to finish. One session's long jq (up to its shell call's time limit) then holds
 * one engine, not every session's jq (docs/security.md "What each limit defends"). Engines
 * beyond the first end after 30 s with nothing to run.
 */
export class JqPool implements JqRunner {
  private readonly engines: JqEngine[] = [];
  private readonly waiting: Pending[] = [];
  private readonly idleTimers = new Map<JqEngine, NodeJS.Timeout>();

  constructor(
    private readonly size = Math.max(2, Math.min(4, availableParallelism())),
    private readonly make: () => JqEngine = () => new JqEngine(),
  ) {}

  run(req: JqRunRequest): Promise<JqRunResult> {
    return new Promise((resolve) => {
      this.waiting.push({ req, resolve });
      this.pump();
    });
  }

  async close(): Promise<void> {
    for (const t of this.idleTimers.values()) clearTimeout(t);
    this.idleTimers.clear();
    await Promise.all(this.engines.map((e) => e.close()));
  }

  private pump(): void {
    while (this.waiting.length) {
      let engine = this.engines.find((e) => e.idle);
      if (!engine && this.engines.length < this.size) this.engines.push((engine = this.make()));
      if (!engine) return;
      const next = this.waiting.shift()!;
      const e = engine;
      clearTimeout(this.idleTimers.get(e));
      void e.run(next.req).then((r) => {
        next.resolve(r);
        if (e !== this.engines[0]) this.idleTimers.set(e, setTimeout(() => e.idle && void e.close(), EXTRA_IDLE_MS).unref());
        this.pump();
      });
    }
  }
}

let shared: JqPool | null = null;

/** The process-wide jq runner (a pool of engines shared by every session, {@link JqPool}). */
export function sharedJqEngine(): JqRunner {
  if (!shared) shared = new JqPool();
  return shared;
}
