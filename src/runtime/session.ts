/**
 * A session: durable state across shell calls — the sandbox filesystem, events, approvals — and
 * `bash(script)`, one shell call end to end (preflight → exec → budget → stop report).
 *
 * See docs/architecture.md → One shell call.
 */
import { personContext, previewFields, redactValue, withPerson, type CallSession, type Person, type SessionEvent, type SessionEventInput } from "../call/index.js";
import type { Catalog } from "../catalog/index.js";
import { actingFor } from "../mcp/index.js";
import type { ApprovalRequest, Decision } from "../policy/index.js";
import { errorLine, runInScope, WORKDIR, type Engine } from "../shell/index.js";
import { createSessionEngine } from "./engine-choice.js";
import { redactionFailed, ToolCallError, type InvokeContext, type SandboxHandle, type ToolCall } from "../tool/index.js";
import { heldRequestIds, notAskedAgain, runShellStep, runStep, type DurableRun, type DurableSessionView, type HeldAnswer } from "./durable.js";
import type { ShellHost } from "./host.js";
import { heldHere, holdSession, SessionBusyError, whenLeaseLost } from "./lease.js";
import { authOf, openerOf, ownerRefusal, parentsOf, type SessionOpener, type SessionOwnerError } from "./lineage.js";
import { approvalsBeforeStart, type PreflightOutcome } from "./plan-command.js";
import { sandboxOf } from "./sandbox.js";
import { ShellCall } from "./shell-call.js";
import { approvalBeforeStart, beforeStartReport, reportAfterRun } from "./stop-report.js";
import type { ShellResult, StopReport } from "./types.js";

export type { PreflightOutcome } from "./plan-command.js";

/** Events a session keeps in memory; older ones are dropped 1,000 at a time (the store keeps all). */
export const MAX_EVENTS_IN_MEMORY = 10_000;

/** Options of one shell call. */
export interface BashOptions {
  /** Time limit in milliseconds (default: the ToolShell's). */
  timeoutMs?: number;
  /** Standard input of the script. */
  stdin?: string;
  /** Aborts the shell call from outside. */
  signal?: AbortSignal;
  /**
   * A stable id making this shell call a durable step (with a store): asked again, a completed
   * step returns its recorded result without running; an interrupted one runs again, replaying
   * the nested calls that completed (see durable.ts).
   */
  stepId?: string;
  /** Who can see this call's progress and answer its tools' questions (the surface's; see call/person.ts). */
  person?: Person;
  /** @internal Set by the step logic: the shell call id and the replay of an earlier attempt. */
  durable?: DurableRun;
}

/** A session of one agent: filesystem, events, shell calls. */
export class Session implements CallSession {
  readonly id: string;
  readonly metadata: Record<string, unknown>;
  readonly engine: Engine;
  readonly events: SessionEvent[] = [];
  private shellCalls = 0;
  private readonly host: ShellHost;
  /** Resolves when the store restored the session; rejects with `refusal` (another principal's). */
  readonly ready: Promise<void>;
  /** Who opened it; undefined when it checked reach itself (lineage.ts `ownerRefusal`). */
  readonly opener: SessionOpener | undefined;
  refusal?: SessionOwnerError;

  constructor(id: string, host: ShellHost, metadata: Record<string, unknown> = {}, options: { anyOwner?: boolean } = {}, engine?: Engine) {
    this.id = id;
    this.host = host;
    this.metadata = metadata;
    this.opener = openerOf(metadata, options);
    this.engine = engine ?? createSessionEngine({
        workspaceDir: host.workspaceDir,
        commands: host.engineCommands,
        maxExecutionTimeMs: host.timeoutMs + 5_000,
        maxOutputBytes: host.maxOutputBytes,
        maxFileBytes: host.maxSessionFileBytes,
        defenseInDepth: host.defenseInDepth,
      });
    (this.ready = this.restore()).catch(() => {});
  }

