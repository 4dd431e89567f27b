/**
 * Triggers on pg-boss, for several replicas on one PostgreSQL (docs/deployment.md → Triggers):
 * a schedule is a pg-boss schedule (keyed by the trigger id) that sends one job per due time
 * across all replicas, a webhook delivery is a job, and whichever replica takes a job runs it
 * through the same `runTrigger` as the in-process scheduler.
 *
 * - **Once across replicas**: pg-boss's cron pass files each due time's job once; a run's id is
 *   the job's (a due time's: the trigger's and the time's), so the run record and its durable
 *   step are the same on every attempt.
 * - **Retries**: a run whose script ran to an end (ok, failed, stopped for approval) is final, as
 *   with the in-process scheduler — the trigger's policy is "record it, wake the agent if asked",
 *   never "run the script again". Only a job whose replica died (no heartbeat) or whose store
 *   write failed runs again, up to {@link RETRY_LIMIT} times with back-off; its step resumes and
 *   completed nested calls are replayed, not repeated.
 * - **Answers**: a run stopped for approval goes on when the answer comes, as a job (one per
 *   answer) whichever replica takes; its step resumes with the completed calls replayed.
 * - **Missed**: due times that passed while every replica was down run once (pg-boss `missed: "once"`),
 *   as reason `missed` with the first missed due time ({@link scheduleDue}).
 * - **Orphans**: a run whose replica died and that no job brings back (a "run now" or a webhook
 *   with `?wait=true` runs on the replica that got the request, not as a job; a job past its
 *   retries) is sent again as a job once its replica has been gone {@link ORPHAN_AFTER_MS}: its
 *   step resumes on a live replica, completed calls replayed (each replica looks every
 *   {@link ORPHAN_SWEEP_MS}; the job's id makes one resume of one loss).
 * - **Seconds**: pg-boss files schedules by the minute, so a schedule with a seconds field (six or
 *   seven fields) is timed on every replica by croner instead, and each due time is sent as a job
 *   whose id comes from the trigger and the time: the replicas all send it, pg-boss keeps one, and
 *   one replica runs it. Missed due times of such a schedule run once at the next start.
 *
 * See docs/deployment.md → Triggers; docs/sessions.md → Triggers, Durable steps.
 */
import { createHash } from "node:crypto";
import { Cron } from "croner";
import type { Job, PgBoss } from "pg-boss";
import type { Store, TriggerRecord, TriggerRunRecord } from "../store/index.js";
import type { TriggerFire, TriggerScheduler } from "./trigger-cron.js";
import { newRunId, type RunRequest } from "./trigger-run.js";
import { triggerStepId } from "../runtime/index.js";
import { knownReplicas } from "./shared-state.js";

/** The pg-boss queue every trigger run goes through. */
export const TRIGGER_QUEUE = "toolshell-trigger-runs";
/** Attempts after the first for a job whose replica died or whose store write failed. */
export const RETRY_LIMIT = 3;
/** A replica running a job proves it is alive this often (pg-boss heartbeat, seconds). */
const HEARTBEAT_S = 10;
/** A run whose replica was last seen this long ago is sent again (pg-boss retries its own jobs well before). */
export const ORPHAN_AFTER_MS = 60_000;
/** How often each replica looks for such runs. */
const ORPHAN_SWEEP_MS = 15_000;

/** What a trigger job carries. */
interface TriggerJob {
  trigger_id: string;
  reason: TriggerRunRecord["reason"];
  payload?: unknown;
  run_id?: string;
  /** The answered request a stopped run goes on after (`RunRequest.resume`). */
  resume?: string;
  /** The due time of a schedule timed here (one with seconds): the job is that due time's run. */
  scheduled_at?: string;
}

/** True for a schedule pg-boss cannot time (by the minute only): one with a seconds field. */
export function hasSeconds(cron: string): boolean {
  return cron.trim().split(/\s+/).length >= 6;
}

/** Options of {@link BossScheduler}. */
export interface BossSchedulerOptions {
  /** The PostgreSQL URL (the store's, with its password). */
  url: string;
  /** The schema pg-boss keeps its tables in (default `toolshell_boss`). */
  schema?: string;
  /** How often a worker looks for jobs, in seconds (default 1). */
  pollSeconds?: number;
}

