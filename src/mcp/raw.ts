/**
 * The raw JSON text of a `tools/call` answer, for integers beyond 2^53: the SDK parses every
 * message with `JSON.parse`, which rounds `12345678901234567890123`; the text a server sent is
 * kept beside the parsed result so the `tools` command prints every digit.
 *
 * How a raw answer is tied to its call: {@link withRawSlot} runs `client.callTool` in an async
 * context; the transport sees the request go out in that context (stdio: the request's id is
 * noted in `send`; Streamable HTTP and HTTP+SSE: the POST's fetch runs in it and its response
 * body is read as it streams) and the answer's text lands in the slot before the SDK parses it.
 * Only answers that hold such an integer are kept.
 *
 * See docs/mcp.md → Integers beyond 2^53; RFC 8259 §6 (numbers beyond IEEE 754 double precision
 * interoperate poorly, so digits are kept as text).
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** Where the raw text of one call's answer goes. */
export interface RawSlot {
  /** The whole JSON-RPC answer as the server sent it (only when it holds an unsafe integer). */
  text?: string;
}

const scope = new AsyncLocalStorage<RawSlot>();

/** Runs `fn` (a `client.callTool`) so that its answer's raw text can land in `slot`. */
export function withRawSlot<T>(slot: RawSlot, fn: () => T): T {
  return scope.run(slot, fn);
}

/** The slot of the call being sent now, if any. */
export function currentRawSlot(): RawSlot | undefined {
  return scope.getStore();
}

/** A digit run long enough to pass 2^53 (16 digits or more). */
const LONG_DIGITS = /\d{16,}/;

/** True when `text` may hold an integer `JSON.parse` would round (a cheap test first). */
export function mayHoldUnsafeInteger(text: string): boolean {
  if (!LONG_DIGITS.test(text)) return false;
  const re = /-?\d{16,}(?:\.\d+)?(?:[eE][+-]?\d+)?/g;
  for (const m of text.matchAll(re)) {
    const n = m[0];
    if (/[.eE]/.test(n)) continue;
    if (!Number.isSafeInteger(Number(n))) return true;
  }
  return false;
}

/**
 * The text of the JSON value at `path` (object keys) inside `text`, with the whitespace between
 * tokens removed and everything else (digits, string escapes) as written; undefined when `text`
 * is not valid JSON there, the path is absent, or an object in the value has a key twice (the
 * text would then stand for more than the parsed value). Never throws.
 */
export function jsonAt(text: string, path: readonly string[]): string | undefined {
  try {
    const reader = new Reader(text);
    return reader.find(path);
  } catch {
    return undefined;
  }
}

/** A JSON scanner that finds one value's span; it builds no values. */
class Reader {
  #at = 0;
  constructor(readonly text: string) {}

  find(path: readonly string[]): string | undefined {
    this.#ws();
    for (const key of path) {
      if (this.text[this.#at] !== "{") return undefined;
      if (!this.#member(key)) return undefined;
    }
    const start = this.#at;
    this.#value();
    return compact(this.text.slice(start, this.#at));
  }

  /** Inside an object at `{`: moves to the value of `key` (the last one, as JSON.parse keeps). */
  #member(key: string): boolean {
    let found = -1;
    this.#at++;
    this.#ws();
    if (this.text[this.#at] === "}") return false;
    for (;;) {
      const k = this.#string();
      this.#ws();
      if (this.text[this.#at++] !== ":") throw new Error("expected :");
      this.#ws();
      if (JSON.parse(k) === key) found = this.#at;
      this.#value();
      this.#ws();
      const c = this.text[this.#at++];
      if (c === "}") break;
      if (c !== ",") throw new Error("expected , or }");
      this.#ws();
    }
    if (found < 0) return false;
    this.#at = found;
    return true;
  }

  #ws(): void {
    while (/[ \t\n\r]/.test(this.text[this.#at] ?? "")) this.#at++;
  }

  #string(): string {
    const start = this.#at;
    if (this.text[this.#at] !== '"') throw new Error("expected a string");
    this.#at++;
    while (this.#at < this.text.length) {
      const c = this.text[this.#at++];
      if (c === "\\") this.#at++;
      else if (c === '"') return this.text.slice(start, this.#at);
    }
    throw new Error("unterminated string");
  }

  #value(): void {
    const c = this.text[this.#at];
    if (c === '"') {
      this.#string();
    } else if (c === "{" || c === "[") {
      const close = c === "{" ? "}" : "]";
      // A key written twice: JSON.parse keeps the last, so the text would show what the value
      // does not hold (what hooks, redaction and the policy saw). Such text is not kept.
      const keys = c === "{" ? new Set<string>() : undefined;
      this.#at++;
      this.#ws();
      if (this.text[this.#at] === close) {
        this.#at++;
        return;
      }
      for (;;) {
        if (keys) {
          const key = JSON.parse(this.#string()) as string;
          if (keys.has(key)) throw new Error("a key written twice");
          keys.add(key);
          this.#ws();
          if (this.text[this.#at++] !== ":") throw new Error("expected :");
          this.#ws();
        }
        this.#value();
        this.#ws();
        const d = this.text[this.#at++];
        if (d === close) return;
        if (d !== ",") throw new Error("expected , or the end");
        this.#ws();
      }
    } else {
      const m = /^(?:-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(this.text.slice(this.#at, this.#at + 4096));
      if (!m) throw new Error("expected a value");
      this.#at += m[0].length;
    }
  }
}

/** `text` (valid JSON) without whitespace between tokens. */
function compact(text: string): string {
  let out = "";
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      out += c;
      if (c === "\\") out += text[++i];
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
      out += c;
    } else if (c !== " " && c !== "\t" && c !== "\n" && c !== "\r") out += c;
  }
  return out;
}

/**
 * Reads the JSON-RPC messages of a response body as it streams (an SSE stream's `data:` events,
 * or a whole `application/json` body) and hands each message's text to `onMessage`. Feed it
 * chunks with `push`, then call `end`. Never throws.
 */
export function bodyReader(sse: boolean, onMessage: (text: string) => void): { push(chunk: Uint8Array): void; end(): void } {
  const decoder = new TextDecoder();
  let pending = "";
  let data: string[] = [];
  const dispatch = (text: string) => {
    try {
      onMessage(text);
    } catch {}
  };
  const lines = (final: boolean) => {
    let at: number;
    while ((at = pending.search(/\r\n|\n|\r/)) !== -1) {
      const line = pending.slice(0, at);
      pending = pending.slice(pending[at] === "\r" && pending[at + 1] === "\n" ? at + 2 : at + 1);
      if (line === "") {
        if (data.length) dispatch(data.join("\n"));
        data = [];
      } else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
    }
    if (final && data.length) dispatch(data.join("\n"));
  };
  return {
    push(chunk) {
      pending += decoder.decode(chunk, { stream: true });
      if (sse) lines(false);
    },
    end() {
      pending += decoder.decode();
      if (sse) lines(true);
      else if (pending.trim()) dispatch(pending);
    },
  };
}
