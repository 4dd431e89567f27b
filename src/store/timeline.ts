/**
 * The session timeline as text: one line per shell call with its nested calls indented under
 * it, approvals, saved scripts, trigger runs and steps in between. Used by `toolshell events`.
 *
 * See docs/sessions.md → Events.
 */
import type { StoredEvent } from "./types.js";

const time = (at: unknown): string => (typeof at === "string" && at.length >= 19 ? at.slice(11, 19) : "--:--:--");

function ms(v: unknown): string {
  const n = typeof v === "number" ? v : Number(v);
  if (!Number.isFinite(n)) return "";
  return n >= 1000 ? `${(n / 1000).toFixed(1)} s` : `${Math.round(n)} ms`;
}

function oneLine(s: unknown, max = 100): string {
  const t = String(s ?? "").replace(/\s+/g, " ").trim();
  return t.length > max ? t.slice(0, max - 1) + "…" : t;
}

/** A run of a shell call: its tool call id and which start of it (1, 2, … ; 0 when it never started). */
export interface ShellCallRun {
  toolCallId: string;
  attempt: number;
}

/**
 * Which run of a shell call each `shell_call.started`, `shell_call.ended` and `tool.nested_call`
 * event (in store order) belongs to: a nested call belongs to the run of the shell call named by
 * its `parent_tool_call_id` that had last started when it was recorded. A durable step run again
 * keeps its tool call id, so each attempt gets its own calls (docs/sessions.md "Durable steps").
 * The one rule of the CLI's timeline and the console's.
 */
export function shellCallRuns(events: StoredEvent[]): Map<StoredEvent, ShellCallRun> {
  const starts = new Map<string, number>();
  const runs = new Map<StoredEvent, ShellCallRun>();
  for (const e of events) {
    const x = e as Record<string, unknown>;
    if (e.type === "shell_call.started") starts.set(String(x.tool_call_id), (starts.get(String(x.tool_call_id)) ?? 0) + 1);
    if (e.type !== "shell_call.started" && e.type !== "shell_call.ended" && e.type !== "tool.nested_call") continue;
    const toolCallId = String((e.type === "tool.nested_call" ? x.parent_tool_call_id : x.tool_call_id) ?? "");
    runs.set(e, { toolCallId, attempt: starts.get(toolCallId) ?? 0 });
  }
  return runs;
}

/** The key of a run, `<tool call id>#<attempt>`. */
export const runKey = (run: ShellCallRun): string => `${run.toolCallId}#${run.attempt}`;

/**
 * Renders events (in store order) as a timeline. Nested calls are printed under the run of the
 * shell call named by their `parent_tool_call_id` that was going on when they were recorded, in
 * the order they ended: a durable step run again keeps its tool call id, and each attempt lists its
 * own calls (an attempt that never ended is closed, with its calls, when the next one starts).
 * Events of unknown types get a generic line. Never throws.
 */
export function renderTimeline(events: StoredEvent[]): string {
  const lines: string[] = [];
  const runs = shellCallRuns(events);
  const keyOf = (e: StoredEvent): string => runKey(runs.get(e)!);
  const nestedBy = new Map<string, StoredEvent[]>();
  for (const e of events) {
    if (e.type !== "tool.nested_call") continue;
    const parent = keyOf(e);
    if (!nestedBy.has(parent)) nestedBy.set(parent, []);
    nestedBy.get(parent)!.push(e);
  }
  const shown = new Set<string>();
  const nestedLines = (run: string): void => {
    if (shown.has(run)) return;
    shown.add(run);
    for (const n of nestedBy.get(run) ?? []) {
      const x = n as Record<string, unknown>;
      const err = x.error as { code?: string; message?: string } | undefined;
      const status = String(x.status ?? "");
      lines.push(
        `           ├─ ${String(x.command ?? x.tool_name)}  ${x.input_preview ? oneLine(x.input_preview, 80) + "  " : ""}${status}${x.replayed ? " (replayed)" : ""}  ${ms(x.duration_ms)}` +
          (err ? `  ${err.code}: ${oneLine(err.message, 80)}` : ""),
      );
    }
  };
  /** The calls of an earlier run of `id` that never ended, closed before its next run's line. */
  const closeEarlier = (id: string, run: string): void => {
    const n = Number(run.slice(run.lastIndexOf("#") + 1));
    const earlier = `${id}#${n - 1}`;
    if (n > 1 && !shown.has(earlier)) {
      lines.push(`           (${id}, run ${n - 1}, did not end)`);
      nestedLines(earlier);
    }
  };
  for (const e of events) {
    const x = e as Record<string, unknown>;
    const t = time(e.at);
    switch (e.type) {
      case "shell_call.started":
        closeEarlier(String(x.tool_call_id), keyOf(e));
        lines.push(`${t}  ▶ ${x.tool_call_id} bash  ${oneLine(x.script_preview, 90)}`);
        break;
      case "shell_call.ended":
        nestedLines(keyOf(e));
        lines.push(`${t}  ■ ${x.tool_call_id} exit ${x.exit_code}${x.stopped ? `  stopped: ${x.stopped}` : ""}`);
        break;
      case "tool.nested_call":
        break;
      case "approval.requested":
        lines.push(`${t}  ? approval requested ${x.request_id}: ${x.tool}${x.tool_call_id ? ` (${x.tool_call_id})` : ""}`);
        break;
      case "approval.answered":
        lines.push(`${t}  ✓ approval ${x.request_id} answered: ${x.decision} (${x.tool})${x.by ? ` by ${x.by} (${x.surface ?? "unknown surface"})` : ""}${x.replica ? ` on replica ${x.replica}` : ""}${x.warned ? `; warned: ${x.warned}` : ""}`);
        break;
      case "change.made":
        lines.push(`${t}  ✎ ${x.what} by ${x.by} (${x.surface})${x.replica ? ` on replica ${x.replica}` : ""}`);
        break;
      case "script.saved":
        lines.push(`${t}  ✎ script saved: ${x.name} v${x.version}`);
        break;
      case "script.archived":
        lines.push(`${t}  ✎ script ${x.archived === false ? "unarchived" : "archived"}: ${x.name}`);
        break;
      case "trigger.run":
        lines.push(`${t}  ⏰ trigger ${x.trigger_name ?? x.trigger_id} (${x.reason}) → ${x.status}${x.tool_call_id ? ` as ${x.tool_call_id}` : ""}`);
        break;
      case "step.replayed":
        lines.push(`${t}  ↺ step ${x.step_id} (${x.tool_call_id}) completed before: recorded result returned`);
        break;
      case "step.resumed":
        lines.push(`${t}  ↻ step ${x.step_id} (${x.tool_call_id}) runs again, attempt ${x.attempt} (after ${x.after})`);
        break;
      case "step.waiting":
        lines.push(`${t}  … step ${x.step_id} still waits for approval ${x.request_id}`);
        break;
      default: {
        const { type, session_id: _s, at: _a, seq: _q, ...rest } = x;
        lines.push(`${t}  · ${type} ${oneLine(JSON.stringify(rest), 110)}`);
      }
    }
  }
  // Nested calls whose shell call has not ended (still running, or the process died).
  for (const run of nestedBy.keys()) {
    if (shown.has(run)) continue;
    const id = run.slice(0, run.lastIndexOf("#"));
    lines.push(`           (${id || "no shell call"} did not end)`);
    nestedLines(run);
  }
  return lines.length ? lines.join("\n") + "\n" : "";
}
