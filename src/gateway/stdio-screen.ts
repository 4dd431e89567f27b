/**
 * The stdio gateway's lines screened before the SDK reads them, so every malformed message gets
 * the JSON-RPC 2.0 error its client waits for (JSON-RPC 2.0 §5.1: -32700 parse error, -32600
 * invalid request, `id` null when it cannot be known) instead of being dropped without a reply:
 * a line that is not JSON, an empty batch, a value that is not a request, a notification or a
 * response, an `id` that is not a string, number or null, and a message nested past the depth
 * rule (deep.ts, which would otherwise run the SDK's own checks out of stack; such a
 * notification is dropped unanswered). The HTTP face
 * answers the same with HTTP statuses (http-server.ts).
 */
import { Transform, type Readable, type Writable } from "node:stream";
import { JSONRPCMessageSchema } from "@modelcontextprotocol/core";
import { deepMessageError, type JsonRpcErrorResponse } from "./deep.js";

const error = (id: JsonRpcErrorResponse["id"], code: number, message: string): JsonRpcErrorResponse => ({ jsonrpc: "2.0", id, error: { code, message } });

/**
 * The error answering one line; null for a line dropped without an answer (a notification nested
 * too deep: a notification is never answered); undefined when the line goes on to the SDK.
 */
export function lineError(line: string): JsonRpcErrorResponse | null | undefined {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch (err) {
    return error(null, -32700, `Parse error: the line is not JSON (${(err as Error).message})`);
  }
  const deep = deepMessageError(message);
  if (deep) return deep.id === null && message !== null && typeof message === "object" && !Array.isArray(message) && "method" in message && !("id" in message) ? null : deep;
  if (Array.isArray(message)) return error(null, -32600, message.length ? "Invalid Request: batches are not part of MCP (since 2025-06-18): send one message a line" : "Invalid Request: an empty batch");
  if (message === null || typeof message !== "object") return error(null, -32600, "Invalid Request: a message is a JSON object");
  const m = message as Record<string, unknown>;
  const idOk = !("id" in m) || m.id === null || typeof m.id === "string" || typeof m.id === "number";
  if (!idOk) return error(null, -32600, "Invalid Request: id must be a string, a number or null");
  const id = (m.id ?? null) as JsonRpcErrorResponse["id"];
  if (m.jsonrpc !== "2.0") return error(id, -32600, 'Invalid Request: jsonrpc must be "2.0"');
  if (typeof m.method !== "string" && !("result" in m) && !("error" in m)) return error(id, -32600, "Invalid Request: a request or notification names its method");
  // Whatever else the SDK's own message schema refuses, it would drop without a word.
  const checked = JSONRPCMessageSchema.safeParse(message);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    const where = issue?.path.length ? `${issue.path.join(".")}: ` : "";
    const known = typeof m.id === "string" || (typeof m.id === "number" && Number.isSafeInteger(m.id)) ? (m.id as JsonRpcErrorResponse["id"]) : null;
    // A notification (no id) is never answered.
    if (!("id" in m)) return null;
    return error(known, -32600, `Invalid Request: not a JSON-RPC message MCP reads (${where}${issue?.message ?? "invalid"})`);
  }
  return undefined;
}

/**
 * The longest line handed on, in bytes with its newline: the SDK's stdio transport holds at most
 * 10 MiB (`STDIO_DEFAULT_MAX_BUFFER_SIZE`) and drops everything it holds past that, the lines
 * after it too, unanswered.
 */
export const MAX_LINE_BYTES = 10 * 1024 * 1024;

/**
 * `input` as the SDK's stdio transport reads it, less the lines {@link lineError} answers: those
 * answers are written to `output` (one line each), as the transport writes its own. Lines are cut
 * at the newline byte (never inside a character) and handed on one at a time; a line longer than
 * {@link MAX_LINE_BYTES} is answered with a parse error (id null) and skipped to its end, without
 * holding it. Each byte is looked at once, however long its line.
 */
export function screenedLines(input: Readable, output: Writable): Readable {
  let parts: Buffer[] = [];
  let held = 0;
  let skipping = false;
  const answer = (a: JsonRpcErrorResponse | null | undefined) => a && output.write(`${JSON.stringify(a)}\n`);
  const tooLong = () => error(null, -32700, `Parse error: a message is at most ${MAX_LINE_BYTES - 1} bytes on one line; this one was longer and was skipped`);
  /** One whole line: answered here, or handed on. */
  const line = (screen: Transform, bytes: Buffer) => {
    const text = bytes.toString("utf8").replace(/\r$/, "");
    if (!text.trim()) return;
    const a = lineError(text);
    if (a === undefined) screen.push(`${text}\n`);
    else answer(a);
  };
  const screen = new Transform({
    transform(chunk: Buffer, _enc, done) {
      let start = 0;
      let at: number;
      while ((at = chunk.indexOf(10, start)) >= 0) {
        if (skipping) skipping = false;
        else if (held + (at - start) + 1 > MAX_LINE_BYTES) answer(tooLong());
        else line(this, parts.length ? Buffer.concat([...parts, chunk.subarray(start, at)]) : chunk.subarray(start, at));
        parts = [];
        held = 0;
        start = at + 1;
      }
      if (start < chunk.length && !skipping) {
        if (held + (chunk.length - start) >= MAX_LINE_BYTES) {
          // Past the bound before its end: answered now, the rest of the line skipped as it comes.
          answer(tooLong());
          parts = [];
          held = 0;
          skipping = true;
        } else {
          parts.push(chunk.subarray(start));
          held += chunk.length - start;
        }
      }
      done();
    },
    flush(done) {
      if (!skipping && held) line(this, Buffer.concat(parts));
      parts = [];
      held = 0;
      done();
    },
  });
  input.pipe(screen);
  return screen;
}
