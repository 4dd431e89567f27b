/**
 * Durable steps: the port a store implements (sessions, their files, events, steps and the
 * nested calls of a step) and the step logic the session runs over it.
 *
 * A step is one unit of a session's work with a stable id: a shell call (`session.bash(script,
 * { stepId })`) or any other unit (`session.step(stepId, fn)`, e.g. a direct tool call).
 * - A step that completed is never run again: asking for it again returns the recorded result.
 * - A step interrupted mid-way (the process died) runs again when asked again. Inside a shell
 *   call that runs again, each nested call that completed in an earlier attempt — same position,
 *   same command, same input — returns its recorded output instead of running; the first call
 *   that differs runs for real, and so does every call after it. A call that had not completed
 *   while later ones did (a saved script around its own calls) runs for real without ending the
 *   replay of those later ones.
 * - A shell call that stopped because a call needs approval (before it started, or midway) waits:
 *   asked again while the request is pending, it returns the same report; once answered it runs
 *   again, and the nested calls that completed before the stop are replayed from their record,
 *   as for an interrupted step — the call that asked runs with its answer, the rest after it.
 *   That call (the held call) sees the answer given to the request the step waited on, once: an
 *   `allow` is spent on it as on any call; after a one-off `reject` it answers `denied` by that
 *   answer, and the session's one-off refusal waits for the same call's next try, as it does where
 *   no step resumes (the person said no to the call; the agent trying it again is refused too).
 * - A call let through by a one-off `allow` is marked as started before it runs (`RecordedCall.started`):
 *   when its attempt dies with the call in flight, the mark stays, the call is judged and asked
 *   again on the next attempt (the answer was spent), and the card of that request says the call
 *   may already have run upstream (docs/sessions.md → The approval card).
 *
 * The runtime defines this port; `store/` implements it (layering rule of docs/architecture.md).
 *
 * See docs/sessions.md → Durable steps.
 */
import { createHash } from "node:crypto";
import type { IFileSystem } from "just-bash";
import type { SessionEventInput } from "../call/index.js";
import { canonicalJson, type Decision } from "../policy/index.js";
import { errorLine } from "../shell/index.js";
import { ToolCallError, type ToolOutput } from "../tool/index.js";
import { createReplayer, replayable, replayedCalls, type Replayer } from "./replay.js";
import type { DoneCall, SessionEvent, ShellResult } from "./types.js";

/** A nested call that completed inside a shell-call step, kept to replay it. */
export interface RecordedCall {
  /** Position of the call in its shell call (0-based), as in its call id. */
  index: number;
  /** `call_bash_<n>:tools:<index>:<tool>`. */
  callId: string;
  /** `tools <server> <tool>` as the catalog spells it. */
  command: string;
  /** Canonical JSON (`canonicalJson`) of the input as given. */
  inputKey: string;
  /** The output (without `raw`), after redaction. */
  output: ToolOutput;
  /** True when the call was judged read-only (counted, not listed in `done`). */
  readOnly: boolean;
  /** The `done` entry it made, when it was not read-only. */
  done?: DoneCall;
  /**
   * The upstream task (MCP Tasks extension) the call was following when recorded: the call had
   * not completed (`output` is empty); a later attempt follows this task instead of calling again.
   */
  task?: string;
  /**
   * Set on the mark of a call that started and has not completed: a call a person let through
   * with a one-off `allow` is marked as it starts, before the tool runs (its `output` is empty). The
   * completed call's record replaces the mark; a call that ends without completing (failed,
   * stopped) keeps it with `ended`. A mark with no `ended` is a call that was in flight when its
   * attempt died: it may have run upstream, and the card of the same call asked again says so
   * (docs/sessions.md → Durable steps). A later attempt never replays a mark.
   */
  started?: {
    /** When the call started (ISO time). */
    at: string;
    /** The replica that ran it (the store's `holder`), when one did. */
    replica?: string;
    /** When it ended without completing (ISO time). */
    ended?: string;
  };
}

/** Where a step is. */
export type StepStatus = "running" | "completed" | "waiting_approval";

/** One recorded step. */
export interface StepRecord {
  sessionId: string;
  stepId: string;
  /** `shell` for a shell call; anything else for `session.step()` units. */
  kind: string;
  /** The shell call id of a shell step (`call_bash_<n>`), or the step id. */
  toolCallId: string;
  /** SHA-256 of the canonical request: asking again with another request is refused. */
  requestHash: string;
  request: unknown;
  status: StepStatus;
  /** 1 on the first run, +1 each time an interrupted or waiting step runs again. */
  attempt: number;
  /** The result (a ShellResult for shell steps), when not running. */
  result?: unknown;
  /** The approval request a waiting step waits on. */
  requestId?: string;
  /** When the latest attempt started. */
  startedAt: string;
  /** When the first attempt started (stores that keep it; else `startedAt`). */
  firstStartedAt?: string;
  /**
   * The replica running the latest attempt (the store's `holder` when it began), so a running
   * step whose replica is gone can be told apart (docs/deployment.md → Who holds a step).
   */
  holder?: string;
  endedAt?: string;
}

