/**
 * A call's input as a person must see it before answering: pretty JSON, long values folded,
 * and every invisible or bidirectional control character shown and listed with where it is.
 *
 * The text comes from `showInput` (display/show-input.ts), which writes each such character as a
 * JSON escape; this view marks those escapes and lists the flags.
 *
 * See README → Console; Unicode Technical Report 36 "Unicode Security Considerations"
 * (bidirectional and invisible characters that make text read differently).
 */
import type { Child, FC } from "hono/jsx";
import { describeFlags, showInput, showText, type ShownInput } from "../../../display/show-input.js";

export type { ShownInput };

/** A `\uXXXX` escape in JSON text (preceded by an even number of backslashes). */
const ESCAPE = /(?<!\\)((?:\\\\)*)(\\u[0-9a-fA-F]{4})/g;

/** A line of the shown JSON with every `\uXXXX` escape (a flagged character) marked. */
function marked(line: string): Child[] {
  const out: Child[] = [];
  let last = 0;
  for (const m of line.matchAll(ESCAPE)) {
    const start = m.index! + m[1].length;
    if (start > last) out.push(line.slice(last, start));
    out.push(<mark class="hidden-char">{m[2]}</mark>);
    last = start + m[2].length;
  }
  if (last < line.length) out.push(line.slice(last));
  return out;
}

/** Lines longer than this are folded. */
export const FOLD_CHARS = 160;
/** How much of a folded line stays visible. */
const PREVIEW_CHARS = 100;

/** The input with its flags; `id` makes the element ids unique on the page. */
export const InputView: FC<{ shown: ShownInput; id: string }> = ({ shown, id }) => {
  const lines = shown.text.split("\n");
  return (
    <div class="input">
      {shown.flags.length ? (
        <div class="warn" id={`${id}-hidden`} data-flags={String(shown.flags.length)}>
          <p>
            <strong>Hidden characters:</strong>{" "}
            {shown.flags.length === 1 ? "the input holds 1 invisible or bidirectional control character" : `the input holds ${shown.flags.length} invisible or bidirectional control characters`}
            , shown below as code points. Text may read differently from what the tool receives.
          </p>
          <ul>
            {describeFlags(shown.flags).map((text) => (
              <li>{text}</li>
            ))}
          </ul>
        </div>
      ) : null}
      <div class="json" role="group" aria-label="Input as JSON">
        {lines.map((line, i) =>
          line.length > FOLD_CHARS ? (
            <details class="fold" id={`${id}-fold-${i}`}>
              <summary>
                <code class="head">{marked(line.slice(0, PREVIEW_CHARS))}</code>
                <span class="more when-closed">… show {line.length - PREVIEW_CHARS} more characters</span>
                <span class="more when-open">fold this value</span>
              </summary>
              <code class="whole">{marked(line)}</code>
            </details>
          ) : (
            <code class="ln">{marked(line)}</code>
          ),
        )}
      </div>
    </div>
  );
};

/**
 * One line of text (a script line, a tool name) safe to show: as written, each hidden character
 * as a marked `\uXXXX` escape (`showText`), and a line holding any flagged with a title.
 */
export const SafeLine: FC<{ text: string }> = ({ text }) => {
  const shown = showText(text);
  if (!shown.flags.length) return <>{text}</>;
  return (
    <span class="escaped" title={describeFlags(shown.flags).join("; ")}>
      {shown.parts.map((p) => (p.hidden ? <mark class="hidden-char">{p.text}</mark> : p.text))}
    </span>
  );
};

/** Text of several lines (a script), each through {@link SafeLine}. */
export const SafeText: FC<{ text: string }> = ({ text }) => (
  <>
    {text.split("\n").map((line, i) => (
      <>
        {i ? "\n" : ""}
        <SafeLine text={line} />
      </>
    ))}
  </>
);

/** An input on one line (stop reports), hidden characters escaped and marked. */
export const InputLine: FC<{ input: unknown }> = ({ input }) => {
  const shown = showInput(input);
  return <code class={shown.flags.length ? "preview escaped" : "preview"} title={shown.flags.length ? describeFlags(shown.flags).join("; ") : undefined}>{marked(shown.text)}</code>;
};