  /** Opens the session in the store: its metadata, shell-call count and files come back. */
  private async restore(): Promise<void> {
    const store = this.host.store;
    if (!store) return;
    let snap;
    try {
      snap = await store.openSession({ id: this.id, metadata: this.metadata, files: this.durableView().files() });
    } catch (err) {
      this.emit({ type: "store.failed", message: `restoring the session: ${err instanceof Error ? err.message : String(err)}` });
      return;
    }
    this.refusal = snap.created ? undefined : ownerRefusal(this.id, this.opener, snap.metadata);
    if (this.refusal) throw this.refusal;
    for (const [k, v] of Object.entries(snap.metadata)) if (!(k in this.metadata)) this.metadata[k] = v;
    this.shellCalls = Math.max(this.shellCalls, snap.shellCalls);
    // Its saved scripts read now: the `bash` tool's description counts them before the first call.
    await this.freshCatalog();
  }

  /**
   * Runs `fn` holding the session (runtime/lease.ts): with a store that has a lease, other
   * replicas wait, and what another one wrote since this object last saw the session comes in
   * first. Without one, `fn` just runs.
   * @throws SessionBusyError when the session could not be had within `waitMs`; whatever `fn` throws.
   */
  private async hold<T>(waitMs: number, fn: () => Promise<T>): Promise<T> {
    const store = this.host.store;
    if (!store?.lease) {
      // Without a lease (SQLite) another process may still have run the session on the same
      // file (the CLI's warm host beside a `--no-daemon` run): its files come in first.
      if (store?.refreshSession) await this.refreshFiles();
      return fn();
    }
    // Under the lease: files, shell-call count and approval book as another replica left them.
    return holdSession(this, store, this.id, waitMs, async () => void (await this.refreshFiles(), await this.host.policy.openBook(this.id, { fresh: true })), fn);
  }

  /**
   * Runs `fn` (a direct tool call, say) holding the session as a shell call does: on a store
   * replicas share, no shell call of the session runs meanwhile on any replica, and the approval
   * book is read as the others left it. Without a lease, `fn` just runs.
   * @throws SessionBusyError when the session could not be had within the time limit; whatever `fn` throws.
   */
  async holding<T>(fn: () => Promise<T>): Promise<T> {
    await this.ready;
    return this.hold(this.host.timeoutMs, fn);
  }

  /** The files and shell-call count as another process left them, when it ran the session since. */
  private async refreshFiles(): Promise<void> {
    const snap = await this.host.store?.refreshSession?.({ id: this.id, files: this.durableView().files() });
    if (snap) {
      this.shellCalls = Math.max(this.shellCalls, snap.shellCalls);
      for (const [k, v] of Object.entries(snap.metadata)) if (!(k in this.metadata)) this.metadata[k] = v;
    }
  }

  /** The session as the durable-step logic sees it. */
  private durableView(): DurableSessionView {
    return {
      id: this.id,
      store: this.host.store!,
      files: () => ({ fs: this.engine.fs, exclude: this.host.workspaceDir ? [WORKDIR] : [] }),
      nextToolCallId: async () => {
        const n = (await this.host.store?.nextShellCall?.(this.id)) ?? this.shellCalls + 1;
        this.shellCalls = Math.max(this.shellCalls, n);
        return `call_bash_${n}`;
      },
      shellCallCount: () => this.shellCalls,
      emit: (e) => this.emit(e),
      pendingApprovalIds: async () => (await this.pendingApprovals()).map((r) => r.id),
    };
  }

  /**
   * Runs `fn` as a durable step (e.g. a direct tool call): completed once, it is never run again and its
   * recorded result (JSON) is returned. Without a store, `fn` just runs. `request` identifies the work.
   * @throws whatever `fn` throws; Error when the step id was recorded with another request.
   */
  async step<T>(stepId: string, request: unknown, fn: () => Promise<T>, kind = "step"): Promise<T> {
    return this.host.work(async () => (await this.ready, this.host.store ? this.hold(this.host.timeoutMs, () => runStep(this.durableView(), stepId, kind, request, fn)) : fn()));
  }

