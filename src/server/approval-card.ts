/**
 * What a person needs to answer an approval request, in one place for every surface that shows
 * it (the console's card, `GET /v1/approvals`, `toolshell approvals`): where it was asked (the
 * trigger by its name, or the session), what the tool is (its description, hints and why it needs
 * a person — its own definition or the configuration's rules), the script and the line that
 * asked (a trigger's saved script, not `tools scripts NAME -`), what already ran before the stop
 * in this shell call, whether the same call (same tool and input) already ran earlier in the
 * session, whether it was approved and in flight in an earlier attempt of the same step when that
 * attempt's replica stopped (it may have run upstream: the step's mark of the started call,
 * `RecordedCall.started`), what "Allow always" and "Reject always" cover, and what happens after
 * the answer.
 * No internal ids: people get names, lines and times.
 *
 * See README → Approvals; docs/sessions.md → The approval card.
 */
import { canonicalJson, type ApprovalRequest, type Decision } from "../policy/index.js";
import type { RecordedCall, Session, ShellResult, StepRecord } from "../runtime/index.js";
import { DEFAULT_AGENT, type StoredEvent } from "../store/index.js";
import type { CatalogTool, Hints } from "../tool/index.js";
import type { Host } from "./host.js";
import { knownReplicas } from "./shared-state.js";
import { shownTime } from "../display/time.js";

/** Why a call needs a person, in words (the `why` codes of the approval policy, README "Approvals"). */
const WHY_WORDS: Record<string, string> = {
  destructive: "it declares that it may destroy or overwrite data",
  open_world: "it declares that it reaches outside (the open world)",
  mutating: "it changes things, and the approval mode asks for every call that is not read-only",
  rated_changes: "it declares nothing about its risk and only looks like it changes things",
};

/** A call that already ran, as a person reads it. */
export interface RanCall {
  tool: string;
  input: unknown;
  /** When it ran (ISO time), when the session's events say. */
  at?: string;
}

/**
 * The same call (same tool, same canonical input) of the same step was approved and had started
 * in an earlier attempt, with no completed record: that attempt's replica (or process) stopped
 * while the call was in flight, so it may already have run upstream.
 */
export interface InFlight {
  /** Who allowed it, through which surface, and when (the answer to the earlier request), when known. */
  approved_by?: string;
  surface?: string;
  approved_at?: string;
  /** When the call started. */
  started_at: string;
  /** The replica that was running it, when one was (its host and pid while the store has its record). */
  replica?: { id: string; host?: string; pid?: number };
  /** The warning a person is shown, in words. */
  warning: string;
}

/** The warning of an in-flight call, as the console and `toolshell approvals` show it. */
export function inFlightWarning(f: Omit<InFlight, "warning">): string {
  const by = f.approved_by ? ` by ${f.approved_by}${f.surface ? ` (${f.surface})` : ""}` : "";
  const at = f.approved_at ? ` at ${shownTime(f.approved_at)}` : "";
  const r = f.replica;
  const where = r ? `replica ${r.id}${r.host || r.pid ? ` (${[r.host, r.pid ? `pid ${r.pid}` : ""].filter(Boolean).join(", ")})` : ""}` : "the process running it";
  return `This exact call was approved${by}${at} and had started at ${shownTime(f.started_at)} when ${where} stopped; it may already have run upstream. Allowing it runs it again.`;
}

/**
 * Answers `request` in `session` as its card showed it: when the card warned that the same call
 * was in flight on a replica that stopped ({@link InFlight}), the `approval.answered` event keeps
 * that warning (`warned`), so the session's history says the person allowed a call that may have
 * run already. The one way the HTTP API (and the console through it) and `toolshell approve` answer.
 * @returns the answered request and, for `allow_always` and `reject_always`, the card's sentence
 *   for what the answer covers (every call of the tool there, not the input shown).
 */
