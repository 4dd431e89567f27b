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

/** A JSON preview of an input: at most 400 characters, then `…`. */
export function previewInput(input: unknown): string {
  const text = JSON.stringify(input) ?? "";
  return text.length > INPUT_PREVIEW_CHARS ? text.slice(0, INPUT_PREVIEW_CHARS) + "…" : text;
}

/** A result as kept in `done`: as is when its JSON is short, else a cut string ending in `…`. */
export function trimResult(result: unknown): unknown {
  const text = typeof result === "string" ? result : JSON.stringify(result);
  if (text === undefined) return result;
  if (text.length <= RESULT_PREVIEW_CHARS) return result;
  return text.slice(0, RESULT_PREVIEW_CHARS) + "…";
}
