/**
 * The operator's log of `toolshell serve`: one JSON object per line (`time`, `level`, `event`,
 * then the event's fields), written to stdout, at or above a level (`--log-level`). Requests,
 * approvals asked and answered, trigger runs, changes, and what replicas do with durable steps
 * (resumed, replayed, waiting) are logged; every line goes through the host's redactor.
 *
 * See docs/deployment.md → Logs.
 */
import type { SessionEvent } from "../call/index.js";

/** Levels, least to most severe; `off` logs nothing. */
export const LOG_LEVELS = ["debug", "info", "warn", "error", "off"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Writes log lines. */
export interface Logger {
  readonly level: LogLevel;
  log(level: Exclude<LogLevel, "off">, event: string, fields?: Record<string, unknown>): void;
}

/**
 * A logger writing lines at or above `level` through `write` (default: stdout), each value passed
 * through `redact` first. `fields()` gives what every line carries after `event` (a serve's
 * `replica`, its heartbeat id, once it has one). Never throws.
 */
export function createLogger(level: LogLevel, options: { write?: (line: string) => void; redact?: <T>(v: T) => T; fields?: () => Record<string, unknown> } = {}): Logger {
  const min = LOG_LEVELS.indexOf(level);
  const write = options.write ?? ((line: string) => process.stdout.write(line));
  const redact = options.redact ?? (<T>(v: T) => v);
  return {
    level,
    log(l, event, fields = {}) {
      if (LOG_LEVELS.indexOf(l) < min) return;
      try {
        write(JSON.stringify(redact({ time: new Date().toISOString(), level: l, event, ...options.fields?.(), ...fields })) + "\n");
      } catch {}
    },
  };
}

/** Parses `--log-level`. @throws Error naming the levels. */
export function parseLogLevel(v: string | undefined): LogLevel {
  if (v === undefined) return "info";
  if ((LOG_LEVELS as readonly string[]).includes(v)) return v as LogLevel;
  throw new Error(`--log-level takes one of ${LOG_LEVELS.join(", ")}, got ${JSON.stringify(v)}`);
}

/** The log line of a session event worth an operator's attention, or undefined. */
export function eventLine(e: SessionEvent): { level: "debug" | "info" | "warn" | "error"; event: string; fields: Record<string, unknown> } | undefined {
  const { type: _t, at: _a, ...fields } = e as SessionEvent & Record<string, unknown>;
  switch (e.type) {
    case "approval.requested":
    case "approval.answered":
    case "trigger.run":
    case "change.made":
    case "step.resumed":
    case "step.replayed":
    case "step.waiting":
    case "question.asked":
    case "question.answered":
      return { level: "info", event: e.type, fields };
    case "store.failed":
    case "preflight.failed":
    case "redaction.failed":
      return { level: "error", event: e.type, fields };
    case "shell_call.started":
    case "shell_call.ended":
      return { level: "debug", event: e.type, fields };
    default:
      return undefined;
  }
}