export async function answerAsShown(host: Host, session: Session, request: ApprovalRequest, decision: Decision, actor: { surface: string; by: string }): Promise<{ answered: ApprovalRequest; covers?: string }> {
  const details = await new ApprovalDetailsReader(host).read(request);
  const warned = details.in_flight?.warning;
  const answered = await session.answer(request.id, decision, { ...actor, ...(warned ? { warned } : {}) });
  return { answered, ...(decision === "allow_always" || decision === "reject_always" ? { covers: details.scope[decision] } : {}) };
}

/** What a card says about one pending request (see the file comment). */
export interface ApprovalDetails {
  /** Where it was asked: a trigger's run (by the trigger's name) or a session. */
  where: { kind: "trigger"; trigger_id: string; trigger_name: string; run_id?: string } | { kind: "session"; session_id: string };
  /** The tool's description, when the catalog has the tool. */
  description?: string;
  /** The tool's declared hints (absent when it declared none). */
  hints?: Hints;
  /** Why it needs a person, in words, naming where that rule comes from. */
  risk: string;
  /** The script that asked: a saved script (name, version) or the shell call's own script. */
  script?: { saved?: { name: string; version: number }; text: string };
  /** The line of that script that asked (1-based), when one line writes the call. */
  line?: number;
  /** True when the script had not started (the call was found by reading it). */
  before_start: boolean;
  /** Calls that completed in this shell call before it stopped here. */
  ran_before: RanCall[];
  /** The same call (same tool, same input) completed earlier in this session. */
  already_ran?: RanCall;
  /** The same call of the same step was approved and in flight when its replica stopped (see {@link InFlight}). */
  in_flight?: InFlight;
  /** What "Allow always" and "Reject always" cover. */
  scope: { allow_always: string; reject_always: string };
  /** What happens after the answer. */
  after_answer: string;
}

/** The catalog's tool for a command (`tools x` or `tools server x`), without loading anything. */
function toolOf(host: Host, command: string): CatalogTool | undefined {
  const catalog = host.shell.catalog();
  const words = command.trim().split(/\s+/).slice(1);
  try {
    if (words.length >= 2) {
      const source = catalog.findSource(words[0]);
      if (source && source.state() === "ready") return catalog.findTool(source.tools(), words[1]);
    }
    return catalog.findTool(catalog.topLevelTools(), words[0]);
  } catch {
    return undefined;
  }
}

/** Why the call needs a person, naming the rule's source. */
function riskOf(tool: CatalogTool | undefined, why: string | undefined): string {
  const own = tool?.approval;
  if (own?.kind === "always") return "needs approval: the tool's definition asks for a person at every call (approval: always())";
  if (own?.kind === "once") return "needs approval: the tool's definition asks for a person once per session (approval: once())";
  if (own?.kind === "predicate") return "needs approval: the tool's definition decided this call needs a person (its approval check)";
  if (why && WHY_WORDS[why]) return `needs approval: ${WHY_WORDS[why]}`;
  return "needs approval: the configuration's approval rules ask for a person for this tool";
}

/** The line of `text` that writes the call, when exactly one line does (`tools refund …` inside a loop, say). */
function lineOf(text: string, command: string): number | undefined {
  const words = command.trim().split(/\s+/).map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/[-_]/g, "[-_]"));
  const re = new RegExp(`(^|[^\\w-])${words.join("\\s+")}(?![\\w-])`, "i");
  const hits = text.split("\n").flatMap((l, i) => (re.test(l) ? [i + 1] : []));
  return hits.length === 1 ? hits[0] : undefined;
}

/** Reads what a card needs for many requests, sharing the reads of one session. */
export class ApprovalDetailsReader {
  private readonly steps = new Map<string, Promise<StepRecord[]>>();
  private readonly calls = new Map<string, Promise<RecordedCall[]>>();
  private readonly events = new Map<string, Promise<StoredEvent[]>>();
  private readonly books = new Map<string, Promise<ApprovalRequest[]>>();

  constructor(private readonly host: Host) {}

  private stepsOf(sessionId: string): Promise<StepRecord[]> {
    if (!this.steps.has(sessionId)) this.steps.set(sessionId, this.host.store.listSteps(sessionId));
    return this.steps.get(sessionId)!;
  }

