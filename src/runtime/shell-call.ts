/**
 * One shell call: its call budget, its stop state, the list of what was done, the files it
 * wrote, and the path of every nested call (schema → budget → policy → hooks → invoke → hooks →
 * event).
 *
 * Rule source: DESIGN.md "The path of one nested call"; seed "Tools in Shell" → Errors
 * (`call_limit`: more than 50 tool calls in one shell call), Approvals (stop, done, read-only
 * calls counted); issue 2 (budget counts every way a call is made); issue 4 (stop report).
 */
import { signature, type Catalog } from "../catalog/index.js";
import type { CallJudge, Judgement } from "../policy/index.js";
import { checkKnownFields, refuseUnsafeInput, type NestedCallRequest, type ShellScope, type SubcommandHandler } from "../shell/index.js";
import { isPromiseLike, ToolCallError, type InvokeContext, type ToolOutput } from "../tool/index.js";
import { canonicalJson } from "../policy/index.js";
import type { RecordedCall, Replayed } from "./durable.js";
import { previewInput, trimResult } from "./preview.js";
import type { Redactor } from "./redact.js";
import type { DoneCall, Hooks, NestedCallStatus, StopReason } from "./types.js";

/** What a shell call needs from its session. */
export interface ShellCallHost {
  sessionId: string;
  sessionMetadata: Record<string, unknown>;
  judge: CallJudge;
  hooks: Hooks;
  callLimit: number;
  helpFooter: string;
  makeInvokeContext(callId: string, signal: AbortSignal): InvokeContext;
  emit(event: Record<string, unknown> & { type: string }): void;
  subcommand(word: string, call: ShellCall): SubcommandHandler | undefined;
  /** Raises an approval request for a stopped call; returns its id. */
  requestApproval(call: { tool: string; toolName: string; input: Record<string, unknown>; why?: string; callId: string; line?: number }): Promise<string>;
  /** The script line of a literal call matching this one, if preflight found it. */
  lineOf(command: string, input: Record<string, unknown>): number | undefined;
  /** Removes config secrets from outputs and error messages (issue 5). */
  redactor?: Redactor;
  /** A durable step running again: the recorded result of a call that completed in an earlier attempt. */
  replay?(index: number, command: string, input: Record<string, unknown>): Replayed | undefined;
  /** Keeps a completed call for replay (durable steps). */
  recordCall?(call: RecordedCall): void;
}

/** The stop state of a shell call. */
export interface StopState {
  reason: StopReason;
  error: ToolCallError;
  call?: { tool: string; input: Record<string, unknown> };
  requestId?: string;
  why?: string;
  line?: number;
}

const STOPPING: ReadonlySet<string> = new Set(["needs_approval", "call_limit", "stopped"]);

/** One run of a script through the `bash` tool. Implements the `tools` command's scope. */
export class ShellCall implements ShellScope {
  readonly id: string;
  readonly catalog: Catalog;
  readonly signal: AbortSignal;
  readonly helpFooter: string;
  readonly done: DoneCall[] = [];
  readOnlyCalls = 0;
  /** Calls refused by a guardrail, hook or answer (`denied`) in this shell call. */
  denials = 0;
  callsMade = 0;
  stop?: StopState;
  readonly filesWritten = new Set<string>();
  private readonly host: ShellCallHost;
  private readonly toolController = new AbortController();

  constructor(id: string, catalog: Catalog, host: ShellCallHost, signal: AbortSignal) {
    this.id = id;
    this.catalog = catalog;
    this.host = host;
    this.helpFooter = host.helpFooter;
    this.signal = AbortSignal.any([signal, this.toolController.signal]);
  }

  /** Marks the call stopped (first stop wins) and aborts tool calls in flight. */
  setStop(state: StopState): void {
    if (!this.stop) this.stop = state;
    this.toolController.abort(state.error);
  }

