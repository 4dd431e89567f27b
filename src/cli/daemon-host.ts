/**
 * The warm host itself (`toolshell daemon serve`, started by the CLI, never by hand): opens the
 * config's host once — its servers, store and sessions — and answers CLI runs over a private
 * Unix socket (see daemon-client.ts for where it lives and how it is found). Each run is the same
 * work as `--no-daemon` (commands.ts `runOnHost`), so sessions, approvals and events are the
 * same. It exits when asked (`toolshell daemon stop`), when idle for its idle time, or when a
 * request comes with another config fingerprint (the config changed: the next run starts a new
 * host).
 */
import { appendFileSync, chmodSync, unlinkSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import type { AskedQuestion, Person } from "../call/index.js";
import type { QuestionAnswer } from "../tool/index.js";
import { configFingerprint, hostPaths, request, shownStore, type DaemonAnswer, type DaemonEvent, type DaemonRequest, type HostKey } from "./daemon-client.js";
import { openToolShell, runOnHost, type CliRequest } from "./commands.js";
import { cliProgressLine } from "./person.js";
import { configSecrets, createRedactor } from "../call/index.js";
import { loadConfig } from "../config/index.js";

/**
 * Serves the host for `key` until stopped, idle or stale. It listens at once; it opens the host
 * when process `afterPid` (the CLI run that started it) has exited, and requests wait for that.
 * Messages go to the log file (`$TOOLSHELL_DAEMON_LOG`).
 */
export async function serveDaemon(key: HostKey, idleSeconds: number, afterPid?: number): Promise<void> {
  const { socket } = hostPaths(key);
  const logFile = process.env.TOOLSHELL_DAEMON_LOG;
  // Every line passes the config's redactor (docs/security.md "Secrets"): the host's once it is
  // open, before that (and when it cannot open) one made from the config's secrets, if it loads.
  let redact = (line: string): string => line;
  const log = (line: string) => {
    if (logFile) {
      try {
        appendFileSync(logFile, `${new Date().toISOString()} ${redact(line)}\n`, { mode: 0o600 });
      } catch {}
    }
  };
  try {
    const redactor = createRedactor(configSecrets(loadConfig({ config: key.config })));
    redact = (line) => redactor.text(line);
  } catch {}
  // Another host may already listen (two runs started at once): then this one is not needed.
  try {
    await request(socket, { kind: "status" });
    return;
  } catch {}
  try {
    unlinkSync(socket);
  } catch {}

  const fingerprint = configFingerprint(key.config);
  let host: Awaited<ReturnType<typeof openToolShell>> | undefined;
  // Opened once the starting CLI run has exited (it ran its own request in-process meanwhile).
  const hostReady = (async () => {
    while (afterPid) {
      try {
        process.kill(afterPid, 0);
      } catch {
        break;
      }
      await new Promise((r) => setTimeout(r, 25));
    }
    try {
      host = await openToolShell({ config: key.config, store: key.store, workspace: key.workspace, timeout: key.timeout });
      // Servers set through the API or another replica, and edits of the config file, reach the
      // warm host as they reach every host on the store (Host.follow; docs/deployment.md).
      await host.follow();
      const redactor = host.shell.redactor;
      redact = (line) => redactor.text(line);
      log("host open");
      armIdle();
    } catch (e) {
      log(`cannot open the host: ${(e as Error).message}`);
      void shutdown("cannot open the host");
    }
  })();
  const startedAt = new Date().toISOString();
  let served = 0;
  let inFlight = 0;
  let closing = false;
  let idleTimer: NodeJS.Timeout | undefined;

  const server: Server = createServer((conn: Socket) => {
    let buf = "";
    conn.setEncoding("utf8");
    conn.on("error", () => {});
    conn.on("data", (d: string) => {
      buf += d;
      const nl = buf.indexOf("\n");
      if (nl < 0) return;
      conn.removeAllListeners("data");
      let req: DaemonRequest;
      try {
        req = JSON.parse(buf.slice(0, nl)) as DaemonRequest;
      } catch {
        conn.end(`${JSON.stringify({ error: "bad request" })}\n`);
        return;
      }
      // While the run goes on, progress and questions go to the CLI; its answers come back (daemon-client.ts).
      const answers = new Map<string, (answer: QuestionAnswer) => void>();
      listenForAnswers(conn, buf.slice(nl + 1), answers);
      const person = daemonPerson((e) => {
        if (conn.writable) conn.write(`${JSON.stringify(e)}\n`);
      }, answers, req.kind === "exec" && req.terminal === true);
      void handle(req, person).then((answer) => {
        conn.end(`${JSON.stringify(answer)}\n`);
        if (req.kind === "stop" || answer.restart) void shutdown(req.kind === "stop" ? "stopped" : "config changed");
      });
    });
  });

  function armIdle(): void {
    clearTimeout(idleTimer);
    if (inFlight === 0) idleTimer = setTimeout(() => void shutdown("idle"), idleSeconds * 1000);
  }

  async function handle(req: DaemonRequest, person: Person): Promise<DaemonAnswer> {
    if (req.kind === "status") {
      const shaped = { ...(key.workspace ? { workspace: key.workspace } : {}), ...(key.timeout ? { timeout: key.timeout } : {}), ...(key.store ? { store: shownStore(key.store) } : {}) };
      return { status: { pid: process.pid, config: key.config, startedAt, idleSeconds, served, ...shaped } };
    }
    if (req.kind === "stop") return {};
    if (closing || req.fingerprint !== fingerprint) return { restart: true };
    inFlight++;
    clearTimeout(idleTimer);
    try {
      await hostReady;
      if (!host) return { restart: true };
      if (req.kind === "servers") return { servers: { pid: process.pid, list: (await import("../server/servers-api.js")).listServers(host) } };
      const options = { session: req.session };
      const cli: CliRequest =
        req.kind === "exec"
          ? { kind: "exec", script: req.script, options, ...(req.stdin !== undefined ? { stdin: req.stdin } : {}) }
          : req.kind === "plan"
            ? { kind: "plan", file: "-", options }
            : req.kind === "approve"
              ? { kind: "approve", requestId: req.requestId, decision: req.decision, options }
              : req.kind === "list"
                ? { kind: "list", tokens: false, options }
                : { kind: "approvals", json: req.json, options };
      return await runOnHost(host, cli, "script" in req ? req.script : undefined, person);
    } catch (e) {
      return { error: (e as Error).message };
    } finally {
      served++;
      inFlight--;
      armIdle();
    }
  }

  async function shutdown(why: string): Promise<void> {
    if (closing) return;
    closing = true;
    clearTimeout(idleTimer);
    log(`exiting: ${why}`);
    server.close();
    try {
      unlinkSync(socket);
    } catch {}
    // Let runs in flight finish (bounded), then close the host: servers, store.
    for (let i = 0; i < 600 && inFlight > 0; i++) await new Promise((r) => setTimeout(r, 100));
    await host?.close().catch(() => {});
    process.exit(0);
  }

  const oldMask = process.umask(0o077);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socket, () => resolve());
  }).catch((e: Error) => {
    log(`cannot listen on ${socket}: ${e.message}`);
    process.exit(2);
  });
  process.umask(oldMask);
  chmodSync(socket, 0o600);
  for (const sig of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.on(sig, () => void shutdown(sig));
  log(`listening on ${socket} (pid ${process.pid}, config ${key.config})`);
}

