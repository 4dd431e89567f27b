/**
 * The stdio transport of an MCP client, with the server in its own process group.
 *
 * A server launched through `npx`, `uvx` or a shell script is a tree of processes; ending only
 * the first one leaves the rest running. The SDK's `StdioClientTransport` spawns with fixed
 * options (no `detached`), so this transport spawns the server itself as the leader of a new
 * process group and ends the whole group on close (and, as a last resort, when this process
 * exits). Framing and parsing are the SDK's (`serializeMessage`, `deserializeMessage`), and the
 * environment is the SDK's default one plus the config's, as the SDK's transport does.
 *
 * See MCP spec 2025-11-25 "Transports" → stdio (newline-delimited; on shutdown close the input
 * stream, wait for the server to exit, then SIGTERM, then SIGKILL).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { PassThrough } from "node:stream";
import { deserializeMessage, serializeMessage } from "@modelcontextprotocol/client";
import type { Transport, JSONRPCMessage } from "@modelcontextprotocol/client";
import { getDefaultEnvironment } from "@modelcontextprotocol/client/stdio";

/** How long close waits after ending stdin, then after SIGTERM, before the next step. */
const GRACE_MS = 2000;
/** Most bytes of one line before the server is called broken (the SDK's default too). */
const MAX_LINE_BYTES = 10 * 1024 * 1024;

/** Process groups still running, ended when this process exits. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const pgid of liveGroups) signalGroup(pgid, "SIGTERM");
  });
}

/** Sends `signal` to a whole process group (POSIX) or the process (Windows); never throws. */
export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(process.platform === "win32" ? pid : -pid, signal);
  } catch {}
}

/** What {@link GroupStdioTransport} runs. */
export interface GroupStdioParams {
  command: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
}

/**
 * A `Transport` over a child's stdin/stdout, the child leading its own process group. `stderr` is
 * a stream available before `start()`. `onRawLine` sees each line's text before it is parsed
 * (see raw.ts: the digits of integers beyond 2^53).
 */
export class GroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Called with each line's text and the message it parsed to. */
  onRawLine?: (line: string, message: JSONRPCMessage) => void;
  readonly stderr = new PassThrough();
  #params: GroupStdioParams;
  #child: ChildProcess | undefined;
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #pid: number | undefined;

  constructor(params: GroupStdioParams) {
    this.#params = params;
  }

  /** The leader's pid once started (kept after close, for the group). */
  get pid(): number | undefined {
    return this.#pid;
  }

  /** Spawns the server. @throws the spawn error (command not found, not executable). */
  start(): Promise<void> {
    if (this.#child) throw new Error("GroupStdioTransport already started");
    installExitHook();
    return new Promise((resolve, reject) => {
      const child = spawn(this.#params.command, this.#params.args ?? [], {
        env: { ...getDefaultEnvironment(), ...this.#params.env },
        stdio: ["pipe", "pipe", "pipe"],
        cwd: this.#params.cwd,
        detached: process.platform !== "win32",
        windowsHide: true,
      });
      this.#child = child;
      child.on("error", (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.on("spawn", () => {
        this.#pid = child.pid;
        if (child.pid !== undefined && process.platform !== "win32") liveGroups.add(child.pid);
        resolve();
      });
      child.on("close", () => {
        // What was read is delivered before the SDK hears of the close.
        this.#waiting = false;
        this.#drain(true);
        // The leader is gone; what it started may not be.
        if (this.#pid !== undefined) {
          signalGroup(this.#pid, "SIGTERM");
          liveGroups.delete(this.#pid);
        }
        this.#child = undefined;
        this.onclose?.();
      });
      child.stdin?.on("error", (error) => this.onerror?.(error));
      child.stdout?.on("error", (error) => this.onerror?.(error));
      child.stdout?.on("data", (chunk: Buffer) => this.#read(chunk));
      child.stderr?.pipe(this.stderr);
    });
  }

  #read(chunk: Buffer): void {
    let at = chunk.indexOf(0x0a);
    if (at === -1) {
      this.#pending.push(chunk);
      this.#pendingBytes += chunk.length;
      if (this.#pendingBytes > MAX_LINE_BYTES) {
        this.#pending = [];
        this.#pendingBytes = 0;
        this.onerror?.(new Error(`a line from the server is longer than ${MAX_LINE_BYTES} bytes`));
        void this.close();
      }
      return;
    }
    let rest = chunk;
    while (at !== -1) {
      const line = Buffer.concat([...this.#pending, rest.subarray(0, at)]).toString("utf8").replace(/\r$/, "");
      this.#pending = [];
      this.#pendingBytes = 0;
      rest = rest.subarray(at + 1);
      at = rest.indexOf(0x0a);
      if (line.trim() === "") continue;
      try {
        const message = deserializeMessage(line);
        this.onRawLine?.(line, message);
        this.#deliver(message);
      } catch (error) {
        this.onerror?.(error as Error);
      }
    }
    if (rest.length) {
      this.#pending.push(rest);
      this.#pendingBytes = rest.length;
    }
  }

  #queue: JSONRPCMessage[] = [];
  #waiting = false;

  /**
   * Hands messages to the SDK in order. The SDK runs a notification's handler a microtask later
   * but settles a response at once, so a progress notification read in the same chunk as its
   * call's answer would find its handler gone: a message after a notification waits for the
   * next turn of the event loop.
   */
  #deliver(message: JSONRPCMessage): void {
    this.#queue.push(message);
    if (!this.#waiting) this.#drain();
  }

  #drain = (all = false): void => {
    this.#waiting = false;
    while (this.#queue.length) {
      const message = this.#queue.shift()!;
      try {
        this.onmessage?.(message);
      } catch (error) {
        this.onerror?.(error as Error);
      }
      if (!all && "method" in message && !("id" in message)) {
        this.#waiting = true;
        setImmediate(() => this.#waiting && this.#drain());
        return;
      }
    }
  };

  /** Writes one message. @throws Error when not connected. */
  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      const stdin = this.#child?.stdin;
      if (!stdin) throw new Error("Not connected");
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once("drain", resolve);
    });
  }

  /**
   * Ends the server: stdin closed, then SIGTERM to the group after {@link GRACE_MS}, then
   * SIGKILL; the group is signalled even when the leader left first. Never throws.
   */
  async close(): Promise<void> {
    const child = this.#child;
    const pgid = this.#pid;
    if (child) {
      const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
      try {
        child.stdin?.end();
      } catch {}
      await Promise.race([closed, delay(GRACE_MS)]);
      if (child.exitCode === null && child.signalCode === null && pgid !== undefined) {
        signalGroup(pgid, "SIGTERM");
        await Promise.race([closed, delay(GRACE_MS)]);
        if (child.exitCode === null && child.signalCode === null) signalGroup(pgid, "SIGKILL");
      }
    }
    if (pgid !== undefined) {
      signalGroup(pgid, "SIGTERM");
      liveGroups.delete(pgid);
    }
  }

  /** Ends the group at once (a server that failed to start). */
  kill(): void {
    if (this.#pid !== undefined) {
      signalGroup(this.#pid, "SIGKILL");
      liveGroups.delete(this.#pid);
    }
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
