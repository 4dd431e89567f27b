/**
 * The worker thread that redacts large outputs (off-thread.ts): the same redactor, built from the
 * same secrets, so a multi-megabyte output is scanned without holding the host's event loop.
 */
import { parentPort } from "node:worker_threads";
import type { ToolOutput } from "../../tool/index.js";
import { createRedactor, type Redactor } from "./index.js";

/** One job: `value` (any JSON-like value) or `output` (a tool output), with the secrets to look for. */
export interface RedactJob {
  id: number;
  secrets: string[];
  kind: "value" | "output";
  v: unknown;
}

let made: { key: string; redactor: Redactor } | undefined;

parentPort?.on("message", (job: RedactJob) => {
  try {
    const key = JSON.stringify(job.secrets);
    if (made?.key !== key) made = { key, redactor: createRedactor(job.secrets) };
    const v = job.kind === "output" ? made.redactor.output(job.v as ToolOutput) : made.redactor.value(job.v);
    parentPort!.postMessage({ id: job.id, ok: true, v });
  } catch {
    parentPort!.postMessage({ id: job.id, ok: false });
  }
});
