/**
 * The person a shell call can reach while it runs: the surface that started it (the gateway's
 * MCP client, the HTTP API, the terminal) hands a {@link Person} to `session.bash(script,
 * { person })`, and every nested call of that shell call reaches it through its `ctx`
 * (`ctx.reportProgress`, `ctx.ask`). Progress is also recorded as a `tool.progress` session
 * event; questions as `question.asked` / `question.answered`.
 *
 * See docs/mcp.md → Progress, Elicitation relay; MCP spec 2025-11-25 "Utilities" → Progress and
 * "Client Features" → Elicitation (a client that cannot ask declines; the content returned must
 * match the requested schema).
 */
import { randomUUID } from "node:crypto";
import { describeFlags, showInput, showName } from "../display/show-input.js";
import { checkAnswer, type InvokeContext, type JsonSchema, type ProgressUpdate, type Question, type QuestionAnswer, type ToolCall } from "../tool/index.js";
import type { CallStatus } from "./call.js";
import type { SessionEventInput } from "./events.js";
import { sensitiveRefusal, sensitiveRequest } from "./sensitive-question.js";
import { KeyedQueue } from "../async/keyed-queue.js";
import { contextSlot } from "../async/context.js";

/**
 * One moment of a nested call the person may see: it started, it reported progress, it ended,
 * or a question of its server was declined without reaching anyone (`message` says why).
 */
export interface CallProgress {
  phase: "started" | "progress" | "ended" | "declined";
  call_id: string;
  command: string;
  /** The shell call it runs in. */
  parent_tool_call_id?: string;
  progress?: number;
  total?: number;
  /** Redacted (config secrets never reach the person through it). */
  message?: string;
  /** How it ended (`ended` only). */
  status?: CallStatus;
}

/** A question as the person gets it: the tool's question and its id (`q_…`, unique in the process). */
export type AskedQuestion = Question & { id: string; session_id: string; call_id: string };

/** Who is behind a shell call, as its surface provides them. Both parts optional. */
export interface Person {
  /** Sees each nested call start, report progress and end. Must not throw (what it throws is ignored). */
  progress?(report: CallProgress): void;
  /**
   * Asks the person; resolves with their answer (checked against the schema afterwards). Absent
   * when nobody can answer on this surface. `signal` aborts when the call ends first.
   */
  ask?(question: AskedQuestion, signal: AbortSignal): Promise<QuestionAnswer>;
}

const current = contextSlot<Person | undefined>("toolshell.person");

/**
 * Progress reports of one call that are all shown; past them, one a second at most. Every report
 * shown is a session event kept by the store: an upstream server sending thousands a second
 * would otherwise grow the store (and flood the person) without bound (docs/security.md).
 */
export const PROGRESS_BURST = 100;
/** The least time between two shown progress reports of one call past {@link PROGRESS_BURST}, in ms. */
export const PROGRESS_INTERVAL_MS = 1000;

/** Questions one call may ask; past them each is declined without reaching the person. */
export const MAX_QUESTIONS_PER_CALL = 20;

/** The questions each person is being asked: one at a time per person. */
const asking = new KeyedQueue<Person>();

/** Runs `fn` with `person` as the person of every call made inside it (async context). */
export function withPerson<T>(person: Person | undefined, fn: () => T): T {
  return current.run(person, fn);
}

/** The person of the call running now, if its surface gave one. */
export function currentPerson(): Person | undefined {
  return current.get();
}

/** Tells the current person about a nested call; never throws. */
export function tellPerson(report: CallProgress, person: Person | undefined = currentPerson()): void {
  try {
    person?.progress?.(report);
  } catch {}
}

/** What {@link personContext} needs of the session. */
export interface PersonSession {
  readonly id: string;
  emit(event: SessionEventInput): void;
  /** The session's redactor on text (identity without secrets). */
  redactText(text: string): string;
  /** The session's redactor on a JSON value, every string in it, keys included (identity without secrets). */
  redactValue<T>(value: T): T;
}

/**
 * `ctx.reportProgress` and `ctx.ask` of one call, bound to the person of the current async
 * context (captured now: an upstream notification arrives outside it).
 * - `reportProgress` ignores a report whose `progress` is not a finite number, and past the
 *   first {@link PROGRESS_BURST} of the call one that comes less than
 *   {@link PROGRESS_INTERVAL_MS} after the last shown; otherwise it emits `tool.progress` and
 *   tells the person.
 * - `ask` declines with `unanswered` when nobody can answer, when the question asks for a
 *   password, key or token (call/sensitive-question.ts), when the call asked more than
 *   {@link MAX_QUESTIONS_PER_CALL} questions, when the person's surface fails, or when the answer
 *   does not match the question's schema (checked with ajv); never rejects. A person is asked
 *   one question at a time (the others wait their turn; one whose call ended is cancelled).
 */
