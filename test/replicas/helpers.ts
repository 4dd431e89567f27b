/**
 * Real replicas for the multi-replica tests: `toolshell serve` or `toolshell mcp --http`
 * processes (node dist/cli/main.js, after `npm run build`) on 127.0.0.1 with free ports, over
 * one real PostgreSQL database from test/fixtures/postgres.ts. Each replica logs what its local
 * tools really ran to one shared file (test/fixtures/replicas/agent/tools). Every process is
 * killed and every file removed in `t.after`.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { TestContext } from "node:test";
import { defineTool, type ToolDefinition } from "../../src/index.js";
import { apiCaller, type ApiAnswer } from "../fixtures/api-call.js";
import { freshDatabase } from "../fixtures/postgres.js";
import { REPO_ROOT } from "../fixtures/mcp/index.js";

export const CLI = path.join(REPO_ROOT, "dist/cli/main.js");
export const TOKEN = "replica-test-token-0123456789";
const TOOLS = path.join(REPO_ROOT, "test/fixtures/replicas/agent/tools");

/** One running replica. */
export interface Replica {
  name: string;
  url: string;
  child: ChildProcess;
  /** Everything it wrote on stderr so far. */
  stderr(): string;
}

/** A database, a config over it and a log file, shared by the replicas of one test. */
export interface Deployment {
  dir: string;
  dbUrl: string;
  config: string;
  log: string;
  /** Lines of the log file (what the tools really ran). */
  lines(): string[];
  start(name: string, options?: { kind?: "serve" | "mcp"; env?: Record<string, string> }): Promise<Replica>;
}

/** A fresh database and config; `extra` is merged into the config. */
export async function deployment(t: TestContext, extra: Record<string, unknown> = {}): Promise<Deployment> {
  assert.ok(existsSync(CLI), "run `npm run build` first");
  const children: ChildProcess[] = [];
  const dir = mkdtempSync(path.join(tmpdir(), "toolshell-replicas-"));
  // Registered before the database's drop (t.after hooks run in order): the replicas stop first.
  t.after(async () => {
    await Promise.all(children.map((c) => stop(c)));
    rmSync(dir, { recursive: true, force: true });
  });
  const dbUrl = await freshDatabase(t);
  const config = path.join(dir, "toolshell.config.json");
  const log = path.join(dir, "ran.log");
  writeFileSync(log, "");
  writeFileSync(config, JSON.stringify({ store: dbUrl, tools: TOOLS, server: { tokens: [TOKEN] }, ...extra }));
  const start = async (name: string, options: { kind?: "serve" | "mcp"; env?: Record<string, string> } = {}): Promise<Replica> => {
    const args = options.kind === "mcp" ? ["mcp", "--http", "0", "--config", config] : ["serve", "--port", "0", "--config", config];
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: dir,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, TOOLSHELL_TEST_LOG: log, TOOLSHELL_TEST_REPLICA: name, ...options.env },
    });
    children.push(child);
    let err = "";
    child.stderr!.on("data", (c: Buffer) => (err += c.toString()));
    child.stdout!.resume();
    const url = await new Promise<string>((resolve, reject) => {
      const look = () => {
        const m = /serving (?:Streamable HTTP at )?(http:\/\/127\.0\.0\.1:\d+(?:\/mcp)?)/.exec(err);
        if (m) resolve(m[1]);
      };
      child.stderr!.on("data", look);
      child.once("exit", (code) => reject(new Error(`replica ${name} exited (${code}) before serving:\n${err}`)));
    });
    return { name, url, child, stderr: () => err };
  };
  return { dir, dbUrl, config, log, lines: () => readFileSync(log, "utf8").split("\n").filter(Boolean), start };
}

/** Stops a replica (SIGTERM, then SIGKILL if it lingers) and waits for it to exit. */
export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  await exited;
  clearTimeout(timer);
}

/** Kills a replica with SIGKILL and waits until it is gone. */
export async function kill(r: Replica): Promise<void> {
  const exited = new Promise<void>((resolve) => r.child.once("exit", () => resolve()));
  r.child.kill("SIGKILL");
  await exited;
}

/** One HTTP API call to a replica with the test token. */
export function api(r: Replica, method: string, p: string, body?: unknown): Promise<ApiAnswer> {
  return apiCaller(r.url, TOKEN)(method, p, body);
}

/** Calls `check` until it returns a value (not undefined), pausing `everyMs` between tries, at most `tries` times. */
export async function until<T>(check: () => Promise<T | undefined>, what: string, tries = 600, everyMs = 100): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const v = await check();
    if (v !== undefined) return v;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  throw new Error(`gave up waiting for ${what}`);
}

/** A local tool `wait` that notes "wait" in `ran` and answers only once the test calls `release()`. */
export function gatedWait(ran: string[]): { wait: ToolDefinition; release: () => void } {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const wait = defineTool({
    description: "Waits for the test to let it go.",
    hints: { destructive: false, openWorld: false },
    inputSchema: { type: "object", properties: {} },
    execute: async () => {
      ran.push("wait");
      await gate;
      return "let go";
    },
  });
  return { wait, release };
}
