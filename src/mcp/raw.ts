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
import { contextSlot } from "../async/context.js";
import { isLosslessNumber, parse, stringify } from "lossless-json";

/** Where the raw text of one call's answer goes. */
export interface RawSlot {
  /** The whole JSON-RPC answer as the server sent it (only when it holds an unsafe integer). */
  text?: string;
}

const scope = contextSlot<RawSlot>("toolshell.raw-slot");

/** Runs `fn` (a `client.callTool`) so that its answer's raw text can land in `slot`. */
export function withRawSlot<T>(slot: RawSlot, fn: () => T): T {
  return scope.run(slot, fn);
}

/** The slot of the call being sent now, if any. */
export function currentRawSlot(): RawSlot | undefined {
  return scope.get();
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
 * The text of the JSON value at `path` (object keys) inside `text`, written compactly with every
 * number's digits as sent (`lossless-json`); undefined when `text` is not valid JSON, the path is
 * absent, or an object has a key twice with different values (the text would then stand for
 * more than the parsed value: what hooks, redaction and the policy saw). Never throws.
 */
export function jsonAt(text: string, path: readonly string[]): string | undefined {
  try {
    let value: unknown = parse(text);
    for (const key of path) {
      if (typeof value !== "object" || value === null || Array.isArray(value) || isLosslessNumber(value) || !Object.hasOwn(value, key)) return undefined;
      value = (value as Record<string, unknown>)[key];
    }
    return stringify(value);
  } catch {
    return undefined;
  }
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
