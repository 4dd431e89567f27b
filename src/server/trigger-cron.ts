/**
 * The schedulers of triggers: what fires a trigger's runs. Both hand each run to the same
 * {@link TriggerFire} (the trigger service's queue, then `runTrigger`).
 * - {@link CronScheduler}, in this process (croner), for a store one process owns (SQLite).
 * - `BossScheduler` (trigger-boss.ts), pg-boss jobs on PostgreSQL, for several replicas.
 *
 * Missed schedules (in-process): each schedule trigger keeps `next_run_at`. On start, a trigger
 * whose `next_run_at` has passed (the process was down then) runs once, with reason `missed`,
 * however many times it was due; then it follows its schedule.
 *
 * See docs/sessions.md → Triggers; docs/deployment.md → Triggers.
 */
import { Cron } from "croner";
import type { Store, TriggerRecord, TriggerRunRecord } from "../store/index.js";
import { newRunId, triggerSessionId, type RunRequest } from "./trigger-run.js";

/** Starts one run of a trigger (queued behind the trigger's earlier runs); settles when it ends. */
export type TriggerFire = (triggerId: string, reason: TriggerRunRecord["reason"], req: RunRequest) => Promise<unknown>;

/** What fires triggers' runs. */
export interface TriggerScheduler {
  /** Starts firing the schedules of `triggers` (and, in-process, runs the ones missed while down). */
  start(triggers: TriggerRecord[]): Promise<void>;
  /** The trigger's schedule follows its record (created, changed, enabled, disabled). */
  reschedule(t: TriggerRecord): Promise<void>;
  unschedule(triggerId: string): Promise<void>;
  /** Hands a webhook delivery over to be run (here, or by whichever replica takes it); resolves once it is accepted. */
  deliver(triggerId: string, req: RunRequest): Promise<void>;
  /** Hands a stopped run whose answer came (`req.runId`, `req.resume`) over to go on; resolves once accepted. */
  resume(triggerId: string, req: RunRequest): Promise<void>;
  stop(): Promise<void>;
}

/** Schedules in this process with croner. */
export class CronScheduler implements TriggerScheduler {
  private readonly jobs = new Map<string, Cron>();
  private started = false;

  constructor(
    private readonly store: Store,
    private readonly fire: TriggerFire,
    private readonly now: () => number,
  ) {}

  async start(triggers: TriggerRecord[]): Promise<void> {
    if (this.started) return;
    this.started = true;
    // Runs left `running` by a process that died: they will not finish now (one process owns the store).
    for (const t of triggers) {
      for (const r of await this.store.listTriggerRuns(t.id, { limit: 50 })) {
        if (r.status === "running") await this.store.putTriggerRun({ ...r, status: "failed", error: "the process stopped while this run was in flight", ended_at: new Date(this.now()).toISOString() });
      }
    }
    for (const t of triggers) {
      if (t.kind !== "schedule" || !t.enabled) continue;
      if (t.next_run_at && Date.parse(t.next_run_at) <= this.now()) void this.fire(t.id, "missed", { scheduled_at: t.next_run_at }).catch(() => {});
      await this.reschedule(t);
    }
  }

  async reschedule(t: TriggerRecord): Promise<void> {
    await this.unschedule(t.id);
    if (t.kind !== "schedule" || !t.cron) return;
    let job: Cron;
    try {
      job = new Cron(t.cron, { timezone: t.timezone ?? "UTC", paused: !this.started || !t.enabled, protect: true }, async (self: Cron) => {
        // The due time the run is for (docs/sessions.md "Triggers"), not the moment the timer fired.
        const due = self.currentRun() ?? new Date(this.now());
        const cur = await this.store.getTrigger(t.id);
        if (!cur || !cur.enabled) return;
        await this.fire(t.id, "schedule", { scheduled_at: due.toISOString() }).catch(() => {});
      });
    } catch {
      return;
    }
    const next = job.nextRun();
    const cur = await this.store.getTrigger(t.id);
    if (cur && next && t.enabled && this.started) {
      // Keep a next_run_at that is already due (a missed run being handled); else the next one.
      const keepDue = cur.next_run_at && Date.parse(cur.next_run_at) <= this.now();
      if (!keepDue) await this.store.setTriggerTimes(cur.id, { next_run_at: next.toISOString() });
    }
    if (this.started && t.enabled) this.jobs.set(t.id, job);
    else job.stop();
  }

  async unschedule(triggerId: string): Promise<void> {
    this.jobs.get(triggerId)?.stop();
    this.jobs.delete(triggerId);
  }

  async deliver(triggerId: string, req: RunRequest): Promise<void> {
    // Accepted only once recorded: the run id the caller gets always finds its run (failed, on
    // start, if this process dies first). @throws when the store cannot write it.
    const t = await this.store.getTrigger(triggerId);
    if (!t) throw new Error(`no trigger ${triggerId}`);
    const runId = req.runId ?? newRunId();
    await this.store.putTriggerRun({ id: runId, trigger_id: t.id, agent_id: t.agent_id, reason: "webhook", status: "running", queued: true, session_id: triggerSessionId(t), payload: req.payload ?? {}, started_at: new Date(this.now()).toISOString() });
    void this.fire(triggerId, "webhook", { ...req, runId }).catch(() => {});
  }

  async resume(triggerId: string, req: RunRequest): Promise<void> {
    void this.fire(triggerId, "manual", req).catch(() => {});
  }

  async stop(): Promise<void> {
    this.started = false;
    for (const j of this.jobs.values()) j.stop();
    this.jobs.clear();
  }
}
