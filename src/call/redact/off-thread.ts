/**
 * Redacting a large output in a worker thread: scanning text for every form of every secret
 * costs about a microsecond a character, so one shell call printing 16 MiB (the output bound),
 * or one tool returning as much, held the whole process — every session, the HTTP API — for
 * seconds on the main thread (docs/security.md "What each limit defends"). Past
 * {@link OFF_THREAD_CHARS} the same redactor, built from the same secrets, runs in one worker
 * (worker.ts, started on first use and kept, not keeping the process alive). A value the worker
 * cannot take (not cloneable) is redacted here as before.
 */
import { extname } from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { ToolOutput } from "../../tool/index.js";
import type { Redactor } from "./index.js";
import type { RedactJob } from "./worker.js";

/**
 * Outputs with more characters of text than this are redacted off the main thread: at about a
 * microsecond a character (more for text dense with escapes), 64 Ki characters hold the event
 * loop for tens of milliseconds; 1 Mi held it for 1.5 s, and one script can make many such outputs.
 */
export const OFF_THREAD_CHARS = 1 << 16;

let worker: Worker | undefined;
let nextId = 0;
const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

function failAll(err: Error): void {
  for (const w of waiting.values()) w.reject(err);
  waiting.clear();
}

function theWorker(): Worker {
  if (worker) return worker;
  // worker.js beside this file once built; worker.ts when running from source, through tsx's loader
  // (a worker does not inherit the loader hooks of its parent).
  const ext = extname(fileURLToPath(import.meta.url));
  const file = new URL(`./worker${ext}`, import.meta.url);
  const limits = { resourceLimits: { maxOldGenerationSizeMb: 1024 } };
  const w =
    ext === ".ts"
      ? new Worker(`import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))}).then((m) => { m.register(); return import(${JSON.stringify(file.href)}); });`, { eval: true, ...limits })
      : new Worker(file, limits);
  w.unref();
  w.on("message", (m: { id: number; ok: boolean; v?: unknown }) => {
    const job = waiting.get(m.id);
    if (!job) return;
    waiting.delete(m.id);
    if (m.ok) job.resolve(m.v);
    else job.reject(new Error("the redactor failed on this output"));
    if (waiting.size === 0) w.unref();
  });
  w.on("error", (err) => failAll(err));
  w.on("exit", () => {
    if (worker === w) worker = undefined;
    failAll(new Error("the redactor's worker ended"));
  });
  worker = w;
  return w;
}

function offThread<T>(redactor: Redactor, kind: RedactJob["kind"], v: T): Promise<T> {
  const w = theWorker();
  const id = ++nextId;
  return new Promise<T>((resolve, reject) => {
    waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
    w.ref();
    try {
      w.postMessage({ id, secrets: redactor.given(), kind, v } satisfies RedactJob);
    } catch {
      // Not cloneable (a local tool's raw return holding functions): redacted here instead.
      waiting.delete(id);
      if (waiting.size === 0) w.unref();
      try {
        resolve(kind === "output" ? (redactor.output(v as ToolOutput) as T) : redactor.value(v));
      } catch (e) {
        reject(e as Error);
      }
    }
  });
}

/**
 * `v` redacted as {@link Redactor.value} does, in the worker when `chars` (its text's length) is
 * past {@link OFF_THREAD_CHARS}. @throws (rejects) as the redactor does when it fails.
 */
export async function redactValue<T>(redactor: Redactor, v: T, chars: number): Promise<T> {
  return redactor.active && chars > OFF_THREAD_CHARS ? offThread(redactor, "value", v) : redactor.value(v);
}

/**
 * Whether the strings in `v` (keys too, and one for each value) add up to more than `limit`
 * characters: a walk that stops as soon as they do, so a small value costs little and a large
 * (or cyclic) one no more than the limit.
 */
function largerThan(v: unknown, limit: number): boolean {
  let left = limit;
  const stack: unknown[] = [v];
  while (stack.length) {
    const x = stack.pop();
    left--; // each value counts, so a cycle ends the walk too
    if (typeof x === "string") left -= x.length;
    else if (x && typeof x === "object") {
      for (const [k, y] of Object.entries(x)) {
        left -= k.length;
        stack.push(y);
      }
    }
    if (left < 0) return true;
  }
  return false;
}

/**
 * A tool output redacted as {@link Redactor.output} does, in the worker when its text, or the
 * strings of its value (a local tool's object, a server's structured content), pass {@link OFF_THREAD_CHARS}.
 */
export async function redactOutput(redactor: Redactor, o: ToolOutput): Promise<ToolOutput> {
  if (!redactor.active) return o;
  const chars = (o.text?.length ?? 0) + (o.json?.length ?? 0);
  const large = chars > OFF_THREAD_CHARS || largerThan([o.value, o.raw], OFF_THREAD_CHARS - chars);
  return large ? offThread(redactor, "output", o) : redactor.output(o);
}
