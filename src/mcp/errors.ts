/**
 * Every failure of an MCP connection or call → one {@link ToolCallError}.
 *
 * See README → The `tools` command (Errors).
 */
import { ProtocolError, SdkError, SdkErrorCode, SdkHttpError, SseError, SUPPORTED_PROTOCOL_VERSIONS, UnauthorizedError } from "@modelcontextprotocol/client";
import { ToolCallError } from "../tool/types.js";

/** The protocol versions toolshell's client offers: 2026-07-28 (negotiated with `server/discover`) and the 2025 era's. */
export const SPOKEN_VERSIONS = ["2026-07-28", ...SUPPORTED_PROTOCOL_VERSIONS] as const;

/** Where an error happened, for the message and the code. */
export interface ErrorPlace {
  server: string;
  /** `connect`: starting, initialising or listing tools; `call`: one `tools/call`. */
  phase: "connect" | "call";
  /** The tool, for `call`. */
  tool?: string;
  /** The timeout in force, in milliseconds (named in timeout messages). */
  timeoutMs: number;
  /** True when the caller's signal aborted. */
  aborted?: boolean;
  /** Last lines the server wrote to stderr, appended to start failures. */
  stderrTail?: string;
  /**
   * Set for servers that sign in with OAuth (see auth/): the authorization URL of the pending
   * sign-in, or why no sign-in could start.
   */
  signIn?: { server: string; principal: string; url?: string; failure?: string };
}

/** The HTTP status of an SDK transport error, when it carries one. */
export function httpStatus(error: unknown): number | undefined {
  if (error instanceof SdkHttpError) return error.status;
  if (error instanceof SseError) return error.code;
  return undefined;
}

/** The error a connect that ran past its deadline answers (mapped like the SDK's own request timeout). */
export function connectTimedOut(): Error {
  return new SdkError(SdkErrorCode.RequestTimeout, "connect timed out");
}

/** The MCP error code of a request whose protocol version the server does not speak (spec 2026-07-28). */
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;

/**
 * When `error` is the server refusing the protocol version it was asked in (`-32022`, as a
 * JSON-RPC error or as the JSON body of an HTTP 400): the versions it supports and the one it
 * was asked in. Else undefined.
 */
export function versionError(error: unknown): { supported: string[]; requested?: string } | undefined {
  let rpc: { code?: unknown; data?: unknown } | undefined;
  if (error instanceof ProtocolError) rpc = error;
  else if (error instanceof SdkHttpError && typeof error.data.text === "string") {
    try {
      rpc = (JSON.parse(error.data.text) as { error?: { code?: unknown; data?: unknown } }).error;
    } catch {
      return undefined;
    }
  }
  if (rpc?.code !== UNSUPPORTED_PROTOCOL_VERSION) return undefined;
  const data = (rpc.data ?? {}) as { supported?: unknown; requested?: unknown };
  const supported = Array.isArray(data.supported) ? data.supported.filter((v): v is string => typeof v === "string") : [];
  return { supported, ...(typeof data.requested === "string" ? { requested: data.requested } : {}) };
}

/** True when no protocol era was agreed at connect (e.g. a stdio server that ended its process on `server/discover`). */
export function eraUnagreed(error: unknown): boolean {
  return error instanceof SdkError && error.code === SdkErrorCode.EraNegotiationFailed;
}

/** True when a network error (a refused connection, an unknown host…) is down the error's cause chain. */
function unreachable(error: unknown): boolean {
  let e: unknown = error;
  for (let depth = 0; depth < 5 && e instanceof Error; depth++, e = e.cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && /^(E[A-Z]+|UND_ERR_[A-Z_]+)$/.test(code)) return true;
  }
  return false;
}

/** True for the SDK's "the server wants credentials" errors (HTTP 401/403, UnauthorizedError). */
export function isAuthError(error: unknown): boolean {
  if (error instanceof UnauthorizedError) return true;
  const status = httpStatus(error);
  return status === 401 || status === 403;
}

/**
 * Maps any thrown value to the error a `tools` call answers.
 * - already a ToolCallError → unchanged;
 * - HTTP 401/403 → `connection_required`, message naming the server;
 * - the caller's abort → `unavailable`, retryable;
 * - the SDK's RequestTimeout (or our connect deadline) → `unavailable`, retryable, naming the limit;
 * - the SDK's ConnectionClosed, transport and network errors → `unavailable`, retryable (a spawn
 *   that fails with ENOENT/EACCES is not retryable: the config must change);
 * - during a call, a ProtocolError (the server's JSON-RPC error) or any other SDK error (e.g.
 *   output not matching `outputSchema`, a malformed result) → `tool_error`.
 * Never throws.
 */