  /**
   * Records an event in the session timeline (and hands it to the host's listener), redacted. An
   * event the redactor fails on is recorded as `redaction.failed` naming only its type. Never throws.
   */
  emit(event: SessionEventInput): void {
    const at = new Date().toISOString();
    let e: SessionEvent;
    try {
      // Redacted whole, then its previews cut: a secret is never cut in two before it is seen.
      e = previewFields(this.host.redactor.value({ session_id: this.id, at, ...event } as SessionEvent));
    } catch {
      e = { session_id: this.id, at, type: "redaction.failed", event: event.type, message: redactionFailed().message };
    }
    this.events.push(e);
    // The in-memory timeline is bounded (the store, when there is one, keeps everything).
    if (this.events.length > MAX_EVENTS_IN_MEMORY) this.events.splice(0, this.events.length - MAX_EVENTS_IN_MEMORY + 1000);
    try {
      this.host.store?.appendEvent(e);
    } catch {}
    try {
      this.host.onEvent?.(e);
    } catch {}
  }

  /** Approval requests of this session still waiting for a person's answer. */
  async pendingApprovals(): Promise<ApprovalRequest[]> {
    // Another replica may have raised or answered requests; while this process holds the
    // session (a shell call, a direct call, an answer), its book in memory is the current one.
    await this.ready;
    const fresh = !!this.host.store?.lease && !heldHere(this);
    return (await this.host.policy.openBook(this.id, { fresh })).pending();
  }

  /**
   * The approvals a script waits for before it starts, asked now without running anything: the
   * preflight `bash` runs (README "Approvals"), so the requests raised here are the ones the
   * script's run looks its answers up by. For surfaces that ask the person before a shell call
   * (the AI SDK's tool approval). Never throws: a script that cannot be read asks nothing.
   * @param toolCallId names the requests (`<toolCallId>:preflight:line_<N>`).
   * @param stepId the durable step it will run as: calls completed in an earlier attempt are not asked again.
   */
  async approvalsBeforeStart(script: string, toolCallId: string, stepId?: string): Promise<ApprovalRequest[]> {
    if (await this.ready.then(() => false, () => true)) return [];
    return actingFor(this, () => approvalsBeforeStart(this, this.host, script, toolCallId, stepId));
  }

  /**
   * Records a person's answer to an approval request, with who gave it through which surface
   * (`actor`, when known; `warned`: what the card warned the person of). A stopped script is not resumed: after `allow`, run a script again
   * (the same one, or a new one for what is left).
   * @throws Error when the request is unknown, already answered, or the decision is not one of
   *         allow, allow_always, reject, reject_always.
   */
  async answer(requestId: string, decision: Decision, actor?: { surface: string; by: string; warned?: string }): Promise<ApprovalRequest> {
    await this.ready;
    // Held like a shell call: the book is read as other replicas left it, and no shell call writes it meanwhile.
    return this.hold(this.host.timeoutMs, async () => {
      const req = (await this.host.policy.openBook(this.id)).answer(requestId, decision, actor);
      // The step held for it, so its agent reads it may send it again (docs/sessions.md → Durable steps).
      const step = (await this.host.store?.listSteps?.(this.id, { status: "waiting_approval" }))?.find((s) => heldRequestIds(s).includes(requestId));
      this.emit({ type: "approval.answered", request_id: requestId, tool: req.tool, decision, ...(step ? { step_id: step.stepId } : {}), ...(actor ? { by: actor.by, surface: actor.surface } : {}), ...(actor?.warned ? { warned: actor.warned } : {}), ...(this.host.store?.holder ? { replica: this.host.store.holder } : {}) });
      return req;
    });
  }

  /** The answer given to the request `requestId` a resumed step waited on, if answered (durable.ts). */
  private async heldAnswer(requestId: string | undefined): Promise<HeldAnswer | undefined> {
    const r = requestId ? (await this.host.policy.openBook(this.id)).get(requestId) : undefined;
    return r?.decision ? { command: r.tool, input: r.input, decision: r.decision } : undefined;
  }

  /** The sandbox handle tools get through `ctx.getSandbox()`. */
  sandbox(): SandboxHandle {
    return sandboxOf(this.engine);
  }

