/**
 * The CLI's side of the warm host (README "The CLI" → "The warm host"): where a config's host
 * listens, how a run reaches it, and how it is started, checked and stopped.
 *
 * One host per config file and user (and per store, workspace and time limit, which shape the
 * host): a Unix socket named by a hash of those, in a folder only the user can enter
 * (`$TOOLSHELL_DAEMON_DIR`, else `<tmpdir>/toolshell-<uid>`, mode 0700, checked before use);
 * the socket itself is 0600. Each request carries the config's fingerprint (its bytes and the
 * values of the environment variables it names); a host started from another fingerprint
 * exits and a new one is started. This module loads no part of toolshell's runtime, so a warm
 * run costs little more than Node's own start.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { lstatSync, mkdirSync, readdirSync, realpathSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
// Types only: the client loads nothing of the call pipeline (a warm `exec` starts fast, README "Performance").
import type { AskedQuestion } from "../call/index.js";
import { isPostgresUrl } from "../config/store-location.js";
import type { QuestionAnswer } from "../tool/index.js";
import type { CliOutcome, CliRequest, CommonOptions } from "./commands.js";
import { configFingerprint } from "./fingerprint.js";

export { configFingerprint };

/** What shapes a host: the same values reach the same host. */
export interface HostKey {
  /** Absolute path of the config file. */
  config: string;
  store?: string;
  workspace?: string;
  timeout?: string;
}

/**
 * A request to the host, one JSON line; the answer is one JSON line. Before the answer of an
 * `exec`, the host may send {@link DaemonEvent} lines (progress; a question when the request said
 * `terminal: true`), and the client answers a question with a `{answer_to, answer}` line.
 */
export type DaemonRequest =
  | { kind: "exec"; script: string; session: string; fingerprint: string; terminal?: boolean; stdin?: string }
  | { kind: "plan"; script: string; session: string; fingerprint: string }
  | { kind: "list"; session: string; fingerprint: string }
  | { kind: "approvals"; session?: string; json: boolean; fingerprint: string }
  | { kind: "approve"; requestId: string; decision: string; session?: string; fingerprint: string }
  | { kind: "servers"; fingerprint: string }
  | { kind: "status" }
  | { kind: "stop" };

/** The host's answer to a run: what to print and the exit code (see commands.ts `CliOutcome`). */
export interface DaemonAnswer extends Partial<CliOutcome> {
  /** The config changed since the host started: it is exiting; start a new one. */
  restart?: boolean;
  /** `status`: about the host. */
  status?: { pid: number; config: string; startedAt: string; idleSeconds: number; served: number; workspace?: string; timeout?: string; store?: string };
  /** `servers`: the host's MCP servers as it has them (`toolshell servers list`). */
  servers?: { pid: number; list: import("../server/index.js").ServerListing[] };
  /** An error the host met (printed as `toolshell: …`, exit 2). */
  error?: string;
}

/**
 * The environment variable that hands a host its `--store`. The store never goes on the host's
 * command line, which every user sees in `ps`: a `postgres://` URL may hold a password
 * (README "The CLI" → "The warm host").
 */
export const HOST_STORE_ENV = "TOOLSHELL_DAEMON_STORE";

/**
 * The store the starting run handed this host ({@link HOST_STORE_ENV}), taken out of the
 * environment so that nothing the host starts inherits it.
 */
export function takeHostStore(): string | undefined {
  const store = process.env[HOST_STORE_ENV];
  delete process.env[HOST_STORE_ENV];
  return store || undefined;
}

/** What the CLI does with the host's events: print a progress line, ask a question on its terminal. */
export interface DaemonRelay {
  line(text: string): void;
  ask?(question: AskedQuestion): Promise<QuestionAnswer>;
}

/** What the host sends while a run goes on (see DaemonRequest). */
export type DaemonEvent = { event: "progress"; line: string } | { event: "question"; id: string; question: AskedQuestion };


/** Default idle time before a host exits, seconds. */
export const DEFAULT_IDLE_SECONDS = 300;

/**
 * The private folder of the user's host sockets, created 0700 when missing.
 * @throws Error when it exists but is not a folder owned by this user with no access for others.
 */
