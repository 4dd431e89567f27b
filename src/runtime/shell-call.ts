/**
 * One shell call: its call budget, its stop state, the list of what was done, the files it
 * wrote. Its nested calls go through the call pipeline (src/call/) with this shell call as their
 * scope: the budget, the stop state, the replay of an earlier attempt and the `done` list are
 * this object's data.
 *
 * See docs/architecture.md → One shell call; README → Approvals.
 */
import { trimResult, type CallPipeline, type CallScope, type CallState, type Replayed, type ResumedTask, type StopState } from "../call/index.js";
import type { Catalog } from "../catalog/index.js";
import { noteStop, type NestedCallRequest, type ShellScope, type SubcommandHandler } from "../shell/index.js";
import { canonicalJson, isPromiseLike, ToolCallError, type ToolCall, type ToolOutput } from "../tool/index.js";
import type { Decision } from "../policy/index.js";
import { isHeldCall, type HeldAnswer, type RecordedCall } from "./durable.js";
import type { Replayer } from "./replay.js";
import type { Session } from "./session.js";
import type { DoneCall } from "./types.js";

export type { StopState } from "../call/index.js";

const STOPPING: ReadonlySet<string> = new Set(["needs_approval", "call_limit", "stopped"]);

/** What a shell call gets from its session when it starts. */
export interface ShellCallOptions {
  id: string;
  catalog: Catalog;
  session: Session;
  pipeline: CallPipeline;
  callLimit: number;
  helpFooter: string;
  /** Aborts the shell call from outside (time limit, caller gone). */
  signal: AbortSignal;
  /** Literal calls the preflight found, to name the line of a call stopped at run time. */
  lines?: Array<{ command: string; input: Record<string, unknown>; line: number }>;
  /** The durable step this shell call belongs to. */
  stepId?: string;
  /** A durable step running again: the calls of the earlier attempt. */
  replayer?: Replayer;
  /** A durable step resumed once its approval was answered: that answer, for the call it held. */
  held?: HeldAnswer;
  /** Keeps a completed call for replay, or the mark of a call that started (durable steps; a promise settles once a mark is written). */
  recordCall?(call: RecordedCall): void | Promise<void>;
  /** The `tools <word>` subcommand handler for this shell call, if any. */
  subcommand?(word: string, call: ShellCall): SubcommandHandler | undefined;
  /** Removes config secrets from text the `tools` command prints. */
  redactText?(text: string): string;
}

/** The monotonic clock, taken at load (the engine's guard hides globals while a script runs). */
const clock = performance.now.bind(performance);

/** One run of a script through the `bash` tool: the `tools` command's scope and the pipeline's. */
export class ShellCall implements ShellScope, CallScope {
  readonly id: string;
  readonly catalog: Catalog;
  readonly signal: AbortSignal;
  readonly helpFooter: string;
  readonly session: Session;
  readonly callLimit: number;
  readonly done: DoneCall[] = [];
  readOnlyCalls = 0;
  /** Calls refused by a guardrail, hook or answer (`denied`) in this shell call. */
  denials = 0;
  callsMade = 0;
  stop?: StopState;
  readonly filesWritten = new Set<string>();
  private readonly o: ShellCallOptions;
  private readonly toolController = new AbortController();
  private readonly lineKeys: Map<string, number> | undefined;
  /** The marks of calls that started and have not ended yet (`recordStart`), by call id. */
  private readonly marks = new Map<string, RecordedCall>();

  /** The durable step this shell call belongs to, if any. */
  get stepId(): string | undefined {
    return this.o.stepId;
  }

  constructor(o: ShellCallOptions) {
    this.o = o;
    this.id = o.id;
    this.catalog = o.catalog;
    this.session = o.session;
    this.callLimit = o.callLimit;
    this.helpFooter = o.helpFooter;
    this.signal = AbortSignal.any([o.signal, this.toolController.signal]);
    this.lineKeys = o.lines?.length ? new Map(o.lines.map((l) => [`${l.command}\u0000${canonicalJson(l.input)}`, l.line])) : undefined;
    const replayer = o.replayer;
    if (replayer) this.replay = (index, command, givenKey) => replayer.take(index, command, givenKey);
    const recordCall = o.recordCall;
    if (recordCall) {
      this.recordTask = (call, task) => {
        // The task's record replaces the call's mark: a later attempt follows the task.
        this.marks.delete(call.callId);
        try {
          void recordCall({ index: call.index!, callId: call.callId, command: call.command, inputKey: canonicalJson(call.given), output: { kind: "text", text: "" }, readOnly: false, task });
        } catch {}
      };
      this.recordStart = (call) => {
        const mark: RecordedCall = { index: call.index!, callId: call.callId, command: call.command, inputKey: canonicalJson(call.given), output: { kind: "text", text: "" }, readOnly: false, started: { at: new Date().toISOString() } };
        this.marks.set(call.callId, mark);
        try {
          const written = recordCall(mark);
          return written ? written.catch(() => {}) : undefined;
        } catch {}
      };
    }
    const held = o.held;
    if (held) {
      let taken = false;
      this.heldAnswer = (call) => {
        if (taken || !isHeldCall(held, call.command, call.given)) return undefined;
        taken = true;
        return held.decision;
      };
    }
  }

  /** Marks the call stopped (first stop wins) and aborts tool calls in flight. */
  setStop(state: StopState): void {
    if (!this.stop) {
      this.stop = state;
      noteStop();
    }
    this.toolController.abort(state.error);
  }

  /** The stop state, read fresh (it changes while a call awaits). */
  stopState(): StopState | undefined {
    return this.stop;
  }

