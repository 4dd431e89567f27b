/**
 * Small pieces the console's pages share: times, durations, folded text, status labels.
 *
 * See README → Console.
 */
import type { FC } from "hono/jsx";
import { shownTime } from "../../../display/time.js";

/** An ISO time as a `<time>` element (UTC, to the second). */
export const Time: FC<{ at: string | undefined }> = ({ at }) =>
  at ? <time datetime={at}>{shownTime(at)}</time> : <span>—</span>;

/** Milliseconds in words: `850 ms`, `2.4 s`. */
export function duration(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return "—";
  return ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`;
}

/** Long text folded under a summary (open when short). */
export const Folded: FC<{ label: string; text: string; id: string; openUnder?: number }> = ({ label, text, id, openUnder = 0 }) => {
  if (!text) return null;
  const lines = text.replace(/\n$/, "").split("\n").length;
  return (
    <details class="output" id={id} open={lines <= openUnder ? true : undefined}>
      <summary>
        {label} <span class="more">({lines === 1 ? "1 line" : `${lines} lines`})</span>
      </summary>
      <pre>{text}</pre>
    </details>
  );
};

/** Words for the status of a nested call (the `status` of a `tool.nested_call` event). */
export function nestedStatusText(status: string): string {
  return status === "needs_approval" ? "stopped for approval" : status;
}

/** A status label; `kind` picks its colour. */
export const Status: FC<{ kind: string; text: string }> = ({ kind, text }) => <span class={`state state-${kind}`}>{text}</span>;
