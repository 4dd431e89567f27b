/**
 * What one replica did and holds, for Prometheus (`GET /metrics`, an operator token): counters of
 * this process's shell calls, tool calls, approvals, trigger runs, store failures and HTTP
 * requests since it started, gauges read at each scrape (shell calls running, bytes held in
 * sessions' files, whether the store answers, whether the replica is stopping), and Node's own
 * process metrics (prom-client's defaults). Every replica counts only its own work: sum them in
 * the query. Labels are closed sets (no session, tool or path names), so a series count stays small.
 *
 * See docs/deployment.md → Health, readiness and metrics.
 */
import { Counter, Gauge, Registry, collectDefaultMetrics } from "prom-client";
import type { SessionEvent } from "../call/index.js";
import { hostFileBytes } from "../shell/session-fs.js";
import type { Host } from "./host.js";

/** How long a scrape or a readiness check waits for the store to answer. */
export const STORE_CHECK_MS = 2_000;

type StoreAnswer = { ok: true } | { ok: false; message: string };
const recent = new WeakMap<Host, { at: number; answer: Promise<StoreAnswer> }>();

/**
 * Whether the store answers within {@link STORE_CHECK_MS}: a store without `ping` (a file) always
 * does. Asked at most once a second per host, however many probes and scrapes ask (`/readyz` is
 * open: a flood of it must not queue a query each on the store's pool).
 */
export function storeAnswers(host: Host): Promise<StoreAnswer> {
  const r = recent.get(host);
  if (r && Date.now() - r.at < 1000) return r.answer;
  const answer = askStore(host);
  recent.set(host, { at: Date.now(), answer });
  return answer;
}

async function askStore(host: Host): Promise<StoreAnswer> {
  const ping = host.store.ping?.bind(host.store);
  if (!ping) return { ok: true };
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      ping(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer in ${STORE_CHECK_MS} ms`)), STORE_CHECK_MS);
      }),
    ]);
    return { ok: true };
  } catch (err) {
    return { ok: false, message: host.shell.redactor.text(err instanceof Error ? err.message : String(err)) };
  } finally {
    clearTimeout(timer);
  }
}

/** The metrics of one app over `host` (it follows the host's events for the host's life). */
export interface Metrics {
  readonly registry: Registry;
  /** Counts one answered HTTP request. */
  request(method: string, status: number): void;
  /** The exposition text and its content type. */
  text(): Promise<{ body: string; contentType: string }>;
}

const METHODS = new Set(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]);

/** Creates the metrics of an app over `host`; `stopping` says whether the replica is stopping. */
export function createMetrics(host: Host, stopping: () => boolean): Metrics {
  const registry = new Registry();
  // Node's own metrics watch the event loop and the collector from the first scrape on: an app
  // nobody scrapes (a test's, a library host's) starts no observers.
  let defaults = false;
  const shellCalls = new Counter({ name: "toolshell_shell_calls_total", help: "Shell calls ended on this replica, by outcome (ok: exit 0; failed: another exit status; stopped: stopped by the policy, a limit or an error).", labelNames: ["outcome"], registers: [registry] });
  const toolCalls = new Counter({ name: "toolshell_tool_calls_total", help: "Tool calls ended on this replica (nested in scripts and direct), by status.", labelNames: ["status"], registers: [registry] });
  const requested = new Counter({ name: "toolshell_approvals_requested_total", help: "Approval requests raised on this replica.", registers: [registry] });
  const answered = new Counter({ name: "toolshell_approvals_answered_total", help: "Approval answers taken by this replica, by decision.", labelNames: ["decision"], registers: [registry] });
  const triggerRuns = new Counter({ name: "toolshell_trigger_runs_total", help: "Trigger runs ended on this replica, by status.", labelNames: ["status"], registers: [registry] });
  const storeFailed = new Counter({ name: "toolshell_store_failures_total", help: "Writes or restores the store failed on this replica (each is a store.failed event).", registers: [registry] });
  const requests = new Counter({ name: "toolshell_http_requests_total", help: "HTTP requests answered by this replica, by method and status code.", labelNames: ["method", "code"], registers: [registry] });
  new Gauge({ name: "toolshell_shell_calls_running", help: "Shell calls running now on this replica.", registers: [registry], collect() { this.set(host.shell.running); } });
  new Gauge({ name: "toolshell_session_file_bytes", help: "Bytes held in the files of the sessions in this process's memory (bounded by TOOLSHELL_HOST_FILE_BYTES).", registers: [registry], collect() { this.set(hostFileBytes()); } });
  new Gauge({ name: "toolshell_stopping", help: "1 while this replica is stopping (it takes no new requests).", registers: [registry], collect() { this.set(stopping() ? 1 : 0); } });
  new Gauge({
    name: "toolshell_store_up",
    help: `1 when the store answered a query within ${STORE_CHECK_MS} ms at this scrape.`,
    registers: [registry],
    async collect() {
      this.set((await storeAnswers(host)).ok ? 1 : 0);
    },
  });
  const count = (e: SessionEvent) => {
    switch (e.type) {
      case "shell_call.ended":
        shellCalls.inc({ outcome: e.stopped ? "stopped" : e.exit_code === 0 ? "ok" : "failed" });
        break;
      case "tool.nested_call":
      case "tool.direct_call":
        toolCalls.inc({ status: e.status });
        break;
      case "approval.requested":
        requested.inc();
        break;
      case "approval.answered":
        answered.inc({ decision: e.decision });
        break;
      case "trigger.run":
        triggerRuns.inc({ status: e.status });
        break;
      case "store.failed":
        storeFailed.inc();
        break;
    }
  };
  host.subscribe(count);
  return {
    registry,
    request: (method, status) => requests.inc({ method: METHODS.has(method) ? method : "other", code: String(status) }),
    text: async () => {
      if (!defaults) collectDefaultMetrics({ register: registry });
      defaults = true;
      return { body: await registry.metrics(), contentType: registry.contentType };
    },
  };
}
