/**
 * The depth rule of tool inputs and HTTP API bodies (`refuseDeepInput`, at most
 * `MAX_INPUT_DEPTH` levels) applied to the JSON-RPC messages a gateway client sends (over HTTP and stdio),
 * before the SDK or toolshell walks them: each field of a message, and each field of its `params`
 * or `result` (a `tools/call`'s `arguments`, an elicitation answer's `content`), is checked as the
 * API checks each field of a body.
 *
 * See docs/security.md → What each limit defends.
 */
import { refuseDeepInput } from "../shell/index.js";

/** A JSON-RPC error response (JSON-RPC 2.0 §5.1). */
export interface JsonRpcErrorResponse {
  jsonrpc: "2.0";
  id: string | number | null;
  error: { code: number; message: string };
}

/**
 * The error answering the first message of `body` (one message, or a batch) that nests deeper
 * than the rule allows: -32602 (invalid params) for a field of `params`/`result`, -32600 (invalid
 * request) for the rest; undefined when every message keeps to the rule.
 */
export function deepMessageError(body: unknown): JsonRpcErrorResponse | undefined {
  for (const message of Array.isArray(body) ? body : [body]) {
    const plain = message !== null && typeof message === "object" && !Array.isArray(message);
    const id = plain ? (message as { id?: unknown }).id : undefined;
    let code = -32600;
    try {
      if (!plain) {
        refuseDeepInput(message, "the message");
        continue;
      }
      for (const [key, value] of Object.entries(message as Record<string, unknown>)) {
        if ((key === "params" || key === "result") && value !== null && typeof value === "object" && !Array.isArray(value)) {
          code = -32602;
          for (const [field, v] of Object.entries(value)) refuseDeepInput(v, JSON.stringify(`${key}.${field}`));
          code = -32600;
        } else refuseDeepInput(value, JSON.stringify(key));
      }
    } catch (err) {
      return { jsonrpc: "2.0", id: typeof id === "string" || typeof id === "number" ? id : null, error: { code, message: `${(err as Error).message}: send a flatter value` } };
    }
  }
  return undefined;
}