  /** The context a tool's `execute` receives for one call. */
  invokeContext(call: Pick<ToolCall, "callId" | "parentId" | "stepId"> & { command?: string }, signal: AbortSignal): InvokeContext {
    // Named one by one, not spread: on Node 20 an object literal that starts with a spread and
    // then names more fields is built on a slow path (about 6 us here, on every nested call).
    const person = personContext({ id: this.id, emit: (e) => this.emit(e), redactText: (t) => this.host.redactor.text(t), redactValue: (v) => this.host.redactor.value(v) }, call, signal);
    return {
      reportProgress: person.reportProgress,
      ask: person.ask,
      signal,
      session: {
        id: this.id,
        metadata: this.metadata,
        turn: { callId: call.callId, ...(call.parentId ? { shellCallId: call.parentId } : {}), ...(call.stepId ? { stepId: call.stepId } : {}) },
        auth: authOf(this.metadata),
        parent: parentsOf(this.metadata),
      },
      callId: call.callId,
      getSandbox: () => this.sandbox(),
      getSkill: (id) => this.host.readSkill(id),
    };
  }

  /** A catalog over the current sources, with saved scripts as last read (see {@link freshCatalog}). */
  catalog(): Catalog {
    return this.host.catalog(this);
  }

  /** A fresh catalog over the current sources, saved scripts re-read (built for every shell call). */
  freshCatalog(): Promise<Catalog> {
    return this.host.freshCatalog(this);
  }

  /** Shell calls running now (a busy session is never evicted from memory). */
  running = 0;

  /**
   * Runs one script as one shell call, counted once by the host (a durable step's run comes back
   * here with `durable`). Never throws: a failure becomes the result's exit code, stderr and
   * (when it stopped or failed after changing something) its `tools` report. MCP servers loaded
   * during the call sign in as this session's principal (README "Sign-in").
   */
  async bash(script: string, options: BashOptions = {}): Promise<ShellResult> {
    this.running++;
    try {
      const run = () => actingFor(this, () => withPerson(options.person, () => this.bashInner(script, options)));
      return await (options.durable ? run() : this.host.work(run));
    } finally {
      this.running--;
    }
  }