export function personContext(session: PersonSession, call: Pick<ToolCall, "callId" | "parentId"> & { command?: string }, signal: AbortSignal): Pick<InvokeContext, "reportProgress" | "ask"> {
  const person = currentPerson();
  const command = call.command ?? call.callId;
  const parent = call.parentId !== undefined ? { parent_tool_call_id: call.parentId } : {};
  let reports = 0;
  let lastShown = -Infinity;
  let questions = 0;
  return {
    reportProgress(update: ProgressUpdate) {
      if (!update || typeof update.progress !== "number" || !Number.isFinite(update.progress)) return;
      // Bounded: past the first reports of a call, one a second (docs/mcp.md "Progress").
      const at = Date.now();
      if (reports >= PROGRESS_BURST && at - lastShown < PROGRESS_INTERVAL_MS) return;
      reports++;
      lastShown = at;
      // Redacted whole, then cut: cut first, a secret across the cut would keep its first part.
      const total = typeof update.total === "number" && Number.isFinite(update.total) ? { total: update.total } : {};
      const message = typeof update.message === "string" && update.message !== "" ? { message: session.redactText(update.message).slice(0, 1000) } : {};
      session.emit({ type: "tool.progress", call_id: call.callId, ...parent, command, progress: update.progress, ...total, ...message });
      tellPerson({ phase: "progress", call_id: call.callId, command, ...parent, progress: update.progress, ...total, ...message }, person);
    },
    async ask(question: Question) {
      // A form asking for a password, key or token is declined before any surface shows it, on
      // every surface (MCP spec, Elicitation: servers must not request sensitive information
      // in form mode); the person is told a question was declined, and why.
      const sensitive = sensitiveRequest(question);
      if (sensitive) return unanswered(question, sensitiveRefusal(sensitive));
      // Declined without reaching anyone: still listed, so the timeline says a question came and why it went unanswered.
      if (!person?.ask) return unanswered(question, "nobody can answer questions here (no person is connected to this session)");
      if (++questions > MAX_QUESTIONS_PER_CALL) return unanswered(question, `the call asked more than ${MAX_QUESTIONS_PER_CALL} questions`);
      // One question at a time: on a terminal, two asked at once would both take what the person
      // types for one of them (an answer covers what the person was shown: docs/security.md).
      const ask = person.ask.bind(person);
      return asking.run(person, async (): Promise<QuestionAnswer> => {
        if (signal.aborted) return { action: "cancel" };
        return askNow(question, ask);
      });
    },
  };
  function unanswered(question: Question, reason: string): QuestionAnswer & { unanswered: string } {
    // The reason may name a field of the server's form, which may hold a config secret.
    const why = session.redactText(reason);
    const id = `q_${randomUUID().replace(/-/g, "").slice(0, 16)}`;
    session.emit({ type: "question.asked", question_id: id, call_id: call.callId, ...parent, server: question.server, command });
    session.emit({ type: "question.answered", question_id: id, call_id: call.callId, action: "decline", unanswered: why });
    tellPerson({ phase: "declined", call_id: call.callId, command, ...parent, message: why }, person);
    return { action: "decline", unanswered: why };
  }
  async function askNow(question: Question, ask: NonNullable<Person["ask"]>): Promise<QuestionAnswer & { unanswered?: string }> {
    const id = `q_${randomUUID().replace(/-/g, "").slice(0, 16)}`;
    // All of it is the server's text, shown to the person and listed by the HTTP API: the
    // schema's titles, descriptions, enums and defaults as much as the message
    // (docs/security.md, promise 4: secrets never reach the model, an event or a result).
    const asked: AskedQuestion = { ...question, message: session.redactText(question.message), requestedSchema: session.redactValue(question.requestedSchema), id, session_id: session.id, call_id: call.callId };
    session.emit({ type: "question.asked", question_id: id, call_id: call.callId, ...parent, server: question.server, command });
    let answer: QuestionAnswer & { unanswered?: string };
    try {
      const given = await ask(asked, signal);
      const checked = checkAnswer(question, given);
      answer = checked.ok ? checked.answer : { action: "decline", unanswered: checked.message };
    } catch (err) {
      answer = { action: "decline", unanswered: `asking the person failed: ${err instanceof Error ? err.message : String(err)}` };
    }
    session.emit({ type: "question.answered", question_id: id, call_id: call.callId, action: answer.action, ...(answer.unanswered ? { unanswered: answer.unanswered } : {}) });
    return answer;
  }
}