  /**
   * When the time limit passes (`clock()` ms) and what to do then: its timer does it, and so does
   * the first look at the call past that time — a command that held the event loop past the limit
   * (a long regular-expression match) leaves the timer unfired at the next statement.
   */
  #deadline?: { at: number; expire: () => void };

  /** Sets the call's deadline (see {@link isStopped}). */
  setDeadline(at: number, expire: () => void): void {
    this.#deadline = { at, expire };
  }

  isStopped(): boolean {
    if (this.stop === undefined && this.#deadline && clock() >= this.#deadline.at) this.#deadline.expire();
    return this.stop !== undefined;
  }

  /** Marks the call stopped by a host limit the script itself reached (no tool call is in flight then: nothing to abort). */
  stopWith(error: ToolCallError): void {
    if (!this.stop) {
      this.stop = { reason: "error", error };
      noteStop();
    }
  }

  stopsScript(err: ToolCallError): boolean {
    return STOPPING.has(err.code) && this.stop !== undefined;
  }

  noteFiles(paths: string[]): void {
    for (const p of paths) this.filesWritten.add(p);
  }

  /** The line saying a write failed at a bound of files, once one did (ShellScope.noteFilesFull). */
  filesFull?: string;

  noteFilesFull(line: string): void {
    this.filesFull = line;
  }

  redact(text: string): string {
    return this.o.redactText ? this.o.redactText(text) : text;
  }

  subcommand(word: string): SubcommandHandler | undefined {
    return this.o.subcommand?.(word, this);
  }

  /** The pipeline's `replay`: present only inside a durable step that runs again (hot path: no key is computed otherwise). */
  readonly replay?: (index: number, command: string, givenKey: string) => Replayed | ResumedTask | undefined;

  /** The pipeline's `recordTask`: present only inside a durable step (the store keeps the task at once). */
  readonly recordTask?: (call: ToolCall, taskId: string) => void;

  /** The pipeline's `recordStart`: present only inside a durable step (the store keeps the mark at once). */
  readonly recordStart?: (call: ToolCall) => void | Promise<void>;

  /** The pipeline's `heldAnswer`: present only inside a step resumed after its approval was answered (durable.ts). */
  readonly heldAnswer?: (call: ToolCall) => Decision | undefined;

  /** The pipeline's `lineOf`: the script line of a literal call, asked only when a request is raised. */
  lineOf(call: ToolCall): number | undefined {
    return this.lineKeys?.get(`${call.command}\u0000${canonicalJson(call.given)}`);
  }

  /** Runs one nested call through the pipeline. @throws ToolCallError (stopping ones after the stop is set). */
  async callTool(req: NestedCallRequest): Promise<ToolOutput> {
    // A call after the stop takes no place in the budget.
    const index = this.stop ? this.callsMade : this.callsMade++;
    const call: ToolCall = {
      callId: `${this.id}:tools:${index}:${req.tool.name}`,
      tool: req.tool,
      command: req.command,
      given: req.input,
      input: req.input,
      sessionId: this.session.id,
      sessionMetadata: this.session.metadata,
      via: "shell",
      parentId: this.id,
      index,
      ...(this.o.stepId ? { stepId: this.o.stepId } : {}),
    };
    const running = this.o.pipeline.run(call, this);
    const s = isPromiseLike(running) ? await running : running;
    if (s.error) throw s.error;
    if (s.stoppedWhileRunning) {
      // The call finished after the shell call stopped (time limit): its result is in `done`,
      // but the script does not go on.
      throw new ToolCallError("stopped", `the shell call stopped (${s.stoppedWhileRunning.reason}) while ${call.command} ran; its result is in the report`);
    }
    return s.output!;
  }

  /**
   * The pipeline's `record` step: the stop report's `done` list and read-only count, and the
   * durable record. A call marked as started that ends without a completed record keeps its mark
   * with `ended`: it did not stay in flight.
   */
  record(s: CallState): void {
    if (s.replayed) {
      if (s.replayed.readOnly) this.readOnlyCalls++;
      else if (s.replayed.done) this.done.push(s.replayed.done);
      return;
    }
    const mark = this.marks.get(s.call.callId);
    if (!mark) return void this.keep(s);
    this.marks.delete(s.call.callId);
    if (this.keep(s)) return;
    try {
      void this.o.recordCall?.({ ...mark, started: { ...mark.started!, ended: new Date().toISOString() } });
    } catch {}
  }

  /** Keeps the outcome of a call that ran (see {@link record}). @returns true when its completed record was kept. */
  private keep(s: CallState): boolean {
    const { call, judgement, error } = s;
    if (error?.code === "denied") this.denials++;
    // Calls never judged (bad input, over the budget) and calls that stopped the script change nothing.
    if (!judgement || s.status === "stopped" || s.status === "needs_approval" || error?.code === "denied" || error?.code === "invalid_input") return false;
    const readOnly = judgement.risk === "read_only";
    if (readOnly) this.readOnlyCalls++;
    else {
      this.done.push(
        error
          ? { tool: call.command, input: call.given, ok: false, error: { code: error.code, message: error.message } }
          : { tool: call.command, input: call.given, ok: true, result: trimResult(s.output!.kind === "json" ? s.output!.value : s.output!.text, (t) => this.redact(t)) },
      );
    }
    if (error || !this.o.recordCall) return false;
    try {
      const { raw: _raw, ...kept } = s.output!;
      void this.o.recordCall({
        index: call.index!,
        callId: call.callId,
        command: call.command,
        inputKey: canonicalJson(call.given),
        output: kept,
        readOnly,
        ...(readOnly ? {} : { done: this.done[this.done.length - 1] }),
      });
      return true;
    } catch {
      return false;
    }
  }
}