export function toCallError(error: unknown, place: ErrorPlace): ToolCallError {
  if (error instanceof ToolCallError) return error;
  const who = place.tool ? `MCP server "${place.server}", tool "${place.tool}"` : `MCP server "${place.server}"`;
  if (place.signIn && (isAuthError(error) || place.signIn.failure !== undefined)) return signInError(error, place.signIn);
  if (isAuthError(error)) {
    const status = httpStatus(error);
    return new ToolCallError(
      "connection_required",
      `MCP server "${place.server}" needs a connection: it answered ${status ? `HTTP ${status}` : "unauthorized"}; ` +
        `the person must set its credentials (headers) in the host's config`,
    );
  }
  if (place.aborted) return new ToolCallError("unavailable", `${who}: the call was aborted`, true);
  const message = messageOf(error);
  // The server's own stderr says it cannot start as configured: that is the error, whatever the
  // transport saw (a closed connection, a failed version probe).
  if (place.phase === "connect" && cannotStart(place)) return new ToolCallError("unavailable", `${who} could not start${tail(place)}`, false);
  if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
    const what = place.phase === "call" ? "gave no answer" : "did not start and list its tools";
    return new ToolCallError("unavailable", `${who} ${what} within ${place.timeoutMs} ms`, true);
  }
  // The process ended before it answered (its first message, or the version probe): what it wrote
  // on stderr is why, with nothing of the probe before it (a crash that may pass stays retryable).
  const said = place.stderrTail?.trim();
  if (place.phase === "connect" && said && ((error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed) || (eraUnagreed(error) && /connection closed/i.test(message)))) {
    return new ToolCallError("unavailable", `${who} exited while starting${tail(place)}`, true);
  }
  if (error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed) {
    const when = place.phase === "call" ? "during the call; it is restarted on the next call" : "while starting";
    return new ToolCallError("unavailable", `${who}: the connection closed ${when}${tail(place)}`, true);
  }
  const version = versionError(error);
  if (version) {
    const asked = version.requested ? ` (asked in ${version.requested})` : "";
    const speaks = version.supported.length ? `it speaks ${version.supported.join(", ")}` : "it names none it speaks";
    return new ToolCallError("unavailable", `${who}: the server refused the MCP protocol version${asked}: ${speaks}; toolshell speaks ${SPOKEN_VERSIONS.join(", ")}`, false);
  }
  if (eraUnagreed(error)) {
    if (unreachable(error)) return new ToolCallError("unavailable", `${who} could not be reached: ${message}`, true);
    return new ToolCallError("unavailable", `${who}: no MCP protocol version was agreed: ${message}${tail(place)}`, true);
  }
  if (place.phase === "connect") {
    const code = (error as { code?: unknown } | null)?.code;
    const permanent = code === "ENOENT" || code === "EACCES";
    return new ToolCallError("unavailable", `${who} could not start: ${message}${tail(place)}`, !permanent);
  }
  if (isTransportError(error)) return new ToolCallError("unavailable", `${who}: ${message}`, true);
  return new ToolCallError("tool_error", `${who}: ${message}`);
}

/**
 * The `connection_required` error of a server that signs in: with a pending sign-in, its URL
 * (retryable: the call works once the person signed in); else why sign-in could not start.
 */
function signInError(error: unknown, s: NonNullable<ErrorPlace["signIn"]>): ToolCallError {
  const who = `MCP server "${s.server}"`;
  const as = s.principal === "default" ? "" : ` as "${s.principal}"`;
  if (s.url) {
    return new ToolCallError(
      "connection_required",
      `${who} needs sign-in${as}: open ${s.url} to sign in (the link works while this toolshell runs), or run \`toolshell auth ${s.server}\`; then run the call again`,
      true,
    );
  }
  const status = httpStatus(error);
  const why = s.failure ?? (status ? `it answered HTTP ${status} after sign-in` : messageOf(error));
  return new ToolCallError(
    "connection_required",
    `${who} needs a connection${as} and sign-in could not start: ${why}. Run \`toolshell auth ${s.server}\`, or set its credentials (headers) and "oauth": false in the host's config`,
  );
}

/** The SDK's local errors that mean the connection, not the call, failed. */
const TRANSPORT_CODES: ReadonlySet<SdkErrorCode> = new Set([SdkErrorCode.NotConnected, SdkErrorCode.SendFailed, SdkErrorCode.ClientHttpFailedToOpenStream, SdkErrorCode.ClientHttpUnexpectedContent]);

function isTransportError(error: unknown): boolean {
  if (error instanceof SdkHttpError || error instanceof SseError) return true;
  if (error instanceof SdkError) return TRANSPORT_CODES.has(error.code);
  if (error instanceof ProtocolError) return false;
  if (!(error instanceof Error)) return false;
  if (error.message === "Not connected" || error.message === "fetch failed") return true;
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && /^E[A-Z]+$/.test(code);
}

function messageOf(error: unknown): string {
  if (error instanceof Error) {
    // fetch() hides the network reason (ECONNREFUSED, ENOTFOUND…) in `cause`, and the SDK wraps
    // fetch's error in its own: every cause down the chain that says something new is kept.
    let text = error.message || error.name;
    let cause: unknown = error.cause;
    for (let depth = 0; depth < 4 && cause instanceof Error; depth++, cause = cause.cause) {
      if (cause.message && !text.includes(cause.message)) text += ` (${cause.message})`;
    }
    return text;
  }
  try {
    return typeof error === "string" ? error : JSON.stringify(error);
  } catch {
    return String(error);
  }
}

/**
 * True when the server's own stderr says it cannot start as configured (a module or file that is
 * not there, a command not found, code that does not parse): starting it again fails the same
 * way until the config or the machine changes, so the error is not retryable.
 */
function cannotStart(place: ErrorPlace): boolean {
  return /Cannot find module|MODULE_NOT_FOUND|ModuleNotFoundError|No module named|command not found|^(\S*\/)?(ba|da)?sh: (line )?\d+: .*: not found$|No such file or directory|SyntaxError/m.test(place.stderrTail ?? "");
}

function tail(place: ErrorPlace): string {
  const text = place.stderrTail?.trim();
  return text ? ` (server stderr: ${text})` : "";
}
