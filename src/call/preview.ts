/**
 * Short previews of inputs and results for events and stop reports.
 *
 * Used by the call pipeline's `event` step (`input_preview`, docs/sessions.md "Events") and its
 * `record` step (a stop report's `done` entries carry a trimmed result).
 */

/** Characters of an input preview before `…`. */
export const INPUT_PREVIEW_CHARS = 400;
/** Characters of a result kept in a stop report before it is cut. */
export const RESULT_PREVIEW_CHARS = 2000;

/** Characters of a script preview (`shell_call.started`) before `…`. */
export const SCRIPT_PREVIEW_CHARS = 400;

/**
 * `text` cut to `max` characters, then `…`. Only text already redacted may be cut: a secret cut
 * in two is no longer recognised, and its first half would show (docs/security.md "Secrets").
 */
export function shorten(text: string, max: number): string {
  return text.length > max ? text.slice(0, max) + "…" : text;
}

/** An input's JSON, whole: the session's `emit` cuts it once redacted ({@link previewFields}). */
export function previewInput(input: unknown): string {
  return JSON.stringify(input) ?? "";
}

/**
 * An event's previews cut to their lengths (`input_preview`, `script_preview`): called by the
 * session's `emit` on the redacted event, the one place previews are cut.
 */
export function previewFields<E extends object>(event: E): E {
  const e = event as { input_preview?: unknown; script_preview?: unknown };
  if (typeof e.input_preview === "string") e.input_preview = shorten(e.input_preview, INPUT_PREVIEW_CHARS);
  if (typeof e.script_preview === "string") e.script_preview = shorten(e.script_preview, SCRIPT_PREVIEW_CHARS);
  return event;
}

/**
 * A result as kept in `done`: as is when its JSON is short (the stop report is redacted whole),
 * else its text redacted by `redact`, then cut, ending in `…`.
 */
export function trimResult(result: unknown, redact: (text: string) => string): unknown {
  const text = typeof result === "string" ? result : JSON.stringify(result);
  if (text === undefined) return result;
  if (text.length <= RESULT_PREVIEW_CHARS) return result;
  return shorten(redact(text), RESULT_PREVIEW_CHARS);
}
