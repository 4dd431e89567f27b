/**
 * OpenTelemetry spans from session events, through `@opentelemetry/api` only: without an SDK
 * registered by the host the API is a no-op and this costs a map look-up per event. A shell call
 * is a span (`toolshell.shell_call`); each nested call is a child span (`toolshell.tool`) with
 * the start time its duration gives.
 *
 * See docs/sessions.md → Events.
 */
import { createRequire } from "node:module";
import type { Span } from "@opentelemetry/api";
import type { SessionEvent } from "../runtime/index.js";

type OtelApi = typeof import("@opentelemetry/api");

/**
 * `@opentelemetry/api` when the host installed it (it is an optional peer dependency, see
 * README "In your own project"), else null. Loaded once, synchronously (the package ships
 * CommonJS), so the sink can be made without awaiting.
 */
let api: OtelApi | null | undefined;
function loadApi(): OtelApi | null {
  if (api === undefined) {
    try {
      api = createRequire(import.meta.url)("@opentelemetry/api") as OtelApi;
    } catch {
      api = null;
    }
  }
  return api;
}

/** The tracer name spans are created under. */
export const TRACER_NAME = "toolshell";

/**
 * An event listener that turns events into spans. Spans of shell calls that never end (the
 * process dies) are simply not exported. Without `@opentelemetry/api` installed the listener
 * does nothing. Never throws.
 */
export function otelEventSink(): (event: SessionEvent) => void {
  const otel = loadApi();
  if (!otel) return () => {};
  const { context, trace, SpanStatusCode } = otel;
  const tracer = trace.getTracer(TRACER_NAME);
  const open = new Map<string, Span>();
  return (event) => {
    try {
      const e = event as Record<string, unknown>;
      const key = `${event.session_id}\u0000${String(e.tool_call_id ?? e.parent_tool_call_id ?? "")}`;
      if (event.type === "shell_call.started") {
        const span = tracer.startSpan("toolshell.shell_call", { startTime: new Date(event.at), attributes: { "toolshell.session_id": event.session_id, "toolshell.tool_call_id": String(e.tool_call_id) } });
        open.set(key, span);
      } else if (event.type === "tool.nested_call") {
        const parent = open.get(key);
        const end = new Date(event.at);
        const start = new Date(end.getTime() - (Number(e.duration_ms) || 0));
        const ctx = parent ? trace.setSpan(context.active(), parent) : context.active();
        const span = tracer.startSpan(
          "toolshell.tool",
          { startTime: start, attributes: { "toolshell.session_id": event.session_id, "toolshell.call_id": String(e.call_id), "toolshell.command": String(e.command), "toolshell.status": String(e.status) } },
          ctx,
        );
        if (e.status !== "completed") span.setStatus({ code: SpanStatusCode.ERROR, message: String((e.error as { code?: string } | undefined)?.code ?? e.status) });
        span.end(end);
      } else if (event.type === "shell_call.ended") {
        const span = open.get(key);
        if (span) {
          open.delete(key);
          span.setAttribute("toolshell.exit_code", Number(e.exit_code));
          if (e.stopped) span.setStatus({ code: SpanStatusCode.ERROR, message: `stopped: ${String(e.stopped)}` });
          span.end(new Date(event.at));
        }
      }
    } catch {}
  };
}
