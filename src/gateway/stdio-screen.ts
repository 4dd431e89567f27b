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
  if (Array.isArray(message)) return message.length ? undefined : error(null, -32600, "Invalid Request: an empty batch");
  if (message === null || typeof message !== "object") return error(null, -32600, "Invalid Request: a message is a JSON object");
  const m = message as Record<string, unknown>;
  const idOk = !("id" in m) || m.id === null || typeof m.id === "string" || typeof m.id === "number";
  if (!idOk) return error(null, -32600, "Invalid Request: id must be a string, a number or null");
  const id = (m.id ?? null) as JsonRpcErrorResponse["id"];
  if (m.jsonrpc !== "2.0") return error(id, -32600, 'Invalid Request: jsonrpc must be "2.0"');
  if (typeof m.method !== "string" && !("result" in m) && !("error" in m)) return error(id, -32600, "Invalid Request: a request or notification names its method");
  return undefined;
}

/**
 * `input` as the SDK's stdio transport reads it, less the lines {@link lineError} answers: those
 * answers are written to `output` (one line each), as the transport writes its own.
 */
export function screenedLines(input: Readable, output: Writable): Readable {
  let rest = "";
  const screen = new Transform({
    transform(chunk: Buffer, _enc, done) {
      rest += chunk.toString("utf8");
      let at: number;
      let pass = "";
      while ((at = rest.indexOf("\n")) >= 0) {
        const line = rest.slice(0, at).replace(/\r$/, "");
        rest = rest.slice(at + 1);
        if (!line.trim()) continue;
        const answer = lineError(line);
        if (answer) output.write(`${JSON.stringify(answer)}\n`);
        else if (answer === undefined) pass += `${line}\n`;
      }
      done(null, pass || undefined);
    },
    flush(done) {
      const line = rest.trim();
      rest = "";
      const answer = line ? lineError(line) : undefined;
      if (answer) output.write(`${JSON.stringify(answer)}\n`);
      done(null, line && answer === undefined ? `${line}\n` : undefined);
    },
  });
  input.pipe(screen);
  return screen;
}