/** A session's sandbox filesystem as the store snapshots it. */
export interface SessionFiles {
  fs: IFileSystem;
  /** Path prefixes not to save (a real folder mounted as the workspace persists by itself). */
  exclude: string[];
}

/** What a store knows of a session when it opens. */
export interface SessionSnapshot {
  metadata: Record<string, unknown>;
  /** Shell calls made so far (the next one is `call_bash_<shellCalls + 1>`). */
  shellCalls: number;
  /** True when the store had no record of it. */
  created: boolean;
}

/**
 * The persistence port of sessions. Methods may be sync or async; the runtime awaits them.
 * `appendEvent` and `recordCall` are called synchronously on the hot path and must not throw.
 */
export interface SessionStore {
  /**
   * The live replica this process announced, if any (its `replica` shared record's key): steps
   * begun here name it as their holder, and answers given here name it (docs/deployment.md → Who
   * holds a step).
   */
  holder?: string;
  /** Creates the session's record (with `metadata`) or loads it and restores its files into `files.fs`. */
  openSession(session: { id: string; metadata: Record<string, unknown>; files: SessionFiles }): Promise<SessionSnapshot>;
  /** Persists one event (already redacted). A completed `tool.nested_call` event is written with its pending {@link recordCall} in one transaction. */
  appendEvent(event: SessionEvent): void;
  /** The step `stepId` of a session, if recorded. */
  getStep(sessionId: string, stepId: string): Promise<StepRecord | undefined>;
  /** The steps of a session (with `status`: only those); absent: an answered approval does not name its step. */
  listSteps?(sessionId: string, options?: { status?: StepStatus }): Promise<StepRecord[]>;
  /** Records a step as running (insert or update), and the session's shell-call count. */
  beginStep(step: StepRecord, shellCalls: number): Promise<void>;
  /**
   * Allocates the session's next shell call number, atomically in the store (creating the
   * session's record when missing): every process on the store (the warm host, a `--no-daemon`
   * run, another replica) gets its own, so a shell call id (`call_bash_<n>`) names one call.
   * Absent: the process's own count is used (one process owns the store).
   */
  nextShellCall?(sessionId: string): Promise<number>;
  /**
   * Keeps a completed nested call of a running shell step (written with its event). A call still
   * following an upstream task (`task` set), and the mark of a call that started (`started` set),
   * are written at once, without an event: a process that dies while the call runs leaves them for
   * the next attempt; the call's completed record replaces them. For those, a store whose writes
   * are queued (PostgreSQL) returns a promise that settles once the write is done (it never
   * rejects), so the caller can wait for the mark before the tool runs.
   */
  recordCall(sessionId: string, toolCallId: string, call: RecordedCall): void | Promise<void>;
  /** The nested calls of a shell call recorded so far (completed, following a task, or marked as started), by index. */
  recordedCalls(sessionId: string, toolCallId: string): Promise<RecordedCall[]>;
  /** Ends a step: status, result and the session's files, in one transaction. */
  endStep(end: { sessionId: string; stepId: string; status: StepStatus; result: unknown; requestId?: string; files: SessionFiles }): Promise<void>;
  /**
   * Holds a session for one shell call across processes (several replicas on one database,
   * docs/deployment.md): waits while another process holds it; a holder that dies lets go.
   * Writes of the session made under a lease that was lost are refused (the fence). Absent when
   * one process owns the store (SQLite): the session's own queue is enough. Waits at most until
   * `deadline` (epoch ms), when given; having waited that long, it rejects with an error whose
   * `code` is `"session_busy"` (the caller answers it as a busy session, runtime/lease.ts).
   */
  lease?(sessionId: string, deadline?: number): Promise<SessionLease>;
  /**
   * Before a shell call (under a lease, where there is one): when another process ran the session
   * since this one last read or wrote it, restores the newer files into `files.fs` and returns
   * the newer snapshot; else undefined.
   */
  refreshSession?(session: { id: string; files: SessionFiles }): Promise<SessionSnapshot | undefined>;
}

/** A session held by this process for one shell call (see {@link SessionStore.lease}). */
export interface SessionLease {
  /** Grows each time the session changes hands. */
  readonly fence: number;
  /**
   * Aborted when the lease is lost while held (its database connection broke): another process
   * may take the session now, so the shell call holding it stops (runtime/lease.ts).
   */
  readonly lost?: AbortSignal;
  /** Lets the session go; safe to call twice. */
  release(): Promise<void>;
}

