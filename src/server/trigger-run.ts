/**
 * One run of a trigger — the one code path every scheduler takes (the in-process schedule, a
 * pg-boss job on any replica, a webhook, a person's "run now"): the run is recorded, the
 * trigger's next due time written before the script starts, the input templates filled, and the
 * saved script runs as one shell call `tools scripts NAME -` in the trigger's session, as a
 * durable step named after the run. A run that runs again after its process died (a pg-boss job
 * recovered on another replica) keeps its start time and input, so its step resumes and the
 * nested calls that completed are replayed, not run again. A run stopped for approval goes on
 * the same way once the answer comes (`RunRequest.resume`): the same run, the same step, the calls
 * completed before the stop replayed from its record — never made twice. While a run waits for a
 * person's answer, a due time of the schedule does not start a new run: it is recorded as
 * `skipped`, naming the run and request it waits behind (a person's "run now" and a webhook
 * delivery still start). That check reads the store while
 * holding the trigger's session (on PostgreSQL its lease, which the run's shell call takes too),
 * and a run records its end before letting go, so replicas agree.
 *
 * See docs/sessions.md → Triggers, Durable steps; docs/deployment.md → Triggers.
 */
import { randomUUID } from "node:crypto";
import { Cron } from "croner";
import { triggerStepId, withOrigin, type Session, type ShellResult, type ToolShell } from "../runtime/index.js";
import { principalOf } from "../mcp/index.js";
import { SCRIPTS_SOURCE } from "../scripts/index.js";
import type { RunApproval, Store, TriggerRecord, TriggerRunRecord } from "../store/index.js";
import { fillTemplates } from "./template.js";

/** What the wake-agent callback receives. */
export interface WakeCall {
  trigger: Omit<TriggerRecord, "secret_hash">;
  run: TriggerRunRecord;
  /** The shell call's result: its stop report is under `tools`. */
  report: ShellResult | undefined;
}

/** What a run needs. */
export interface TriggerRunner {
  store: Store;
  shell?: ToolShell;
  wakeAgent?: (call: WakeCall) => void | Promise<void>;
  now: () => number;
}

/** What starts a run besides the trigger: its payload, the due time it fills `{{scheduled_at}}` with, its id. */
export interface RunRequest {
  payload?: unknown;
  scheduled_at?: string;
  runId?: string;
  /**
   * The run `runId` stopped for approval and the answer to request `resume` came: the same run
   * goes on (its step resumes, completed calls replayed). Ignored unless the run is stopped on it.
   */
  resume?: string;
}

/** A trigger as the API shows it: everything but the secret's hash. */
export function publicTrigger(t: TriggerRecord): Omit<TriggerRecord, "secret_hash"> {
  const { secret_hash: _s, ...rest } = t;
  return rest;
}

/**
 * The session a trigger's runs are recorded in: `trg_` and the trigger id (which starts with
 * `trg_` too), the form stores already hold, so a trigger's files persist (docs/sessions.md → Triggers).
 */
export function triggerSessionId(t: TriggerRecord): string {
  return `trg_${t.id}`;
}

/** A new run id. */
export function newRunId(): string {
  return `run_${randomUUID().replace(/-/g, "").slice(0, 20)}`;
}

/** The next time a cron expression is due after now (in its time zone, default UTC); null when it never is or does not parse. */
export function nextDue(cron: string, timezone?: string): Date | null {
  try {
    const c = new Cron(cron, { timezone: timezone ?? "UTC", paused: true });
    const n = c.nextRun();
    c.stop();
    return n;
  } catch {
    return null;
  }
}

/** What the approval a stopped run waited for says: who answered, how, and how long it took. */
async function waitedFor(r: TriggerRunner, sessionId: string, requestId: string): Promise<RunApproval> {
  const q = (await r.store.approvalBook(sessionId)).get(requestId);
  if (!q) return { request_id: requestId, tool: "", asked_at: "" };
  const waited = q.answered_at ? Date.parse(q.answered_at) - Date.parse(q.created_at) : undefined;
  return {
    request_id: requestId,
    tool: q.tool,
    ...(q.decision ? { decision: q.decision } : {}),
    ...(q.answered_by ? { by: q.answered_by.by, surface: q.answered_by.surface } : {}),
    asked_at: q.created_at,
    ...(q.answered_at ? { answered_at: q.answered_at } : {}),
    ...(waited !== undefined && waited >= 0 ? { waited_ms: waited } : {}),
  };
}

/** The run a new run of a trigger waits behind: a run stopped on a request nobody answered yet. */
export interface RunWait {
  run_id: string;
  request_id: string;
}

/**
 * The run of `t` that waits for a person's answer now, if any: a run stopped on an approval
 * request still pending in the trigger session's book, read from the store (so every replica and
 * the CLI agree). Found among the latest runs, or through the skipped runs that name it.
 */