/**
 * A question as a person is shown it, on every surface: who asks (the server's name and the
 * call's command, escaped) and the server's message — as is when plain, else as a JSON string
 * with every hidden or control character escaped — then one warning line per flagged character.
 * The same escaping as tool names and inputs on an approval prompt (display/show-input.ts).
 */
export function describeQuestion(question: Pick<Question, "server" | "command" | "message" | "url">): { text: string; warnings: string[] } {
  const server = showName(question.server);
  const command = showName(question.command);
  const message = showInput(question.message);
  // Plain: nothing flagged, and no carriage return (a terminal would write over the line with it).
  const plain = message.flags.length === 0 && !question.message.includes("\r");
  const warnings = [...server.warnings, ...command.warnings, ...describeFlags(message.flags).map((w) => `${w} of the message`)];
  // Each line of the server's text is quoted, so a line it writes can never pass for the header.
  const body = (plain ? question.message : message.text).split("\n").map((l) => `> ${l}`).join("\n");
  const link = question.url === undefined ? undefined : describeUrl(question.url);
  if (link) warnings.push(...link.warnings);
  return { text: `MCP server ${server.text} asks (during ${command.text}):\n${body}${link ? `\n${link.text}` : ""}`, warnings };
}

/**
 * A URL-mode question's address as the person is shown it (MCP spec "Elicitation" → Safe URL
 * Handling: the full URL, its domain set apart, a warning for a punycode host, never opened or
 * fetched by toolshell).
 */
function describeUrl(url: string): { text: string; warnings: string[] } {
  const shown = showInput(url);
  let host = "";
  try {
    host = new URL(url).hostname;
  } catch {}
  const warnings = describeFlags(shown.flags).map((w) => `${w} of the address`);
  if (host.split(".").some((label) => label.startsWith("xn--"))) warnings.push(`the address's domain ${host} is punycode: it may look like another domain`);
  const text = shown.flags.length === 0 ? url : shown.text;
  return { text: `It asks you to open this address yourself (toolshell does not open it; answer "yes" only if you trust it):\n  ${text}\n  domain: ${host}`, warnings };
}

/**
 * A question's schema as a person's form shows it: each field's `title` and `description` (the
 * server's text) escaped like the message when they hold hidden or control characters, with one
 * warning per flagged character naming the field. Values (`enum`, `const`, `default`) are left as
 * they are, since the answer must match them. Used where a form is shown by another program (the
 * gateway's client); the CLI escapes the same texts as it prints them.
 */
export function showSchema(schema: JsonSchema): { schema: JsonSchema; warnings: string[] } {
  const properties = (schema as { properties?: unknown }).properties;
  if (!properties || typeof properties !== "object" || Array.isArray(properties)) return { schema, warnings: [] };
  const warnings: string[] = [];
  const shown: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(properties as Record<string, unknown>)) {
    if (!field || typeof field !== "object" || Array.isArray(field)) {
      shown[name] = field;
      continue;
    }
    const out: Record<string, unknown> = { ...(field as Record<string, unknown>) };
    for (const key of ["title", "description"] as const) {
      const text = out[key];
      if (typeof text !== "string") continue;
      const s = showInput(text);
      if (!s.flags.length && !text.includes("\r")) continue;
      out[key] = s.text;
      warnings.push(...describeFlags(s.flags).map((w) => `${w} of the ${key} of field ${showName(name).text}`));
    }
    shown[name] = out;
  }
  return { schema: { ...schema, properties: shown } as JsonSchema, warnings };
}

/**
 * One report as a line for a person: `tools s x: started`, `tools s x: step 2 (2/5)`, `tools s
 * x: completed`. A command or message that holds hidden or control characters is shown escaped (as
 * {@link describeQuestion} does). Used by the gateway's notifications and the CLI's stderr.
 */
export function progressLine(r: CallProgress): string {
  const command = showName(r.command).text;
  if (r.phase === "started") return `${command}: started`;
  if (r.phase === "ended") return `${command}: ${r.status ?? "ended"}`;
  if (r.phase === "declined") return `${command}: a question it asked was declined: ${r.message ?? "nobody could answer"}`;
  const count = r.total !== undefined ? `${r.progress}/${r.total}` : `${r.progress}`;
  let message = r.message ?? "";
  if (message) {
    const shown = showInput(message);
    if (shown.flags.length || /[\n\r]/.test(message)) message = shown.text;
  }
  return `${command}: ${message ? `${message} ` : ""}(${count})`;
}
