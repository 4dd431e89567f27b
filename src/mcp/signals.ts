/**
 * Per-request abort signals for SDK requests.
 *
 * The SDK adds an `abort` listener to a request's signal and never removes it, and sends
 * `notifications/cancelled` when that signal aborts, even long after the request finished. A
 * signal shared by many requests (a shell call's, a connect deadline) would collect listeners
 * and, on abort, cancel requests that already answered (the spec forbids cancelling
 * `initialize`). So each request gets its own child signal, unlinked when it settles.
 *
 * Rule source: MCP spec 2025-06-18 "Cancellation".
 */

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
