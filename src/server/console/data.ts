/**
 * What the console's pages show, read from the host and its store: approval cards, the session
 * timeline (shell calls with their nested calls under them), scripts, triggers, servers.
 * Read-only; every change the console makes goes through the HTTP API (see routes.tsx).
 *
 * See README → Console.
 */
import { readFileSync, statSync, openSync, readSync, closeSync } from "node:fs";
import { signature } from "../../catalog/index.js";
import type { ApprovalRequest, Why } from "../../policy/index.js";
import type { ShellResult, StepRecord } from "../../runtime/index.js";
import { DEFAULT_AGENT, runKey, shellCallRuns, type StoredEvent } from "../../store/index.js";
import type { ServerConfig } from "../../config/servers.js";
import type { CatalogTool } from "../../tool/index.js";
import type { Host } from "../host.js";
import { ApprovalDetailsReader, type ApprovalDetails } from "../approval-card.js";
import type { StepView } from "../steps.js";

/** Why a call needs a person, in words (the `why` codes of the approval policy, README "Approvals"). */
export const WHY_TEXT: Record<Why, string> = {
  destructive: "declares that it may destroy or overwrite data",
  open_world: "declares that it reaches outside (the open world)",
  mutating: "changes things, and the approval mode asks for every call that is not read-only",
  policy: "its own approval policy or the configuration asks for a person",
  rated_changes: "declares nothing about its risk and only looks like it changes things",
};

/** The words for a `why` code (the code itself when unknown). */
export function whyText(why: string | undefined): string | undefined {
  if (!why) return undefined;
  return (WHY_TEXT as Record<string, string>)[why] ?? why;
}

/** A script line with its number (1-based). */
export interface ScriptLine {
  n: number;
  text: string;
}

/** One pending approval request as its card shows it. */
export interface ApprovalCard {
  request: ApprovalRequest;
  agent_id: string;
  /** The MCP server of the tool; undefined for a top-level tool. */
  server?: string;
  /** The lines of the script around the call (all of a short script), when the script is known. */
  script?: { lines: ScriptLine[]; line?: number; total: number };
  /** What else a person needs: where, the tool, the risk, what ran, the scope, what happens next (approval-card.ts). */
  details: ApprovalDetails;
}

/** Lines of context shown above and below the line a request came from. */
const AROUND = 4;

function scriptOfStep(step: Pick<StepRecord, "request"> | undefined): string | undefined {
  const req = step?.request as { script?: unknown } | undefined;
  return typeof req?.script === "string" ? req.script : undefined;
}

/**
 * Every pending approval request across sessions, newest first, with its server and the script
 * around the line it came from. Never throws for a request whose session or script is gone.
 */
export async function approvalCards(host: Host): Promise<ApprovalCard[]> {
  const pending = [...(await host.store.pendingApprovals())].sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0));
  const catalog = host.shell.catalog();
  const reader = new ApprovalDetailsReader(host);
  const cards: ApprovalCard[] = [];
  for (const request of pending) {
    const session = await host.store.getSession(request.session_id);
    const words = request.tool.trim().split(/\s+/);
    const server = words.length >= 3 && catalog.findSource(words[1])?.kind === "mcp" ? catalog.findSource(words[1])!.name : undefined;
    const details = await reader.read(request);
    let script: ApprovalCard["script"];
    // The script that asked: a trigger's saved script, not the `tools scripts NAME -` that ran it.
    if (details.script) {
      const all = details.script.text.replace(/\n$/, "").split("\n");
      const at = details.line;
      const from = at ? Math.max(1, at - AROUND) : 1;
      const to = at ? Math.min(all.length, at + AROUND) : Math.min(all.length, AROUND * 2 + 1);
      script = { lines: all.slice(from - 1, to).map((t, i) => ({ n: from + i, text: t })), line: at, total: all.length };
    }
    cards.push({ request, agent_id: session?.agent_id ?? DEFAULT_AGENT, server, script, details });
  }
  return cards;
}

/** One `tool.nested_call` row under its shell call. */
export interface NestedRow {
  call_id: string;
  command: string;
  status: string;
  input_preview: string;
  duration_ms?: number;
  error?: { code: string; message: string };
  replayed?: boolean;
  at: string;
}

