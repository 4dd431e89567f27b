/**
 * Per-request abort signals for SDK requests.
 *
 * The SDK adds an `abort` listener to a request's signal and never removes it, and sends
 * `notifications/cancelled` when that signal aborts, even long after the request finished. A
 * signal shared by many requests (a shell call's, a connect deadline) would collect listeners
 * and, on abort, cancel requests that already answered (the spec forbids cancelling
 * `initialize`). So each request gets its own child signal, unlinked when it settles.
 *
 * See MCP spec 2025-06-18 "Cancellation".
 */
import { ToolCallError } from "../tool/types.js";

/**
 * Runs `fn` with a signal that aborts (with the parent's reason) when `parent` aborts before
 * `fn` settles; the link is removed when it settles. Without a parent, `fn` gets a signal that
 * never aborts. Rethrows what `fn` throws.
 */
export async function withChildSignal<T>(parent: AbortSignal | undefined, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const child = new AbortController();
  if (!parent) return fn(child.signal);
  if (parent.aborted) child.abort(parent.reason);
  const onAbort = () => child.abort(parent.reason);
  parent.addEventListener("abort", onAbort, { once: true });
  try {
    return await fn(child.signal);
  } finally {
    parent.removeEventListener("abort", onAbort);
  }
}

/**
 * Waits for `promise`, or rejects with `unavailable` (retryable) when `signal` aborts first;
 * the promise itself goes on (other callers may share it).
 */
export function waitFor<T>(promise: Promise<T>, signal: AbortSignal | undefined, server: string): Promise<T> {
  if (!signal) return promise;
  const aborted = () => new ToolCallError("unavailable", `MCP server "${server}": waiting for it to start was aborted`, true);
  if (signal.aborted) return Promise.reject(aborted());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(aborted());
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