  private callsOf(sessionId: string, toolCallId: string): Promise<RecordedCall[]> {
    const key = `${sessionId}\n${toolCallId}`;
    if (!this.calls.has(key)) this.calls.set(key, this.host.store.recordedCalls(sessionId, toolCallId));
    return this.calls.get(key)!;
  }

  private eventsOf(sessionId: string): Promise<StoredEvent[]> {
    if (!this.events.has(sessionId)) this.events.set(sessionId, this.host.store.listEvents(sessionId, { limit: 10_000 }));
    return this.events.get(sessionId)!;
  }

  private requestsOf(sessionId: string): Promise<ApprovalRequest[]> {
    if (!this.books.has(sessionId)) this.books.set(sessionId, this.host.store.approvalBook(sessionId).then((b) => b.snapshot().requests));
    return this.books.get(sessionId)!;
  }

  /**
   * The mark of the same call (same command, same canonical input) in step `shellId` that started
   * and neither completed nor ended, with who approved it and the replica that ran it; else undefined.
   */
  private async inFlight(r: ApprovalRequest, shellId: string, key: string): Promise<InFlight | undefined> {
    const calls = await this.callsOf(r.session_id, shellId).catch(() => [] as RecordedCall[]);
    const mark = calls.find((c) => c.started && !c.started.ended && c.task === undefined && c.command === r.tool && c.inputKey === key)?.started;
    if (!mark) return undefined;
    // The answer that let it through: the latest one-off allow of the same call given before it started.
    const answered = (await this.requestsOf(r.session_id).catch(() => [] as ApprovalRequest[]))
      .filter((q) => q.decision === "allow" && q.tool === r.tool && canonicalJson(q.input) === key && q.answered_at && q.answered_at <= mark.at)
      .sort((a, b) => a.answered_at!.localeCompare(b.answered_at!))
      .pop();
    let replica: InFlight["replica"];
    if (mark.replica) {
      const known = (await knownReplicas(this.host.store).catch(() => [])).find((x) => x.id === mark.replica);
      replica = { id: mark.replica, ...(known ? { host: known.host, pid: known.pid } : {}) };
    }
    const f: Omit<InFlight, "warning"> = {
      ...(answered?.answered_by ? { approved_by: answered.answered_by.by, surface: answered.answered_by.surface } : {}),
      ...(answered?.answered_at ? { approved_at: answered.answered_at } : {}),
      started_at: mark.at,
      ...(replica ? { replica } : {}),
    };
    return { ...f, warning: inFlightWarning(f) };
  }