/** SHA-256 hex of the canonical JSON of `value` (keys sorted at every depth). */
export function requestHash(value: unknown): string {
  return createHash("sha256").update(canonicalJson(value)).digest("hex");
}

/**
 * The result of a shell call whose session another process took while it ran (its lease's
 * connection broke; the store refused its writes): it ran, but its files were not kept and its
 * step was not recorded — not a success, whatever its exit status.
 */
function takenOver(result: ShellResult, message: string): ShellResult {
  const line = errorLine(new ToolCallError("unavailable", `${message}: this call ran, but its changes to the session's files were not kept and it was not recorded as a step; send it again only if running it twice is safe`, true));
  return { ...result, success: false, exit_code: result.exit_code === 0 ? 1 : result.exit_code, stderr: result.stderr + line };
}

/** A ShellResult for a step that cannot run (a reused step id with another request). */
export function stepErrorResult(toolCallId: string, message: string): ShellResult {
  return { stdout: "", stderr: errorLine(new ToolCallError("invalid_input", message)), exit_code: 1, success: false, tool_call_id: toolCallId };
}

/** The request id of a shell result that stopped for approval (before start or midway), if any. */
export function waitingRequestId(result: ShellResult): string | undefined {
  const s = result.tools?.stopped;
  return s && s.reason === "needs_approval" ? s.request_id : undefined;
}

/** Every request a step stopped on: the one it waits on and those under `also_needs_approval`; an answer to any of them names the step (docs/deployment.md). */
export function heldRequestIds(step: StepRecord): string[] {
  const stopped = (step.result as ShellResult | undefined)?.tools?.stopped;
  return [...(step.requestId ? [step.requestId] : []), ...(stopped?.also_needs_approval ?? []).map((o) => o.request_id)];
}

/** What the step logic needs from a session. */
export interface DurableSessionView {
  readonly id: string;
  readonly store: SessionStore;
  files(): SessionFiles;
  /** Allocates the next shell call id (`call_bash_<n>`), unique in the session across processes. */
  nextToolCallId(): Promise<string>;
  /** Shell calls allocated so far. */
  shellCallCount(): number;
  emit(event: SessionEventInput): void;
  /** Ids of the session's pending approval requests, when the policy can say. */
  pendingApprovalIds(): Promise<string[] | undefined>;
}

/** What a shell call needs to run as (part of) a durable step. */
export interface DurableRun {
  toolCallId: string;
  replayer?: Replayer;
  /** The completed calls of earlier attempts the replayer answers from (a resumed step). */
  recorded?: RecordedCall[];
  /** A step resumed once its approval was answered: the request it waited on (see {@link HeldAnswer}). */
  heldRequestId?: string;
}

/** The answer a person gave to the request a resumed step waited on, for the call it held. */
export interface HeldAnswer {
  /** The held call's command and input as given (the request's). */
  command: string;
  input: Record<string, unknown>;
  decision: Decision;
}

/** True when `call` is the held call of `held` (same command, same input as given). */
export function isHeldCall(held: HeldAnswer, command: string, input: unknown): boolean {
  return command === held.command && canonicalJson(input) === canonicalJson(held.input);
}

/**
 * The gated calls a resumed step's preflight does not ask about: those its record replays
 * ({@link replayedCalls}) and the held call the person refused (it answers `denied` by that answer).
 */
export function notAskedAgain(durable: DurableRun | undefined, held: HeldAnswer | undefined): ((command: string, input: Record<string, unknown>) => boolean) | undefined {
  const replayed = durable?.recorded?.length ? replayedCalls(durable.recorded) : undefined;
  const refused = held?.decision === "reject" ? held : undefined;
  if (!refused) return replayed;
  return (command, input) => isHeldCall(refused, command, input) || (replayed?.(command, input) ?? false);
}

/**
 * Runs one shell call as a durable step (see the file comment). `run` runs the shell call with
 * the given id and replayer. Never throws: store failures are reported as an event and the shell
 * call runs without durability rather than not at all.
 */