/** One shell call (one attempt of it) in the timeline. */
export interface ShellCallView {
  tool_call_id: string;
  /** 1 for the first run of this id, 2 when a waiting step ran again, … */
  attempt: number;
  started_at: string;
  ended_at?: string;
  duration_ms?: number;
  /** The whole script when the store has it, else the preview the event carries. */
  script: string;
  exit_code?: number;
  stopped?: string;
  state: "running" | "ok" | "failed" | "stopped" | "unfinished";
  /** The recorded result (stdout, stderr, stop report) of the latest attempt. */
  result?: ShellResult;
  nested: NestedRow[];
  /** Image files tools saved during the call (paths as the sandbox names them). */
  images: string[];
}

/** A timeline entry: a shell call with its nested calls, or another event on its own row. */
export type TimelineItem = { kind: "shell"; call: ShellCallView } | { kind: "event"; event: StoredEvent };

const IMAGE_FILE = /(^|\/)tool-images\/[^/\s]+\.(png|jpe?g|gif|webp|svg)$/i;
const IMAGE_LINE = /^tools: image saved to (\S+) \(/gm;

/** Image paths a shell call's result names: `tools: image saved to …` lines and files written. */
export function imagesOf(result: ShellResult | undefined): string[] {
  if (!result) return [];
  const out = new Set<string>();
  for (const m of String(result.stderr ?? "").matchAll(IMAGE_LINE)) if (IMAGE_FILE.test(m[1])) out.add(m[1]);
  for (const f of result.tools?.files_written ?? []) if (IMAGE_FILE.test(f)) out.add(f);
  return [...out];
}

/** True when `path` names an image the `tools` command saves (`…/tool-images/<name>.<image ext>`). */
export function isToolImage(path: string): boolean {
  return IMAGE_FILE.test(path);
}

const ms = (from: string, to: string): number | undefined => {
  const d = Date.parse(to) - Date.parse(from);
  return Number.isFinite(d) ? d : undefined;
};

/**
 * The timeline of a session: its events in store order, shell calls as items that carry their
 * nested calls, scripts and results taken from the recorded steps. Never throws.
 */
export async function sessionTimeline(host: Host, sessionId: string, steps: StepView[]): Promise<TimelineItem[]> {
  const events = await host.store.listEvents(sessionId, { limit: 10_000 });
  const items: TimelineItem[] = [];
  // Each run of a shell call (a durable step run again keeps its id) with its own nested calls.
  const runs = shellCallRuns(events);
  const views = new Map<string, ShellCallView>();
  const latest = new Map<string, ShellCallView>();
  for (const e of events) {
    const x = e as Record<string, unknown>;
    if (e.type === "shell_call.started") {
      const run = runs.get(e)!;
      const view: ShellCallView = { tool_call_id: run.toolCallId, attempt: run.attempt, started_at: e.at, script: String(x.script_preview ?? ""), state: "unfinished", nested: [], images: [] };
      views.set(runKey(run), view);
      latest.set(run.toolCallId, view);
      items.push({ kind: "shell", call: view });
    } else if (e.type === "tool.nested_call") {
      const view = views.get(runKey(runs.get(e)!));
      const row: NestedRow = {
        call_id: String(x.call_id ?? ""),
        command: String(x.command ?? x.tool_name ?? ""),
        status: String(x.status ?? ""),
        input_preview: String(x.input_preview ?? ""),
        duration_ms: typeof x.duration_ms === "number" ? x.duration_ms : undefined,
        error: x.error as NestedRow["error"],
        replayed: x.replayed === true,
        at: e.at,
      };
      if (view) view.nested.push(row);
      else items.push({ kind: "event", event: e });
    } else if (e.type === "shell_call.ended") {
      const view = views.get(runKey(runs.get(e)!));
      if (!view || view.ended_at !== undefined) {
        items.push({ kind: "event", event: e });
        continue;
      }
      view.ended_at = e.at;
      view.duration_ms = ms(view.started_at, e.at);
      view.exit_code = typeof x.exit_code === "number" ? x.exit_code : undefined;
      view.stopped = typeof x.stopped === "string" ? x.stopped : undefined;
      view.state = view.stopped ? "stopped" : view.exit_code === 0 ? "ok" : "failed";
    } else {
      items.push({ kind: "event", event: e });
    }
  }
  for (const step of steps) {
    if (step.kind !== "shell") continue;
    const view = latest.get(step.tool_call_id);
    if (!view) continue;
    const script = scriptOfStep(step);
    if (script !== undefined) view.script = script;
    // A step whose replica stopped is not running: its call stays "did not end" (steps.ts).
    if (step.status === "running" && !view.ended_at) view.state = "running";
    else if (view.ended_at && step.result && typeof step.result === "object") {
      view.result = step.result as ShellResult;
      view.images = imagesOf(view.result);
    }
  }
  return items;
}

/** One tool as the servers page lists it. */
export interface ToolView {
  command: string;
  signature: string;
  description: string;
  hints: string[];
  /** The risk before any answer: read_only, changes, needs_approval, blocked, denied, or checked_at_run_time. */
  risk: string;
  why?: string;
}

/** One source (the local tools, or an MCP server) as the servers page lists it. */
export interface SourceView {
  name: string;
  kind: string;
  state: string;
  failure?: string;
  /** The end of the server's log file (redacted), for a failed server. */
  logTail?: string;
  /** An MCP server's entry as it runs now (see {@link entryView}). */
  entry?: string;
  tools: ToolView[];
}

/**
 * An MCP server's entry as the console shows it: how it starts or where it is reached and how it
 * loads, with `env` and `headers` by name only (their values are secrets, docs/security.md
 * "Secrets"), and the rest passed through the redactor.
 */
function entryView(config: ServerConfig, redact: (s: string) => string): string {
  const named = (values: Record<string, string> | undefined) => (values && Object.keys(values).length ? Object.fromEntries(Object.keys(values).map((k) => [k, "(set, not shown)"])) : undefined);
  const where =
    config.type === "stdio"
      ? { command: config.command, args: config.args?.length ? config.args : undefined, cwd: config.cwd, env: named(config.env) }
      : { url: config.url, headers: named(config.headers) };
  return redact(JSON.stringify({ type: config.type, ...where, load: config.load, trust: config.trust, disabled: config.disabled || undefined }, null, 2));
}

const TAIL_BYTES = 4096;

function readTail(file: string): string | undefined {
  let fd: number | undefined;
  try {
    const size = statSync(file).size;
    if (size <= TAIL_BYTES) return readFileSync(file, "utf8");
    fd = openSync(file, "r");
    const buf = Buffer.alloc(TAIL_BYTES);
    readSync(fd, buf, 0, TAIL_BYTES, size - TAIL_BYTES);
    const text = buf.toString("utf8");
    return text.slice(text.indexOf("\n") + 1);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The risk of a tool before any answer, from the policy; a rating or predicate still to run shows as `checked_at_run_time`. */
function riskOf(host: Host, tool: CatalogTool, command: string): { risk: string; why?: string } {
  try {
    const a = host.shell.policy.assess(tool, {}, { sessionId: "console", sessionMetadata: {}, callId: "console", command });
    if (a && typeof (a as PromiseLike<unknown>).then === "function") {
      (a as Promise<unknown>).then(undefined, () => {});
      return { risk: "checked_at_run_time" };
    }
    const s = a as { risk: string; why?: string };
    return { risk: s.risk, why: s.why };
  } catch {
    return { risk: "checked_at_run_time" };
  }
}

/** Every source of the host: its state, the failure and log tail of a failed server, its tools. */
export function sourceViews(host: Host): SourceView[] {
  const catalog = host.shell.catalog();
  const redact = (s: string) => host.shell.redactor.text(s);
  return host.shell.sources.map((source) => {
    const state = source.state();
    const failure = source.failure?.()?.message;
    const logFile = (source as { logFile?: unknown }).logFile;
    const tools = state === "ready" || source.kind === "local" ? source.tools() : [];
    const config = source.kind === "mcp" ? host.shell.config.servers.find((c) => c.name === source.name) : undefined;
    return {
      name: source.kind === "local" ? "local tools" : source.name,
      kind: source.kind,
      state,
      entry: config ? entryView(config, redact) : undefined,
      failure: failure ? redact(failure) : undefined,
      logTail: state === "failed" && typeof logFile === "string" ? (readTail(logFile) ?? "").split("\n").map(redact).join("\n") : undefined,
      tools: tools.map((t) => {
        const command = catalog.commandFor(t);
        const hints = Object.entries(t.hints ?? {})
          .filter(([, v]) => v !== undefined)
          .map(([k, v]) => (v ? k : `not ${k}`));
        return { command, signature: signature(t.name, t.inputSchema), description: t.description, hints, ...riskOf(host, t, command) };
      }),
    };
  });
}

/** The agents the console knows: the default one, those of sessions and of triggers. Sorted. */
export async function agentIds(host: Host): Promise<string[]> {
  const ids = new Set<string>([DEFAULT_AGENT]);
  for (const s of await host.store.listSessions({ limit: 1000 })) ids.add(s.agent_id);
  for (const t of await host.store.listTriggers()) ids.add(t.agent_id);
  return [...ids].sort();
}