  private async bashInner(script: string, options: BashOptions): Promise<ShellResult> {
    if (typeof script !== "string") {
      const err = new ToolCallError("invalid_input", `the script must be a string, got ${script === null ? "null" : typeof script}`);
      return { stdout: "", stderr: errorLine(err), exit_code: 2, success: false, tool_call_id: "call_bash_invalid" };
    }
    await this.ready.catch(() => {});
    if (this.refusal) return { stdout: "", stderr: errorLine(new ToolCallError("denied", this.refusal.message)), exit_code: 1, success: false, tool_call_id: "call_bash_refused" };
    if (this.host.store && !options.durable) {
      const run = () => runShellStep(this.durableView(), { script, stdin: options.stdin, stepId: options.stepId }, (durable) => this.bash(script, { ...options, durable }));
      try {
        return await this.hold(options.timeoutMs ?? this.host.timeoutMs, run);
      } catch (err) {
        // Taking the session failed (busy elsewhere, or the store): nothing ran.
        const busy = err instanceof SessionBusyError;
        const e = new ToolCallError("unavailable", busy ? err.message : `the session store failed: ${err instanceof Error ? err.message : String(err)}`, true);
        if (!busy) this.emit({ type: "store.failed", message: e.message });
        return { stdout: "", stderr: errorLine(e), exit_code: 1, success: false, tool_call_id: busy ? "call_bash_busy" : "call_bash_unavailable" };
      }
    }
    const id = options.durable?.toolCallId ?? `call_bash_${++this.shellCalls}`;
    const held = await this.heldAnswer(options.durable?.heldRequestId);
    const catalog = await this.freshCatalog();
    this.emit({ type: "shell_call.started", tool_call_id: id, script_preview: script });
    // The time limit covers preflight too (it may start on-demand servers the script names).
    const timeoutMs = options.timeoutMs ?? this.host.timeoutMs;
    const startedAt = Date.now();
    let preflight: PreflightOutcome;
    const pre = new AbortController();
    const preTimer = setTimeout(() => pre.abort(new Error("timeout")), timeoutMs);
    const preSignal = options.signal ? AbortSignal.any([options.signal, pre.signal]) : pre.signal;
    try {
      // A resumed step: the gated calls that already ran are replayed, and a held call refused is denied: neither is asked again.
      preflight = await this.host.preflight(script, catalog, this, preSignal, id, options.stdin, notAskedAgain(options.durable, held));
    } catch (err) {
      preflight = { lines: [] };
      this.emit({ type: "preflight.failed", tool_call_id: id, message: (err as Error).message });
    } finally {
      clearTimeout(preTimer);
    }
    if (pre.signal.aborted) {
      const err = new ToolCallError("unavailable", `the shell call ran past its time limit of ${timeoutMs} ms before the script started (loading the servers it names)`, true);
      return this.beforeStart(id, beforeStartReport(err, { reason: "timeout", before_start: true, message: err.message }, "the whole script: nothing ran"));
    }
    if (preflight.stop) return this.beforeStart(id, approvalBeforeStart(preflight.stop, options.stepId));
    const remainingMs = Math.max(1, timeoutMs - (Date.now() - startedAt));
    const execController = new AbortController();
    const outer = options.signal ? AbortSignal.any([options.signal, execController.signal]) : execController.signal;
    const host = this.host;
    const store = host.store;
    const durable = options.durable;
    const call = new ShellCall({
      id,
      catalog,
      session: this,
      pipeline: host.pipeline,
      callLimit: host.callLimit,
      helpFooter: host.helpFooter,
      signal: outer,
      lines: preflight.lines,
      stepId: options.stepId,
      replayer: durable?.replayer,
      held,
      recordCall: store ? (rec) => store.recordCall(this.id, id, rec) : undefined,
      subcommand: (word, c) => host.subcommand(word, c),
      // Asked on every use: a secret learned during the call (an OAuth token) turns redaction on.
      redactText: (t) => (host.redactor.active ? host.redactor.text(t) : t),
    });
    let grace: NodeJS.Timeout | undefined;
    const expire = () => {
      if (grace) return;
      call.setStop({ reason: "timeout", error: new ToolCallError("unavailable", `the shell call ran past its time limit of ${timeoutMs} ms`, true) });
      // A tool in flight ends through its signal and halts the script with output kept; a busy
      // script with no tool in flight is aborted after a short grace.
      grace = setTimeout(() => execController.abort(new Error("timeout")), 1000);
    };
    const timer = setTimeout(expire, remainingMs);
    call.setDeadline(performance.now() + remainingMs, expire);
    // The session's lease lost its connection: another replica may take the session, so the call stops now (runtime/lease.ts).
    const unwatch = whenLeaseLost((err) => (call.setStop({ reason: "error", error: err }), execController.abort(err)));
    let r;
    try {
      r = await runInScope(call, () => this.engine.exec(script, { signal: outer, stdin: options.stdin }));
    } finally {
      clearTimeout(timer);
      if (grace) clearTimeout(grace);
      unwatch();
    }
    const { stdout } = r;
    const { stderr, exitCode, report } = reportAfterRun(call, r);
    const result = await this.redacted({ stdout, stderr, exit_code: exitCode, success: exitCode === 0, ...(report ? { tools: report } : {}), tool_call_id: id });
    this.emit({ type: "shell_call.ended", tool_call_id: id, exit_code: result.exit_code, ...(call.stop ? { stopped: call.stop.reason } : {}) });
    return result;
  }

  /** A shell call's result redacted (in a worker when large: call/redact/off-thread.ts); when the redactor fails, the call's clear error instead, with nothing of its output or report (docs/security.md "Secrets"). */
  private async redacted(result: ShellResult): Promise<ShellResult> {
    try {
      return await redactValue(this.host.redactor, result, result.stdout.length + result.stderr.length);
    } catch {
      const err = redactionFailed();
      this.emit({ type: "redaction.failed", tool_call_id: result.tool_call_id, message: err.message });
      return { stdout: "", stderr: errorLine(err), exit_code: 1, success: false, tool_call_id: result.tool_call_id };
    }
  }

  /** The result of a shell call that stopped before its script started: nothing ran. */
  private beforeStart(id: string, report: StopReport): ShellResult {
    this.emit({ type: "shell_call.ended", tool_call_id: id, exit_code: 1, stopped: report.stopped!.reason });
    return { stdout: "", stderr: report.stderr, exit_code: 1, success: false, tools: report, tool_call_id: id };
  }
}