  /** The stop state, read fresh (it changes while a call awaits). */
  stopState(): StopState | undefined {
    return this.stop;
  }

  isStopped(): boolean {
    return this.stop !== undefined;
  }

  stopsScript(err: ToolCallError): boolean {
    return STOPPING.has(err.code) && this.stop !== undefined;
  }

  noteFiles(paths: string[]): void {
    for (const p of paths) this.filesWritten.add(p);
  }

  redact(text: string): string {
    return this.host.redactor?.active ? this.host.redactor.text(text) : text;
  }

  subcommand(word: string): SubcommandHandler | undefined {
    return this.host.subcommand(word, this);
  }

  /** Runs one nested call end to end. @throws ToolCallError (stopping ones after `setStop`). */
  async callTool(req: NestedCallRequest): Promise<ToolOutput> {
    if (this.stop) throw new ToolCallError("stopped", "an earlier call stopped the script, so this one did not run");
    const index = this.callsMade++;
    const callId = `${this.id}:tools:${index}:${req.tool.name}`;
    const started = performance.now();
    let input = req.input;
    let finished = false;
    const finish = (status: NestedCallStatus, error?: ToolCallError, replayed = false): void => {
      finished = true;
      this.host.emit({
        type: "tool.nested_call",
        session_id: this.host.sessionId,
        parent_tool_call_id: this.id,
        call_id: callId,
        tool_name: req.tool.name,
        command: req.command,
        status,
        input_preview: previewInput(input),
        ...(error ? { error: { code: error.code, message: error.message } } : {}),
        duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
        ...(replayed ? { replayed: true } : {}),
      });
    };
    if (index >= this.host.callLimit) {
      const err = new ToolCallError(
        "call_limit",
        `more than ${this.host.callLimit} tool calls in one shell call; fetch many items with one list-style call (tools search list) and filter with jq, or continue in a new shell call`,
      );
      this.setStop({ reason: "call_limit", error: err, call: { tool: req.command, input } });
      finish("stopped", err);
      throw err;
    }
    let judgement: Judgement | undefined;
    try {
      refuseUnsafeInput(input);
      checkKnownFields(req.tool, input);
      const checking = req.tool.validate(input);
      const checked = isPromiseLike(checking) ? await checking : checking;
      if (!checked.ok) throw invalid(req, checked.errors);
      input = checked.value;
      const replayed = this.host.replay?.(index, req.command, input);
      if (replayed) {
        if (replayed.readOnly) this.readOnlyCalls++;
        else if (replayed.done) this.done.push(replayed.done);
        finish("completed", undefined, true);
        return replayed.output;
      }
      // Hooks run after the schema check and before the policy, so a person's approval always
      // covers the input the tool will really get (a hook's replacement included).
      const hookCall = { tool: req.tool, command: req.command, input, sessionId: this.host.sessionId, callId, via: "shell" as const };
      // Absent hooks cost no await: this is the hot path of every nested call.
      const hooks = this.host.hooks;
      const before = hooks.beforeToolCall ? await hooks.beforeToolCall(hookCall) : undefined;
      if (before && before.action === "deny") throw new ToolCallError("denied", `${req.command}: ${before.reason}`);
      if (before && before.action === "replace") {
        checkKnownFields(req.tool, before.input);
        const again = await req.tool.validate(before.input);
        if (!again.ok) throw invalid(req, again.errors);
        input = again.value;
        hookCall.input = input;
      }
      const judging = this.host.judge.judge({
        tool: req.tool,
        command: req.command,
        input,
        sessionId: this.host.sessionId,
        sessionMetadata: this.host.sessionMetadata,
        callId,
      });
      judgement = isPromiseLike(judging) ? await judging : judging;
      if (judgement.risk === "blocked" || judgement.rejected) {
        throw new ToolCallError("denied", judgement.message ?? `${req.command} is blocked by policy`);
      }
      if (judgement.risk === "needs_approval" && !judgement.approved) {
        const line = this.host.lineOf(req.command, input);
        const requestId = await this.host.requestApproval({ tool: req.command, toolName: req.tool.name, input, why: judgement.why, callId, line });
        const err = new ToolCallError(
          "needs_approval",
          `${req.command} needs a person's approval (${judgement.why ?? "policy"}); the script stops here. Request ${requestId}`,
        );
        this.setStop({ reason: "needs_approval", error: err, call: { tool: req.command, input }, requestId, why: judgement.why, line });
        finish("needs_approval", err);
        throw err;
      }
      let output: ToolOutput;
      try {
        output = await req.tool.invoke(input, this.host.makeInvokeContext(callId, this.signal));
      } catch (err) {
        let e = err instanceof ToolCallError ? err : new ToolCallError("tool_error", String((err as Error)?.message ?? err));
        if (this.host.redactor?.active) e = new ToolCallError(e.code, this.host.redactor.text(e.message), e.retryable);
        if (hooks.afterToolCall) await hooks.afterToolCall(hookCall, { ok: false, error: { code: e.code, message: e.message } });
        throw e;
      }
      const after = hooks.afterToolCall ? await hooks.afterToolCall(hookCall, { ok: true, output }) : undefined;
      if (after && "output" in after && after.output) output = after.output;
      if (this.host.redactor?.active) output = this.host.redactor.output(output);
      this.record(req.command, input, judgement, { ok: true, result: output.kind === "json" ? output.value : output.text });
      if (this.host.recordCall) {
        try {
          const readOnly = judgement.risk === "read_only";
          const { raw: _raw, ...kept } = output;
          this.host.recordCall({ index, callId, command: req.command, inputKey: canonicalJson(input), output: kept, readOnly, ...(readOnly ? {} : { done: this.done[this.done.length - 1] }) });
        } catch {}
      }
      const stopped = this.stopState();
      if (stopped) {
        // The call finished after the shell call stopped (time limit): its result is recorded in
        // `done`, but the script does not go on.
        finish("stopped");
        throw new ToolCallError("stopped", `the shell call stopped (${stopped.reason}) while ${req.command} ran; its result is in the report`);
      }
      finish("completed");
      return output;
    } catch (err) {
      const e = err instanceof ToolCallError ? err : new ToolCallError("tool_error", String((err as Error)?.message ?? err));
      const stop = this.stopState();
      if (stop && (e.code === "needs_approval" || e.code === "call_limit" || e.code === "stopped")) {
        // A call stopped inside this one (a saved script's nested call): this call stopped too.
        if (!finished) finish("stopped", e);
        throw e;
      }
      if (stop && this.signal.aborted) {
        finish("stopped", e);
        throw new ToolCallError("stopped", `the shell call stopped (${stop.reason}) while ${req.command} ran`);
      }
      if (judgement && e.code !== "denied" && e.code !== "invalid_input") this.record(req.command, input, judgement, { ok: false, error: e });
      if (e.code === "denied") this.denials++;
      finish(e.code === "denied" ? "refused" : "failed", e);
      throw e;
    }
  }

  private record(tool: string, input: Record<string, unknown>, judgement: Judgement, outcome: { ok: true; result: unknown } | { ok: false; error: ToolCallError }): void {
    if (judgement.risk === "read_only") {
      this.readOnlyCalls++;
      return;
    }
    this.done.push(
      outcome.ok
        ? { tool, input, ok: true, result: trimResult(outcome.result) }
        : { tool, input, ok: false, error: { code: outcome.error.code, message: outcome.error.message } },
    );
  }
}

/** A schema refusal, with the tool's signature (issue 2: missing and mistyped fields say how to call it). */
function invalid(req: NestedCallRequest, errors: string[]): ToolCallError {
  return new ToolCallError("invalid_input", `${req.command}: ${errors.join("; ")}. Signature: ${signature(req.tool.name, req.tool.inputSchema)}`);
}
