/**
 * One MCP server's log file: its stderr and our connection events, never the script's output.
 *
 * See README → Configuration (`logDir`).
 */
import { createWriteStream, type WriteStream } from "node:fs";
import { openPrivateLog } from "../config/private-files.js";
import path from "node:path";
import type { Stream } from "node:stream";

/** Default folder of server logs, relative to the process's working directory. */
export const DEFAULT_LOG_DIR = path.join(".toolshell", "logs");

const TAIL_CHARS = 2000;

/** The log file of a server name: `<logDir>/<name>.log`, unsafe file-name characters as `_`. */
export function logFileFor(logDir: string, server: string): string {
  return path.resolve(logDir, `${server.replace(/[^A-Za-z0-9._-]/g, "_")}.log`);
}

/**
 * Appends to one server's log file, opened on first write (folders created). A file that cannot
 * be written disables logging; nothing here throws.
 */
/** A stack frame of JavaScript (`    at f (file:1:2)`), Python (`  File "…", line 3`) or Go (`\t/path/x.go:12`). */
const STACK_FRAME = /^\s+(at\s|File\s"|\/\S+\.go:\d)/;
/** A line that states an error: `Error: …`, `TypeError: …`, `ModuleNotFoundError: …`, `error: …`, `fatal: …`, `panic: …`. */
const ERROR_LINE = /^\s*(\w*(Error|Exception)\b|error\b|fatal\b|panic\b)/i;

export class ServerLog {
  readonly file: string;
  #stream: WriteStream | undefined;
  #broken = false;
  #tail = "";

  constructor(file: string) {
    this.file = file;
  }

  /** Copies a child's stderr stream into the log and keeps its last ~2,000 characters. */
  attach(stderr: Stream | null): void {
    if (!stderr) return;
    stderr.on("data", (chunk: Buffer | string) => {
      const text = chunk.toString();
      this.#tail = (this.#tail + text).slice(-TAIL_CHARS);
      this.#write(text);
    });
    stderr.on("error", () => {});
  }

  /** Writes one timestamped line of ours, e.g. `[2025-01-01T00:00:00.000Z] toolshell: started pid 42`. */
  line(text: string): void {
    this.#write(`[${new Date().toISOString()}] toolshell: ${text}\n`);
  }

  /** The last stderr output (trimmed to its last lines), for start-failure messages. */
  tail(): string {
    // Whole lines only (a line over 300 characters is left out), so a secret is never cut in
    // two and the redactor always sees it whole. Stack frames and blank lines say nothing a
    // person acts on; the last line that states an error (`Error: Cannot find module …`) is kept
    // even when a runtime printed more lines after it (Node's `{ code: … }` and version lines).
    const kept = this.#tail.split("\n").filter((l) => l.length <= 300 && l.trim() !== "" && !STACK_FRAME.test(l));
    let lines = kept.slice(-5);
    const stated = [...kept].reverse().find((l) => ERROR_LINE.test(l));
    if (stated !== undefined && !lines.includes(stated)) lines = [stated, ...lines.slice(-3)];
    while (lines.join("\n").length > 500) lines.splice(stated !== undefined && lines[0] === stated ? 1 : 0, 1);
    return lines.join("\n");
  }

  /** Forgets the kept stderr tail (at each new start). */
  resetTail(): void {
    this.#tail = "";
  }

  /** Flushes and closes the file; later writes are dropped. */
  async close(): Promise<void> {
    this.#broken = true;
    const stream = this.#stream;
    this.#stream = undefined;
    if (!stream) return;
    await new Promise<void>((resolve) => stream.end(resolve));
  }

  #write(text: string): void {
    if (this.#broken) return;
    try {
      if (!this.#stream) {
        // Owner-only, as the daemon socket and the store: a server's stderr may hold its secrets
        // (docs/security.md "Who acts for whom"). A file or folder made earlier is narrowed too.
        const fd = openPrivateLog(this.file);
        this.#stream = createWriteStream(this.file, { fd });
        this.#stream.on("error", () => {
          this.#broken = true;
          this.#stream = undefined;
        });
      }
      this.#stream.write(text);
    } catch {
      this.#broken = true;
    }
  }
}