export async function runShellStep(
  view: DurableSessionView,
  request: { script: string; stdin?: string; stepId?: string },
  run: (durable: DurableRun) => Promise<ShellResult>,
): Promise<ShellResult> {
  const { store } = view;
  const req = { script: request.script, stdin: request.stdin ?? "" };
  const hash = requestHash(req);
  let toolCallId: string | undefined;
  let attempt = 1;
  let replayer: Replayer | undefined;
  let recorded: RecordedCall[] | undefined;
  let heldRequestId: string | undefined;
  let result: ShellResult | undefined;
  let running = false;
  try {
    if (request.stepId) {
      const prev = await store.getStep(view.id, request.stepId);
      if (prev) {
        if (prev.kind !== "shell" || prev.requestHash !== hash) {
          return stepErrorResult(prev.toolCallId, `step ${request.stepId} was recorded with another ${prev.kind === "shell" ? "script" : "kind of step"}; use a new step id`);
        }
        if (prev.status === "completed") {
          view.emit({ type: "step.replayed", step_id: prev.stepId, tool_call_id: prev.toolCallId });
          return prev.result as ShellResult;
        }
        if (prev.status === "waiting_approval" && prev.requestId) {
          const pending = await view.pendingApprovalIds();
          if (pending?.includes(prev.requestId)) {
            view.emit({ type: "step.waiting", step_id: prev.stepId, tool_call_id: prev.toolCallId, request_id: prev.requestId });
            return prev.result as ShellResult;
          }
        }
        toolCallId = prev.toolCallId;
        attempt = prev.attempt + 1;
        if (prev.status === "waiting_approval") heldRequestId = prev.requestId;
        // Interrupted, or stopped for an answer that came: what completed before is replayed.
        recorded = replayable(await store.recordedCalls(view.id, prev.toolCallId));
        replayer = createReplayer(recorded);
        view.emit({ type: "step.resumed", step_id: prev.stepId, tool_call_id: prev.toolCallId, attempt, after: prev.status === "running" ? "interrupted" : "approval" });
      }
    }
    toolCallId ??= await view.nextToolCallId();
    const stepId = request.stepId ?? toolCallId;
    await store.beginStep(
      { sessionId: view.id, stepId, kind: "shell", toolCallId, requestHash: hash, request: req, status: "running", attempt, startedAt: new Date().toISOString() },
      view.shellCallCount(),
    );
    running = true;
    result = await run({ toolCallId, replayer, recorded, ...(heldRequestId ? { heldRequestId } : {}) });
    running = false;
    const requestId = waitingRequestId(result);
    await store.endStep({ sessionId: view.id, stepId, status: requestId ? "waiting_approval" : "completed", result, requestId, files: view.files() });
    return result;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    // The shell call itself threw (not the store): that is its own failure, not the store's; the
    // step stays `running`, so asking it again runs it again.
    if (running) return { stdout: "", stderr: errorLine(new ToolCallError("internal", `the shell call failed: ${message}`)), exit_code: 1, success: false, tool_call_id: toolCallId ?? "call_bash_unavailable" };
    view.emit({ type: "store.failed", tool_call_id: toolCallId, message });
    // After the shell call ran, its result stands even if it could not be recorded. Before, the
    // step does not run: running it blind could run a completed step twice.
    if (result) return (err as Error | undefined)?.name === "FenceError" ? takenOver(result, message) : result;
    const line = errorLine(new ToolCallError("unavailable", `the session store failed: ${message}`, true));
    return { stdout: "", stderr: line, exit_code: 1, success: false, tool_call_id: toolCallId ?? "call_bash_unavailable" };
  }
}

/**
 * Runs `fn` as a durable step of any kind (e.g. a direct tool call): a completed step returns its
 * recorded result (JSON round-tripped) without calling `fn`; otherwise `fn` runs and its result
 * is recorded with the session's files. `request` identifies what the step does: asking again
 * with another request rejects.
 * @throws Error when the step id was recorded with another request; whatever `fn` throws (the
 *         step then stays `running` and runs again when asked again).
 */
export async function runStep<T>(view: DurableSessionView, stepId: string, kind: string, request: unknown, fn: () => Promise<T>): Promise<T> {
  const { store } = view;
  const hash = requestHash({ kind, request });
  const prev = await store.getStep(view.id, stepId);
  let attempt = 1;
  if (prev) {
    if (prev.requestHash !== hash) throw new Error(`step ${stepId} was recorded with another request; use a new step id`);
    if (prev.status === "completed") {
      view.emit({ type: "step.replayed", step_id: stepId, tool_call_id: prev.toolCallId });
      return prev.result as T;
    }
    attempt = prev.attempt + 1;
    view.emit({ type: "step.resumed", step_id: stepId, tool_call_id: prev.toolCallId, attempt, after: "interrupted" });
  }
  await store.beginStep(
    { sessionId: view.id, stepId, kind, toolCallId: stepId, requestHash: hash, request, status: "running", attempt, startedAt: new Date().toISOString() },
    view.shellCallCount(),
  );
  const result = await fn();
  const recorded = result === undefined ? undefined : (JSON.parse(JSON.stringify(result)) as T);
  await store.endStep({ sessionId: view.id, stepId, status: "completed", result: recorded, files: view.files() });
  return recorded as T;
}