export async function waitingRun(store: Store, t: TriggerRecord): Promise<RunWait | undefined> {
  const runs = await store.listTriggerRuns(t.id, { limit: 50 });
  const stopped = runs.flatMap((x): RunWait[] => (x.status === "stopped" && x.request_id ? [{ run_id: x.id, request_id: x.request_id }] : x.skipped ? [{ run_id: x.skipped.run_id, request_id: x.skipped.request_id }] : []));
  if (!stopped.length) return undefined;
  const book = await store.approvalBook(triggerSessionId(t));
  return stopped.find((w) => book.get(w.request_id)?.status === "pending");
}

/**
 * What a run writes to its trigger before its script starts: its last run time, and for a
 * schedule its next due time. A run going on after an answer writes nothing (its start time and
 * the trigger's schedule stay as they are).
 */
async function startRun(r: TriggerRunner, t: TriggerRecord, reason: TriggerRunRecord["reason"], started: string, resuming: boolean): Promise<void> {
  if (resuming) return;
  if (reason === "schedule" || reason === "missed") {
    // The next due time is written before running, so a crash mid-run is not "missed" again.
    // Only these fields are written: a person's change to the trigger meanwhile stands.
    const next = t.cron ? nextDue(t.cron, t.timezone) : null;
    await r.store.setTriggerTimes(t.id, { last_run_at: started, ...(next ? { next_run_at: next.toISOString() } : {}) });
  } else {
    await r.store.setTriggerTimes(t.id, { last_run_at: started });
  }
}

/**
 * The run's script, one shell call in the trigger's session as the durable step `trigger:<run
 * id>`: sets the run's status (`ok`, `failed`, `stopped` with its request) and result. Never throws.
 */
async function runScript(t: TriggerRecord, session: Session, run: TriggerRunRecord, o: { earlier?: TriggerRunRecord; resuming: boolean; started: string; scheduled_at?: string }): Promise<ShellResult | undefined> {
  try {
    const scope = { payload: run.payload, trigger: { id: t.id, name: t.name, agent_id: t.agent_id }, now: o.started, scheduled_at: o.scheduled_at ?? o.started };
    const input = (o.earlier?.input ?? fillTemplates(t.input, scope)) as Record<string, unknown>;
    run.input = input;
    // A run acts for whoever made the trigger (its API token's principal), else for its agent.
    if (t.principal) session.metadata.principal = t.principal;
    else delete session.metadata.principal;
    // Checked again here: a trigger stored by an older version must not inject shell words.
    if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/.test(t.script)) throw new Error(`trigger ${t.name}: ${JSON.stringify(t.script)} is not a script name`);
    // Marked as this trigger's run: its calls take only answers given to its runs (policy/approvals.ts).
    // Acting for someone other than the agent, it runs only script versions they vouched for.
    const forOther = !!t.principal && t.principal !== principalOf({ agent_id: t.agent_id });
    const origin = { kind: "trigger" as const, id: t.id, name: t.name, ...(forOther ? { vouchedAt: t.vouched_at ?? t.updated_at } : {}) };
    const result = await withOrigin(origin, () => session.bash(`tools ${SCRIPTS_SOURCE} ${t.script} -\n`, { stdin: JSON.stringify(input), stepId: triggerStepId(run.id) }));
    run.tool_call_id = result.tool_call_id;
    run.result = result;
    run.status = result.tools?.stopped ? "stopped" : result.exit_code === 0 ? "ok" : "failed";
    delete run.request_id;
    if (result.tools?.stopped?.request_id) run.request_id = result.tools.stopped.request_id;
    session.emit({ type: "trigger.run", trigger_id: t.id, trigger_name: t.name, run_id: run.id, reason: run.reason, status: run.status, ...(o.resuming ? { resumed: true } : {}), tool_call_id: result.tool_call_id, ...(run.request_id ? { request_id: run.request_id } : {}) });
    return result;
  } catch (err) {
    run.status = "failed";
    run.error = err instanceof Error ? err.message : String(err);
    return undefined;
  }
}

/**
 * Runs trigger `triggerId` once and resolves with the finished run (status `ok`, `failed` or
 * `stopped`), or, for a due time of the schedule while an earlier run waits for a person's
 * answer, the run recorded as `skipped` with why: nothing ran. A run id already
 * recorded as `running` is a run that its process did not finish: it runs again with the same
 * start time, input and step.
 * @throws Error when there is no such trigger or no shell to run it in.
 */