  /** The details of one request. Never throws: what cannot be read is left out. */
  async read(r: ApprovalRequest): Promise<ApprovalDetails> {
    const { store } = this.host;
    // `call_bash_2:tools:0:pay`, `call_bash_2` before start, or either with `~…` when its id was taken.
    const shellId = r.tool_call_id.split(":")[0].split("~")[0];
    const index = /:tools:(\d+):/.exec(r.tool_call_id);
    const session = await store.getSession(r.session_id).catch(() => undefined);
    const agent = session?.agent_id ?? DEFAULT_AGENT;
    const steps = await this.stepsOf(r.session_id).catch(() => [] as StepRecord[]);
    const step = [...steps].reverse().find((s) => s.kind === "shell" && s.toolCallId === shellId);
    const stopped = (step?.result as ShellResult | undefined)?.tools?.stopped;
    const beforeStart = stopped?.request_id === r.id ? stopped.before_start === true : !index;

    const triggerId = r.session_id.startsWith("trg_") ? r.session_id.slice(4) : undefined;
    const trigger = triggerId ? await store.getTrigger(triggerId).catch(() => undefined) : undefined;
    let runId: string | undefined;
    if (trigger) runId = (await store.listTriggerRuns(trigger.id, { limit: 20 }).catch(() => [])).find((x) => x.request_id === r.id)?.id;
    const where: ApprovalDetails["where"] = trigger
      ? { kind: "trigger", trigger_id: trigger.id, trigger_name: trigger.name, ...(runId ? { run_id: runId } : {}) }
      : { kind: "session", session_id: r.session_id };

    // The script that asked: the innermost saved script the call was made in, else the shell call's script.
    let script: ApprovalDetails["script"];
    const inner = r.scripts?.[r.scripts.length - 1];
    if (inner) {
      const saved = await store.getScript(agent, inner.name, { version: inner.version }).catch(() => undefined);
      if (saved) script = { saved: { name: inner.name, version: inner.version }, text: saved.body };
    }
    if (!script) {
      const req = step?.request as { script?: unknown } | undefined;
      if (typeof req?.script === "string") script = { text: req.script };
    }
    const line = (!inner ? r.line : undefined) ?? (script ? lineOf(script.text, r.tool) : undefined);

    const ran_before: RanCall[] = [];
    const key = canonicalJson(r.input);
    let already_ran: RanCall | undefined;
    const events = await this.eventsOf(r.session_id).catch(() => [] as StoredEvent[]);
    const atOf = (callId: string) => (events.find((e) => e.type === "tool.nested_call" && (e as Record<string, unknown>).call_id === callId) as { at?: string } | undefined)?.at;
    if (step) {
      // Stopped at a call: the calls before it. Asked before a resumed step's start: what its
      // earlier runs completed (replayed when the step is sent again, not run again).
      for (const c of await this.callsOf(r.session_id, shellId).catch(() => [])) {
        if ((!index || c.index < Number(index[1])) && !c.started) ran_before.push({ tool: c.command, input: JSON.parse(c.inputKey) as unknown, ...(atOf(c.callId) ? { at: atOf(c.callId) } : {}) });
      }
    }
    for (const s of [...steps].reverse().slice(0, 50)) {
      if (s.kind !== "shell") continue;
      const same = (await this.callsOf(r.session_id, s.toolCallId).catch(() => [])).find((c) => !c.started && c.command === r.tool && c.inputKey === key);
      if (same) {
        already_ran = { tool: same.command, input: r.input, ...(atOf(same.callId) ? { at: atOf(same.callId) } : {}) };
        break;
      }
    }

    const in_flight = await this.inFlight(r, shellId, key);

    const tool = toolOf(this.host, r.tool);
    const whereWords = trigger ? `every run of trigger ${trigger.name}` : `session ${r.session_id}`;
    const inScript = inner ? `, made inside saved script ${inner.name} version ${inner.version} (saved again with another body, it asks again)` : "";
    const scope = {
      allow_always: `Allow always: every call of ${r.tool} in ${whereWords}${inScript}, with any input, runs without asking.`,
      reject_always: `Reject always: every call of ${r.tool} in ${whereWords}, in any script, answers denied.`,
    };
    const after_answer = trigger && !trigger.enabled
      ? `Trigger ${trigger.name} is disabled: the answer is kept, but the run does not go on (a disabled trigger runs nothing); a later run, once it is enabled, asks again or uses the answer.`
      : trigger
      ? `The run goes on as soon as you answer: what already ran is not run again, ${beforeStart ? "the script starts" : "this call runs with your answer"} (denied after Reject), and the script continues.`
      : beforeStart && ran_before.length
        ? "This run of the step has not started; its earlier run made the calls listed. Nothing runs until the agent sends the same step_id again: those calls are replayed, not run again, and the script goes on with your answer."
        : beforeStart
        ? "The script has not run. Nothing runs until the agent sends it again: after Allow once, the agent must send the same script again (a terminal or MCP client that waits does this by itself)."
        : "The script stopped at this call. Nothing goes on by itself: the agent runs it again — sent with the same step_id it resumes, what already ran replayed; sent as a new script, calls that ran before run again.";
    return {
      where,
      ...(tool?.description ? { description: tool.description } : {}),
      ...(tool?.hintsDeclared ? { hints: tool.hints } : {}),
      risk: riskOf(tool, r.why),
      ...(script ? { script } : {}),
      ...(line ? { line } : {}),
      before_start: beforeStart,
      ran_before,
      ...(already_ran ? { already_ran } : {}),
      ...(in_flight ? { in_flight } : {}),
      scope,
      after_answer,
    };
  }
}