/** Reads the CLI's `{answer_to, answer}` lines after its request and resolves the question each answers. */
function listenForAnswers(conn: Socket, rest: string, answers: Map<string, (answer: QuestionAnswer) => void>): void {
  let buf = rest;
  const drain = () => {
    let nl: number;
    while ((nl = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      try {
        const m = JSON.parse(line) as { answer_to?: unknown; answer?: QuestionAnswer };
        if (typeof m.answer_to === "string" && m.answer) answers.get(m.answer_to)?.(m.answer);
      } catch {}
    }
  };
  conn.on("data", (d: string) => {
    buf += d;
    drain();
  });
  // The CLI went away: its questions are cancelled.
  conn.on("close", () => {
    for (const resolve of [...answers.values()]) resolve({ action: "cancel" });
  });
  drain();
}

/**
 * The person of a run on the host: progress and questions go to the CLI over `write` (one JSON
 * line each); a question waits for the client's answer through `answers` (question id → resolve).
 */
function daemonPerson(write: (event: DaemonEvent) => void, answers: Map<string, (answer: QuestionAnswer) => void>, terminal: boolean): Person {
  return {
    progress(report) {
      const line = cliProgressLine(report);
      if (line) write({ event: "progress", line });
    },
    ...(terminal
      ? {
          ask: (question: AskedQuestion, signal: AbortSignal) =>
            new Promise<QuestionAnswer>((resolve) => {
              const done = (answer: QuestionAnswer) => {
                answers.delete(question.id);
                signal.removeEventListener("abort", onAbort);
                resolve(answer);
              };
              const onAbort = () => done({ action: "cancel" });
              signal.addEventListener("abort", onAbort, { once: true });
              answers.set(question.id, done);
              write({ event: "question", id: question.id, question });
            }),
        }
      : {}),
  };
}