export function daemonDir(): string {
  const uid = process.getuid?.() ?? 0;
  const dir = process.env.TOOLSHELL_DAEMON_DIR ?? path.join(tmpdir(), `toolshell-${uid}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir);
  if (!st.isDirectory() || st.uid !== uid || (st.mode & 0o077) !== 0) {
    throw new Error(`${dir} is not a private folder of this user (want a directory, owner ${uid}, mode 0700)`);
  }
  return dir;
}

/** The socket path (and log path) of the host for `key`. */
export function hostPaths(key: HostKey): { socket: string; log: string; id: string } {
  const id = createHash("sha256")
    .update(JSON.stringify([process.getuid?.() ?? 0, realpathSync(key.config), key.store ?? "", key.workspace ?? "", key.timeout ?? ""]))
    .digest("hex")
    .slice(0, 16);
  const dir = daemonDir();
  return { socket: path.join(dir, `${id}.sock`), log: path.join(dir, `${id}.log`), id };
}

/**
 * Sends one request and reads the one-line answer.
 * @throws Error with `code` ENOENT / ECONNREFUSED when no host listens, or when the host closed
 *   without answering.
 */
export function request(socket: string, req: DaemonRequest, relay?: DaemonRelay): Promise<DaemonAnswer> {
  return new Promise((resolve, reject) => {
    const c = connect(socket);
    let buf = "";
    let done = false;
    c.setEncoding("utf8");
    c.on("connect", () => c.write(`${JSON.stringify(req)}\n`));
    c.on("data", (d: string) => {
      buf += d;
      let nl: number;
      while (!done && (nl = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        let message: DaemonAnswer & Partial<DaemonEvent>;
        try {
          message = JSON.parse(line) as DaemonAnswer & Partial<DaemonEvent>;
        } catch (e) {
          done = true;
          c.end();
          reject(e);
          return;
        }
        // Lines before the answer: a run's progress and questions (see DaemonRequest).
        if (message.event === "progress") {
          relay?.line(String(message.line));
          continue;
        }
        if (message.event === "question") {
          const { id, question } = message as Extract<DaemonEvent, { event: "question" }>;
          const asked = relay?.ask ? relay.ask(question) : Promise.resolve<QuestionAnswer>({ action: "decline" });
          void asked.catch((): QuestionAnswer => ({ action: "cancel" })).then((answer) => c.write(`${JSON.stringify({ answer_to: id, answer })}\n`));
          continue;
        }
        done = true;
        c.end();
        resolve(message);
      }
    });
    c.on("error", (e) => {
      if (!done) reject(e);
      done = true;
    });
    c.on("close", () => {
      if (!done) reject(Object.assign(new Error("the toolshell host closed the connection without answering"), { code: "ECONNRESET" }));
      done = true;
    });
  });
}

/** No host could answer: none listens, or it went away mid-request (it was exiting). */
const gone = (e: unknown) => ["ENOENT", "ECONNREFUSED", "ECONNRESET", "EPIPE"].includes((e as NodeJS.ErrnoException).code ?? "");

/**
 * Starts a host for `key` in the background and returns at once. The host listens right away
 * but opens the config (servers, store) only once process `afterPid` (this CLI run, which does
 * its own work in-process meanwhile) has exited, so the first run costs what a run without a
 * host costs and the two never start the same servers side by side.
 */
export function startHost(key: HostKey, idleSeconds: number, afterPid: number): void {
  const { log } = hostPaths(key);
  // The CLI's own entry (dist/cli/main.js, or main.ts under tsx in development).
  const main = process.argv[1] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), "main.js");
  const args = [main, "--config", key.config, "daemon", "serve", "--idle", String(idleSeconds), "--after-pid", String(afterPid)];
  if (key.workspace) args.splice(3, 0, "--workspace", key.workspace);
  if (key.timeout) args.splice(3, 0, "--timeout", key.timeout);
  const env: NodeJS.ProcessEnv = { ...process.env, TOOLSHELL_DAEMON_LOG: log };
  delete env[HOST_STORE_ENV];
  if (key.store) env[HOST_STORE_ENV] = key.store;
  const child = spawn(process.execPath, [...process.execArgv, ...args], {
    detached: true,
    stdio: "ignore",
    cwd: path.dirname(key.config),
    env,
  });
  child.on("error", () => {});
  child.unref();
  // Waits (up to 10 s, while this run works) until the host listens, so the next run finds it.
  starting = (async () => {
    const { socket } = hostPaths(key);
    for (let i = 0; i < 400; i++) {
      try {
        await request(socket, { kind: "status" });
        return;
      } catch {}
      await new Promise((r) => setTimeout(r, 25));
    }
  })();
}

let starting: Promise<void> | null = null;

/** Resolves once a host this process started listens (at once when it started none). */
export function hostStarted(): Promise<void> {
  return starting ?? Promise.resolve();
}

/**
 * Sends a run to the host for `key`. Returns its answer, or null when no host can take it now
 * (none runs, or it ran an older config and is exiting): then a host has been started for the
 * next run and the caller does this one in-process.
 */
export async function viaHost(key: HostKey, req: DaemonRequest, idleSeconds: number, relay?: DaemonRelay): Promise<DaemonAnswer | null> {
  const { socket } = hostPaths(key);
  let answer: DaemonAnswer;
  try {
    answer = await request(socket, req, relay);
  } catch (e) {
    if (!gone(e)) throw e;
    startHost(key, idleSeconds, process.pid);
    return null;
  }
  if (!answer.restart) return answer;
  await waitGone(socket);
  startHost(key, idleSeconds, process.pid);
  return null;
}

/** Waits (up to 10 s) until nothing answers on `socket`. */
export async function waitGone(socket: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    try {
      await request(socket, { kind: "status" });
    } catch (e) {
      if (gone(e)) return;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * The hosts `toolshell daemon status|stop` is about: the one of `key` when the invocation names a
 * `--workspace`, `--store` or `--timeout`, else every host of the config, whatever it was started
 * with (`npm start` runs with `--workspace`; `daemon status --config FILE` still finds that host).
 * @returns each running host's socket and status.
 */
export async function hostsOf(key: HostKey): Promise<{ socket: string; status: NonNullable<DaemonAnswer["status"]> }[]> {
  const narrowed = key.store !== undefined || key.workspace !== undefined || key.timeout !== undefined;
  const dir = daemonDir();
  const sockets = narrowed ? [hostPaths(key).socket] : readdirSync(dir).filter((f) => f.endsWith(".sock")).map((f) => path.join(dir, f));
  const config = realpathSync(key.config);
  const out: { socket: string; status: NonNullable<DaemonAnswer["status"]> }[] = [];
  for (const socket of sockets) {
    try {
      const status = (await request(socket, { kind: "status" })).status;
      if (status && (narrowed || sameFile(status.config, config))) out.push({ socket, status });
    } catch (e) {
      if (!gone(e)) throw e;
    }
  }
  return out;
}

/** A running host of `key` (see {@link hostsOf}: any of the config's when `key` is not narrowed), or null. */
export async function hostStatus(key: HostKey): Promise<DaemonAnswer["status"] | null> {
  return (await hostsOf(key))[0]?.status ?? null;
}

function sameFile(a: string, b: string): boolean {
  try {
    return realpathSync(a) === b;
  } catch {
    return false;
  }
}

/** A store as `daemon status` shows it: a `postgres://` URL without its password. */
export function shownStore(store: string | undefined): string | undefined {
  if (store === undefined || !isPostgresUrl(store)) return store;
  try {
    const url = new URL(store);
    if (url.password) url.password = "***";
    return url.toString();
  } catch {
    return "postgres://…";
  }
}

/** Stops the host listening on `socket`; false when none was. */
export async function stopSocket(socket: string): Promise<boolean> {
  let pid: number | undefined;
  try {
    pid = (await request(socket, { kind: "status" })).status?.pid;
    await request(socket, { kind: "stop" });
  } catch (e) {
    if (gone(e)) return false;
    throw e;
  }
  await waitGone(socket);
  // The host closes its servers and store before it exits: wait for that (up to 60 s).
  for (let i = 0; pid && i < 3000; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      break;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

/** The host key of a CLI invocation's options (paths made absolute against the working folder). */
export function hostKey(configFile: string, options: CommonOptions): HostKey {
  return {
    config: path.resolve(configFile),
    store: options.store === undefined ? undefined : options.store === ":memory:" || isPostgresUrl(options.store) ? options.store : path.resolve(options.store),
    workspace: options.workspace === undefined ? undefined : path.resolve(options.workspace),
    timeout: options.timeout,
  };
}

/** Idle seconds for a host this run starts: `--daemon-idle`, else `$TOOLSHELL_DAEMON_IDLE`, else 300. */
export function idleSeconds(options: CommonOptions): number {
  const v = options.daemonIdle ?? process.env.TOOLSHELL_DAEMON_IDLE;
  if (v === undefined) return DEFAULT_IDLE_SECONDS;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--daemon-idle takes a positive number of seconds, got ${v}`);
  return n;
}

/**
 * Runs a CLI request on the config's warm host: the outcome to print, and how to record a
 * person's answer afterwards (through the same host); null when the caller should run it
 * in-process (no host yet: one is starting for the next run).
 * @throws Error for the user (the host's own error, or one it could not start with).
 */
export async function viaWarmHost(
  configFile: string,
  req: CliRequest,
  script: string | undefined,
  relay?: DaemonRelay,
): Promise<{ outcome: CliOutcome; answer: (requestId: string, decision: string) => Promise<unknown> } | null> {
  const key = hostKey(configFile, req.options);
  const idle = idleSeconds(req.options);
  const session = req.options.session ?? "cli";
  const send = async (r: DaemonRequest): Promise<DaemonAnswer> => {
    const a = await request(hostPaths(key).socket, r);
    if (a.error !== undefined) throw new Error(a.error);
    return a;
  };
  const fingerprint = configFingerprint(key.config);
  let r: DaemonRequest;
  if (req.kind === "exec" || req.kind === "run") r = { kind: "exec", script: script ?? "", session, fingerprint, terminal: relay?.ask !== undefined, ...(req.stdin !== undefined ? { stdin: req.stdin } : {}) };
  else if (req.kind === "plan") r = { kind: "plan", script: script ?? "", session, fingerprint };
  // Approvals are found across sessions: no --session means every session, not `cli`.
  else if (req.kind === "approve") r = { kind: "approve", requestId: req.requestId, decision: req.decision, session: req.options.session, fingerprint };
  else if (req.kind === "approvals") r = { kind: "approvals", session: req.options.session, json: req.json, fingerprint };
  else r = { kind: req.kind, session, fingerprint };
  const a = await viaHost(key, r, idle, relay);
  if (!a) return null;
  if (a.error !== undefined) throw new Error(a.error);
  return {
    outcome: { stdout: a.stdout ?? "", stderr: a.stderr ?? "", code: a.code ?? 0, stopped: a.stopped, report: a.report },
    answer: (requestId, decision) => send({ kind: "approve", requestId, decision, session, fingerprint }),
  };
}