export async function runTrigger(r: TriggerRunner, triggerId: string, reason: TriggerRunRecord["reason"], req: RunRequest): Promise<TriggerRunRecord> {
  const { store, shell } = r;
  const t = await store.getTrigger(triggerId);
  if (!t) throw new Error(`no trigger ${triggerId}`);
  if (!shell) throw new Error("this trigger service has no shell to run triggers in");
  const id = req.runId ?? newRunId();
  const earlier = req.runId ? await store.getTriggerRun(id) : undefined;
  // A stopped run goes on only for the answer it waits on: a second delivery of that answer finds it no longer stopped on it.
  const resuming = !!earlier && earlier.status === "stopped" && !!req.resume && earlier.request_id === req.resume;
  if (earlier && earlier.status !== "running" && !resuming) return earlier;
  const started = earlier?.started_at ?? new Date(r.now()).toISOString();
  const payload = earlier?.payload ?? req.payload ?? {};
  const run: TriggerRunRecord = {
    ...(earlier ?? {}),
    id,
    trigger_id: t.id,
    agent_id: t.agent_id,
    reason: earlier?.reason ?? reason,
    status: "running",
    session_id: triggerSessionId(t),
    payload,
    started_at: started,
    ...(req.scheduled_at && (reason === "schedule" || reason === "missed") && !earlier?.scheduled_at ? { scheduled_at: req.scheduled_at } : {}),
    // Recorded as running (not merely queued), yet not running here: the process that ran it ended mid-run.
    ...(earlier?.status === "running" && !earlier.queued ? { interrupted_at: [...(earlier.interrupted_at ?? []), new Date(r.now()).toISOString()] } : {}),
    // The replica of each start (the first, after a replica died, after an answer): who ran it, where.
    ...(r.store.holder && earlier?.replicas?.at(-1) !== r.store.holder ? { replicas: [...(earlier?.replicas ?? []), r.store.holder] } : {}),
    ...(resuming ? { resumed_at: [...(earlier.resumed_at ?? []), new Date(r.now()).toISOString()], approvals: [...(earlier.approvals ?? []), await waitedFor(r, triggerSessionId(t), req.resume!)] } : {}),
  };
  delete run.ended_at;
  delete run.queued;
  // A disabled trigger runs nothing: a delivery or a due time accepted before it was disabled
  // (queued behind an earlier run, or a job waiting in pg-boss) is looked at as the trigger is
  // now. The run is recorded as failed, so the run id a webhook caller got says what happened.
  // A person's "run now" is theirs to make (docs/sessions.md → Triggers).
  if (!t.enabled && reason !== "manual") {
    const error = earlier?.status === "running" && !earlier.queued
      ? `trigger ${t.name} was disabled while this run was interrupted (the process running it stopped): it is not resumed; what it ran before is in session ${run.session_id}`
      : `trigger ${t.name} is disabled: nothing ran`;
    const refused: TriggerRunRecord = { ...run, status: "failed", error, ended_at: new Date(r.now()).toISOString() };
    await store.putTriggerRun(refused);
    return refused;
  }
  // Recorded before the session is had (another run may hold it): the run id a caller got finds it.
  await store.putTriggerRun(run);
  const session = shell.session(run.session_id, { agent_id: t.agent_id, trigger_id: t.id, trigger_name: t.name, client: `trigger:${t.id}` }, { anyOwner: true });
  let result: ShellResult | undefined;
  try {
    // Held from the check below to the run's record (on PostgreSQL, the trigger session's lease,
    // which its shell call takes too): two replicas never both find nothing waiting and both start.
    await session.holding(async () => {
      // A due time does not start a run while an earlier one waits for a person (docs/sessions.md → Triggers).
      const wait = !earlier && (reason === "schedule" || reason === "missed") ? await waitingRun(store, t) : undefined;
      if (wait) {
        run.status = "skipped";
        run.skipped = { reason: `the previous run ${wait.run_id} waits for approval (request ${wait.request_id})`, ...wait };
        // A skipped due time is not missed: the next one is written, the last run stays as it was.
        const next = t.cron ? nextDue(t.cron, t.timezone) : null;
        if (next) await store.setTriggerTimes(t.id, { next_run_at: next.toISOString() });
      } else {
        await startRun(r, t, reason, started, resuming);
        result = await runScript(t, session, run, { earlier, resuming, started, scheduled_at: req.scheduled_at });
      }
      // Recorded while held: the next run's check finds this one stopped, not running.
      run.ended_at = new Date(r.now()).toISOString();
      await store.putTriggerRun(run);
    });
  } catch (err) {
    // The session could not be had (another run held it past the time limit), or the store failed.
    run.status = "failed";
    run.error = err instanceof Error ? err.message : String(err);
    run.ended_at = new Date(r.now()).toISOString();
    await store.putTriggerRun(run);
  }
  if (run.status !== "ok" && run.status !== "skipped" && t.wake_agent_on_failure && r.wakeAgent) {
    try {
      await r.wakeAgent({ trigger: publicTrigger(t), run, report: result });
    } catch {}
  }
  return run;
}
