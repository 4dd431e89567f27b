/**
 * The gateway's `requestState` for 2026-07-28 clients: what a `tools/call` answered with
 * `input_required` needs when the client retries it (the durable step, the approval request, the
 * sign-ins asked), sealed with the SDK's HMAC codec (`createRequestStateCodec`). The codec binds
 * the state to the principal (the client's bearer token, or the stdio process) and makes it expire;
 * the payload binds it to the call: the toolshell session, the tool name and a hash of the input.
 * A state that fails the seal, has expired, or was made for another principal is refused by the
 * SDK (`-32602 Invalid or expired requestState`); one made for another call is refused here
 * (`-32602`, saying which part differs).
 *
 * The key: one random key per process, unless the gateway has a store; then every replica reads
 * the key kept in the store (`shared_state`, kind `gateway`), so a question asked by one replica
 * is answered on another.
 *
 * See MCP spec 2026-07-28 "Multi Round-Trip Requests" (the server MUST protect the integrity of
 * state that influences authorization and MUST reject state that fails verification; state is
 * bound to the user); docs/mcp.md → Gateway, 2026-07-28 clients.
 */
import { createHash, randomBytes } from "node:crypto";
import { createRequestStateCodec, ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import type { RequestStateCodec, ServerContext } from "@modelcontextprotocol/server";
import type { Store } from "../store/index.js";
import type { BashToolResult } from "../surface/index.js";

/** How long a question the gateway asks a 2026 client may wait for its answer (seconds). */
export const REQUEST_STATE_TTL_S = 15 * 60;

/** The shared_state row that keeps the gateway's requestState key. */
const KEY_ROW = { kind: "gateway", key: "request_state_key" } as const;

/** What a gateway `requestState` carries. */
export interface GatewayState {
  /** The toolshell session the call ran in. */
  s: string;
  /** The tool called (`bash` or a direct tool's name). */
  t: string;
  /** SHA-256 of the call's input (canonical JSON). */
  h: string;
  /** What was asked: an approval, or sign-ins. */
  kind: "approval" | "sign_in";
  /** The durable step of a `bash` call (it resumes when asked again). */
  step?: string;
  /** The approval request asked about. */
  request?: string;
  /** The servers whose sign-in was asked, in the order of the input requests `sign_in_<i>`. */
  servers?: string[];
  /** With sign-ins: the call's result (its output bounded as every `bash` result is), answered on the retry. */
  result?: BashToolResult;
}

/** The principal of a request: the HTTP client's (from its validated token), else the stdio process. */
export function principalOf(ctx: ServerContext): string {
  return ctx.http?.authInfo?.clientId ?? "stdio";
}

/** The principal id of a bearer token (a hash: the token itself is never kept or shown). */
export function tokenPrincipal(token: string): string {
  return `token:${createHash("sha256").update(token).digest("hex").slice(0, 16)}`;
}

/** JSON with object keys sorted, so the same input always hashes the same. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    const o = value as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** The hash of a call's input that a `requestState` is bound to. */
export function inputHash(input: unknown): string {
  return createHash("sha256").update(canonical(input ?? {})).digest("base64url");
}

/**
 * Refuses a verified state made for another call than this one (another session, tool or
 * input): the client echoed a `requestState` into the wrong request.
 */
export function checkSameCall(state: GatewayState, call: { session: string; tool: string; input: unknown }): void {
  const differs = state.s !== call.session ? "toolshell session" : state.t !== call.tool ? "tool" : state.h !== inputHash(call.input) ? "input" : undefined;
  if (differs) {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `requestState was issued for another call (its ${differs} differs): retry the call it came with, with the same arguments, or call again without requestState`, { reason: "request_state_other_call" });
  }
}

/** Builds the codec with a key: bound to the principal, expiring after {@link REQUEST_STATE_TTL_S}. */
export function gatewayCodec(key: string | Uint8Array): RequestStateCodec<GatewayState> {
  return createRequestStateCodec<GatewayState>({ key, ttlSeconds: REQUEST_STATE_TTL_S, bind: (ctx) => principalOf(ctx) });
}

/**
 * The source of the gateway's requestState key: a random key for this process, or with a store
 * the key every replica shares (written by the first replica that needs it). The store's key is
 * read on each use, so replicas that wrote a key at the same moment agree as soon as the row
 * settles.
 */
export function requestStateKeys(store?: Pick<Store, "listShared" | "putShared">): () => Promise<string> {
  const local = randomBytes(32).toString("base64url");
  if (!store) return async () => local;
  const read = async () => (await store.listShared(KEY_ROW.kind)).find((r) => r.key === KEY_ROW.key)?.data.key;
  return async () => {
    const found = await read();
    if (typeof found === "string" && found.length >= 32) return found;
    await store.putShared(KEY_ROW.kind, KEY_ROW.key, { key: local }, { quiet: true });
    const stored = await read();
    return typeof stored === "string" ? stored : local;
  };
}
