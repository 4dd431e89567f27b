/**
 * The HTTP API of `toolshell serve` (docs/sessions.md "HTTP API"), built and run as a process:
 * `POST /v1/sessions/{id}/bash`; a stop for approval gives the request id in the stop report,
 * the person answers with `POST /v1/sessions/{id}/tool-approvals`, and the client runs the
 * script again. A server's question waits at `GET /v1/sessions/{id}/questions` and is answered
 * with a `POST` there while the shell call runs; progress is listed as `tool.progress` events.
 *
 * Two endpoints: `run` takes the shell calls, `answer` the person's answers and the listings —
 * one process, or two replicas on one PostgreSQL (ask on one, answer on the other).
 */
import { spawn, type ChildProcess } from "node:child_process";
import type { Decision } from "../../../src/index.js";
import { openEventStream } from "../../fixtures/event-stream.js";
import { approve } from "../../mcp/oauth-helpers.js";
import type { ListedEvent, StepRun, Surface, Turn } from "../paths.js";
import { TOKEN, type World } from "../world.js";
import { CLI } from "./cli.js";
import { stoppedOf, waitingOn } from "./library.js";

/** A running `toolshell serve`. */
export interface Served {
  url: string;
  child: ChildProcess;
  stderr(): string;
  stop(): Promise<void>;
}

/** Starts `toolshell serve --port 0` on the world's config (`env` over the world's). */
export async function startServe(world: World, env: NodeJS.ProcessEnv = {}): Promise<Served> {
  const child = spawn(process.execPath, [CLI, "serve", "--port", "0", "--config", world.config], { cwd: world.dir, stdio: ["ignore", "pipe", "pipe"], env: { ...world.env, ...env } });
  let err = "";
  child.stderr!.on("data", (c: Buffer) => (err += c.toString()));
  child.stdout!.resume();
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on("data", () => {
      const m = /serving (http:\/\/127\.0\.0\.1:\d+)/.exec(err);
      if (m) resolve(m[1]);
    });
    child.once("exit", (code) => reject(new Error(`toolshell serve exited (${code}) before serving:\n${err}`)));
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(timer);
  };
  return { url, child, stderr: () => err, stop };
}

/** One API call with the world's token (or `token`); throws on a status other than 2xx. */
export async function api<T = any>(base: string, method: string, path: string, body?: unknown, token = TOKEN): Promise<T> {
  const res = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

interface BashResult {
  stdout: string;
  stderr: string;
  tools?: unknown;
}

/**
 * The API surface: shell calls to `run`, answers and listings to `answer` (the same URL for one
 * process). `answerApprovals`, when given, is how the person answers instead (the console's cards).
 * `token` is the client's API token (the world's operator token unless given); a session that
 * exists already is the client's to come back to, or refused on its first call.
 */
export async function apiSurface(name: string, session: string, run: string, answer: string, answerApprovals?: (ids: string[], decision: Decision) => Promise<unknown>, token = TOKEN): Promise<Surface> {
  const call = <T = any>(base: string, method: string, path: string, body?: unknown) => api<T>(base, method, path, body, token);
  await call(run, "POST", "/v1/sessions", { id: session }).catch((err: Error) => {
    if (!/: 409 .*exists/.test(err.message)) throw err;
  });
  const s = `/v1/sessions/${encodeURIComponent(session)}`;
  const bash = (script: string, extra: Record<string, unknown> = {}) => call<BashResult>(run, "POST", `${s}/bash`, { script, ...extra });
  const pending = async () => (await call<{ pending: unknown[] }>(answer, "GET", `${s}/tool-approvals`)).pending.length;
  const answerAll = answerApprovals ?? ((ids: string[], decision: Decision) => call(answer, "POST", `${s}/tool-approvals`, { decisions: ids.map((id) => ({ tool_call_id: id, decision })) }));
  const events = async () => (await call<{ events: ListedEvent[] }>(answer, "GET", `${s}/events?limit=10000`)).events;
  return {
    name,
    async turn(script, decision): Promise<Turn> {
      let asked = 0;
      let r = await bash(script);
      for (let i = 0; i < 2; i++) {
        const ids = waitingOn(r.tools);
        if (!ids.length) break;
        asked++;
        await answerAll(ids, decision);
        if (decision.startsWith("reject")) break;
        r = await bash(script);
      }
      return { asked, stdout: r.stdout, stderr: r.stderr, pending: await pending() };
    },
    events,
    async question(script, content) {
      // Questions wait in the process running the call (docs/deployment.md "What each replica
      // keeps to itself"): the person answers there while the shell call runs.
      let done = false;
      const running = bash(script).finally(() => (done = true));
      let asked = 0;
      for (let i = 0; i < 600 && !asked && !done; i++) {
        const { pending: waiting } = await call<{ pending: Array<{ question_id: string }> }>(run, "GET", `${s}/questions`);
        for (const q of waiting) {
          asked++;
          await call(run, "POST", `${s}/questions`, { question_id: q.question_id, action: "accept", content });
        }
        if (!asked) await Promise.race([running, new Promise((resolve) => setTimeout(resolve, 100))]);
      }
      const r = await running;
      return { asked, stdout: r.stdout, stderr: r.stderr, pending: await pending() };
    },
    // The person finds the pending sign-in at GET /v1/sign-ins (the console lists the same) on the
    // process that ran the call: it listens for the redirect (docs/deployment.md "What each
    // replica keeps to itself"), and opens its URL.
    signIn: {
      way: (server) => new RegExp(`^GET /v1/sign-ins: ${server} http\\S+/authorize\\?`),
      async run(script, server) {
        const before = await bash(script);
        const { pending: waiting } = await call<{ pending: Array<{ server: string; url: string; session_id?: string }> }>(run, "GET", "/v1/sign-ins");
        const mine = waiting.find((p) => p.server === server && p.session_id === session);
        if (mine) await approve(mine.url);
        return { before, offered: mine ? `GET /v1/sign-ins: ${mine.server} ${mine.url}` : JSON.stringify(waiting), after: await bash(script) };
      },
    },
    async progress(script) {
      const before = (await events()).length;
      const r = await bash(script);
      const seen = (await events()).slice(before).flatMap((e) => (e.type === "tool.progress" && typeof e.message === "string" ? [e.message] : []));
      return { asked: 0, stdout: r.stdout, stderr: r.stderr, pending: await pending(), seen };
    },
    step: {
      async run(script, stepId): Promise<StepRun> {
        const r = await bash(script, { step_id: stepId });
        return { stdout: r.stdout, stderr: r.stderr, stopped: stoppedOf(r.tools) };
      },
      answer: async (id, decision) => void (await answerAll([id], decision)),
      pending,
      listed: async () => Object.fromEntries((await call<{ steps: Array<{ step_id: string; status: string }> }>(answer, "GET", `${s}/steps`)).steps.map((x) => [x.step_id, x.status])),
    },
    // Read where the answers go: on two replicas, the events are written on the other one.
    stream: (lastEventId) => openEventStream(`${answer}${s}/events`, token, lastEventId === undefined ? {} : { "last-event-id": lastEventId }),
  };
}