/** A job id (a UUID, as pg-boss wants) from a run id, so one run is one job however often it is sent. */
function jobIdOf(runId: string): string {
  const h = createHash("sha256").update(runId).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * What a schedule job of trigger `t` filed at `created` runs, or undefined for nothing. The due
 * time is the minute pg-boss filed the job in, except after an outage: pg-boss then files the
 * missed occurrence's job beside the current one, both in the same minute, and the job that finds
 * the trigger's `next_run_at` (written before every run) earlier than its minute runs that missed
 * due time, reason `missed`. A run's id comes from the trigger and its due time, so two jobs for
 * one due time are one run (the second finds it, or its durable step, done).
 */
export function scheduleDue(t: Pick<TriggerRecord, "id" | "updated_at" | "next_run_at">, created: Date): { reason: "schedule" | "missed"; scheduled_at: string; runId: string } | undefined {
  const minute = minuteOf(created);
  // pg-boss sends the occurrence of the last 60 s: for a schedule set in the middle of a minute,
  // that is the minute already begun, which was not due when the schedule was made.
  if (Date.parse(minute) < Date.parse(t.updated_at)) return undefined;
  const missed = t.next_run_at !== undefined && t.next_run_at !== null && Date.parse(t.next_run_at) < Date.parse(minute);
  const scheduled_at = missed ? new Date(Date.parse(t.next_run_at!)).toISOString() : minute;
  return { reason: missed ? "missed" : "schedule", scheduled_at, runId: scheduledRunId(t.id, scheduled_at) };
}

/** The start of the minute `at` falls in (pg-boss files a schedule's job within its minute). */
function minuteOf(at: Date): string {
  return new Date(Math.floor(at.getTime() / 60_000) * 60_000).toISOString();
}

/** The run id of trigger `triggerId`'s due time `scheduled_at`: the same on every replica and every try. */
function scheduledRunId(triggerId: string, scheduled_at: string): string {
  return `run_${createHash("sha256").update(`${triggerId}@${scheduled_at}`).digest("hex").slice(0, 20)}`;
}

/**
 * For a schedule job of a trigger that is disabled now: the run an earlier try of the same job
 * left `running` (its replica stopped mid-run, and the trigger was disabled before pg-boss tried
 * again), which is to be ended, not left running for ever; undefined when there is none.
 */
export async function runLeftByDisabled(store: Pick<Store, "getTriggerRun">, t: Pick<TriggerRecord, "id">, created: Date | undefined): Promise<TriggerRunRecord | undefined> {
  if (!created) return undefined;
  const minute = minuteOf(created);
  const earlier = await store.getTriggerRun(scheduledRunId(t.id, minute));
  return earlier?.status === "running" ? earlier : undefined;
}

/** Schedules and runs triggers as pg-boss jobs (see the file comment). */
export class BossScheduler implements TriggerScheduler {
  /** Made when first opened: pg-boss is loaded only by a host whose store is PostgreSQL. */
  private made?: PgBoss;
  private ready?: Promise<void>;
  private bossStarted = false;
  private working = false;
  /** Schedules with seconds, timed in this process (see the file comment). */
  private readonly timers = new Map<string, Cron>();
  private sweep?: NodeJS.Timeout;

  constructor(
    private readonly store: Store,
    private readonly fire: TriggerFire,
    private readonly options: BossSchedulerOptions,
  ) {}

  /** The pg-boss instance; only after {@link open} has resolved. */
  private get boss(): PgBoss {
    if (!this.made) throw new Error("pg-boss is not started");
    return this.made;
  }

  /** Starts pg-boss (its tables are created once) and the queue. A start that failed is tried again by the next caller. */
  private open(): Promise<void> {
    if (!this.ready) {
      const ready = (async () => {
        if (!this.made) {
          const { PgBoss } = await import("pg-boss");
          // A cron pass every 2 s, its jobs forwarded every second: a due time's job is sent within
          // about 3 s of it (pg-boss default 30 s + 5 s);
          // a supervising pass every 10 s: a job whose replica died is retried within about 20 s of its
          // last heartbeat (pg-boss default 60 s).
          const o = this.options;
          this.made = new PgBoss({ connectionString: o.url, schema: o.schema ?? "toolshell_boss", max: 4, cronMonitorIntervalSeconds: 2, cronWorkerIntervalSeconds: 1, superviseIntervalSeconds: 10, monitorIntervalSeconds: 10 });
          // pg-boss reports connection trouble here; it reconnects by itself.
          this.made.on("error", () => {});
        }
        if (!this.bossStarted) {
          await this.boss.start();
          this.bossStarted = true;
        }
        if (await this.boss.getQueue(TRIGGER_QUEUE)) return;
        await this.boss
          .createQueue(TRIGGER_QUEUE, { retryLimit: RETRY_LIMIT, retryDelay: 2, retryBackoff: true, heartbeatSeconds: HEARTBEAT_S, expireInSeconds: 24 * 3600 })
          .catch(async (err: unknown) => {
            // Another replica created it at the same moment.
            if (!(await this.boss.getQueue(TRIGGER_QUEUE))) throw err;
          });
      })();
      this.ready = ready;
      ready.catch(() => {
        if (this.ready === ready) this.ready = undefined;
      });
    }
    return this.ready;
  }

  async start(triggers: TriggerRecord[]): Promise<void> {
    await this.open();
    for (const t of triggers) {
      // A schedule timed here whose due time passed while every replica was down: once, as pg-boss does for the others.
      if (t.kind === "schedule" && t.enabled && t.cron && hasSeconds(t.cron) && t.next_run_at && Date.parse(t.next_run_at) <= Date.now()) await this.sendDue(t.id, t.next_run_at, "missed");
      await this.reschedule(t);
    }
    await this.recoverOrphans().catch(() => {});
    if (!this.sweep) {
      this.sweep = setInterval(() => void this.recoverOrphans().catch(() => {}), ORPHAN_SWEEP_MS);
      this.sweep.unref();
    }
    if (this.working) return;
    this.working = true;
    await this.boss.work<TriggerJob>(TRIGGER_QUEUE, { pollingIntervalSeconds: this.options.pollSeconds ?? 1, localConcurrency: 4, includeMetadata: true }, async ([job]) => this.take(job));
  }

  /** Runs one job. Throws only when the run could not be recorded (pg-boss then retries it). */
  private async take(job: Job<TriggerJob>): Promise<void> {
    const d = job.data;
    const runId = d.run_id ?? `run_${job.id.replace(/-/g, "").slice(0, 20)}`;
    // A trigger deleted since (or a schedule disabled since) has nothing to run.
    const cur = await this.store.getTrigger(d.trigger_id);
    if (cur && d.resume && d.run_id) return void (await this.fire(d.trigger_id, d.reason, { runId: d.run_id, resume: d.resume }));
    const created = (job as { createdOn?: Date }).createdOn;
    if (cur && (d.reason === "schedule" || d.scheduled_at) && !cur.enabled) {
      // runTrigger records such a run as ended: a disabled trigger runs nothing.
      const earlier = d.run_id ? await this.store.getTriggerRun(d.run_id) : undefined;
      const left = d.scheduled_at ? (earlier?.status === "running" ? earlier : undefined) : await runLeftByDisabled(this.store, cur, created);
      if (left) await this.fire(d.trigger_id, left.reason, { runId: left.id });
      return;
    }
    if (!cur) return;
    // A due time of a schedule timed here names its run and time.
    if (d.scheduled_at && d.run_id) return void (await this.fire(d.trigger_id, d.reason, { runId: d.run_id, scheduled_at: d.scheduled_at }));
    if (d.reason !== "schedule" || !created) return void (await this.fire(d.trigger_id, d.reason, { payload: d.payload, runId }));
    const due = scheduleDue(cur, created);
    if (due) await this.fire(d.trigger_id, due.reason, { payload: d.payload, runId: due.runId, scheduled_at: due.scheduled_at });
  }

  async reschedule(t: TriggerRecord): Promise<void> {
    await this.open();
    if (t.kind !== "schedule" || !t.cron || !t.enabled) return this.unschedule(t.id);
    if (hasSeconds(t.cron)) {
      await this.unschedule(t.id);
      try {
        const timer = new Cron(t.cron, { timezone: t.timezone ?? "UTC", protect: true }, async (self: Cron) => {
          await this.sendDue(t.id, (self.currentRun() ?? new Date()).toISOString(), "schedule").catch(() => {});
        });
        this.timers.set(t.id, timer);
      } catch {}
      return;
    }
    this.stopTimer(t.id);
    const data: TriggerJob = { trigger_id: t.id, reason: "schedule" };
    await this.boss.schedule(TRIGGER_QUEUE, t.cron, data, { tz: t.timezone ?? "UTC", key: t.id, missed: "once" });
  }

  /** Sends again the runs left running by replicas gone for {@link ORPHAN_AFTER_MS} (see the file comment). */
  async recoverOrphans(now = Date.now()): Promise<void> {
    if (!this.bossStarted) return;
    const replicas = new Map((await knownReplicas(this.store, now)).map((r) => [r.id, r]));
    for (const step of await this.store.runningSteps()) {
      if (!step.holder || !step.stepId.startsWith(triggerStepId(""))) continue;
      const r = replicas.get(step.holder);
      if (r && (r.live || now - Date.parse(r.seen_at) < ORPHAN_AFTER_MS)) continue;
      const run = await this.store.getTriggerRun(step.stepId.slice(triggerStepId("").length));
      if (!run || run.status !== "running") continue;
      const timed = run.reason === "schedule" || run.reason === "missed";
      const data: TriggerJob = { trigger_id: run.trigger_id, reason: run.reason, payload: run.payload, run_id: run.id, ...(timed ? { scheduled_at: run.scheduled_at ?? run.started_at } : {}) };
      await this.boss.send(TRIGGER_QUEUE, data, { id: jobIdOf(`${run.id}:recover:${step.holder}`) });
    }
  }

  /** Sends the job of one due time of a schedule timed here: the same id from every replica, so one run. */
  private async sendDue(triggerId: string, scheduled_at: string, reason: "schedule" | "missed"): Promise<void> {
    const runId = scheduledRunId(triggerId, scheduled_at);
    await this.boss.send(TRIGGER_QUEUE, { trigger_id: triggerId, reason, run_id: runId, scheduled_at } satisfies TriggerJob, { id: jobIdOf(runId) });
  }

  private stopTimer(triggerId: string): void {
    this.timers.get(triggerId)?.stop();
    this.timers.delete(triggerId);
  }

  async unschedule(triggerId: string): Promise<void> {
    this.stopTimer(triggerId);
    await this.open();
    await this.boss.unschedule(TRIGGER_QUEUE, triggerId).catch(() => {});
  }

  async deliver(triggerId: string, req: RunRequest): Promise<void> {
    await this.open();
    const runId = req.runId ?? newRunId();
    await this.boss.send(TRIGGER_QUEUE, { trigger_id: triggerId, reason: "webhook", payload: req.payload ?? {}, run_id: runId } satisfies TriggerJob, { id: jobIdOf(runId) });
  }

  async resume(triggerId: string, req: RunRequest): Promise<void> {
    await this.open();
    if (!req.runId || !req.resume) return;
    // One job per answer: the same answer handed over twice is one job, and the run goes on once.
    const data: TriggerJob = { trigger_id: triggerId, reason: "manual", run_id: req.runId, resume: req.resume };
    await this.boss.send(TRIGGER_QUEUE, data, { id: jobIdOf(`${req.runId}:${req.resume}`) });
  }

  async stop(): Promise<void> {
    for (const id of [...this.timers.keys()]) this.stopTimer(id);
    if (this.sweep) clearInterval(this.sweep);
    this.sweep = undefined;
    await this.ready?.catch(() => {});
    if (!this.bossStarted) return;
    this.bossStarted = false;
    this.ready = undefined;
    this.working = false;
    await this.boss.stop({ graceful: true, timeout: 10_000 }).catch(() => {});
  }
}
