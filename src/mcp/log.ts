/**
 * One MCP server's log file: its stderr and our connection events, never the script's output.
 * Everything written to it goes through the host's redactor first (docs/security.md "Secrets" →
 * Server logs): toolshell's own lines and the server's stderr, line by line.
 *
 * See README → Configuration (`logDir`).
 */
import { createWriteStream, type WriteStream } from "node:fs";
import { StringDecoder } from "node:string_decoder";
import { openPrivateLog } from "../config/private-files.js";
import path from "node:path";
import type { Stream } from "node:stream";

/** Default folder of server logs, relative to the process's working directory. */
export const DEFAULT_LOG_DIR = path.join(".toolshell", "logs");

const TAIL_CHARS = 2000;

/**
 * The longest part of a stderr line held back until its end comes; past it, what is held is
 * written (redacted) as it is, so a server that never ends its line cannot grow memory.
 */
export const MAX_HELD_LINE = 64 * 1024;

/** Written in place of text the redactor failed on: nothing derived from that text. */
export const UNREDACTED_LINE = "(a line that could not be redacted was left out)";

/**
 * What a server log redacts with: the host's redactor (`call/redact/`), the one rule of what a
 * secret is, including the secrets it learns while running.
 */
export interface LogRedactor {
  text(s: string): string;
}

/** The log file of a server name: `<logDir>/<name>.log`, unsafe file-name characters as `_`. */
export function logFileFor(logDir: string, server: string): string {
  return path.resolve(logDir, `${server.replace(/[^A-Za-z0-9._-]/g, "_")}.log`);
}

/** A stack frame of JavaScript (`    at f (file:1:2)`), Python (`  File "…", line 3`) or Go (`\t/path/x.go:12`). */
const STACK_FRAME = /^\s+(at\s|File\s"|\/\S+\.go:\d)/;
/** A line that states an error: `Error: …`, `TypeError: …`, `ModuleNotFoundError: …`, `error: …`, `fatal: …`, `panic: …`. */
const ERROR_LINE = /^\s*(\w*(Error|Exception)\b|error\b|fatal\b|panic\b)/i;

/**
 * Appends to one server's log file, opened on first write (folders created, owner-only). Every
 * write — toolshell's own lines and the server's stderr — passes through `redactor` first; a
 * text it fails on is written as {@link UNREDACTED_LINE}. A file that cannot be written disables
 * logging; nothing here throws.
 */
export class ServerLog {
  readonly file: string;
  readonly #redactor: LogRedactor;
  #stream: WriteStream | undefined;
  #broken = false;
  #tail = "";
  /** Writes what each attached stderr holds back (a line not ended yet). */
  readonly #flushes = new Set<() => void>();

  constructor(file: string, redactor: LogRedactor) {
    this.file = file;
    this.#redactor = redactor;
  }

  /**
   * Copies a child's stderr stream into the log and keeps its last ~2,000 characters. Whole
   * lines are redacted and written as they end (the lines of one read together), so a secret is
   * seen whole; a line not ended is written when the stream ends, the log closes, or it grows past
   * {@link MAX_HELD_LINE}.
   */
  attach(stderr: Stream | null): void {
    if (!stderr) return;
    const decoder = new StringDecoder("utf8");
    let held = "";
    const flush = () => {
      held += decoder.end();
      if (held) this.#write(held);
      held = "";
    };
    stderr.on("data", (chunk: Buffer | string) => {
      const text = typeof chunk === "string" ? chunk : decoder.write(chunk);
      this.#keepTail(text);
      held += text;
      const end = held.lastIndexOf("\n") + 1;
      if (end > 0) {
        this.#write(held.slice(0, end));
        held = held.slice(end);
      }
      if (held.length > MAX_HELD_LINE) {
        this.#write(held);
        held = "";
      }
    });
    const done = () => {
      flush();
      this.#flushes.delete(done);
    };
    this.#flushes.add(done);
    stderr.on("end", done);
    stderr.on("close", done);
    stderr.on("error", () => {});
  }

  /** Writes one timestamped line of ours, e.g. `[2025-01-01T00:00:00.000Z] toolshell: started pid 42`. */
  line(text: string): void {
    this.#write(`[${new Date().toISOString()}] toolshell: ${text}\n`);
  }

  /** The last stderr output (trimmed to its last lines), redacted, for start-failure messages. */
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
    return this.redacted(lines.join("\n"));
  }

  /** Forgets the kept stderr tail (at each new start). */
  resetTail(): void {
    this.#tail = "";
  }

  /** Writes what attached streams hold back, then flushes and closes the file; later writes are dropped. */
  async close(): Promise<void> {
    for (const flush of [...this.#flushes]) flush();
    this.#broken = true;
    const stream = this.#stream;
    this.#stream = undefined;
    if (!stream) return;
    await new Promise<void>((resolve) => stream.end(resolve));
  }

  /** Keeps the last {@link TAIL_CHARS} of stderr, starting at a line's start (a cut line is dropped, not half kept). */
  #keepTail(text: string): void {
    const all = this.#tail + text;
    if (all.length <= TAIL_CHARS) {
      this.#tail = all;
      return;
    }
    const from = all.indexOf("\n", all.length - TAIL_CHARS - 1);
    this.#tail = from === -1 ? "" : all.slice(from + 1);
  }

  /** `text` through the redactor; {@link UNREDACTED_LINE} when it fails (nothing of `text` is kept). */
  redacted(text: string): string {
    try {
      return this.#redactor.text(text);
    } catch {
      return UNREDACTED_LINE;
    }
  }

  /** The one door to the file: every text is redacted here. */
  #write(text: string): void {
    if (this.#broken) return;
    const redacted = this.redacted(text);
    const out = redacted === UNREDACTED_LINE ? `[${new Date().toISOString()}] toolshell: ${UNREDACTED_LINE}\n` : redacted;
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
      this.#stream.write(out);
    } catch {
      this.#broken = true;
    }
  }
}
