/**
 * Triggers: a schedule (cron expression + time zone) or a webhook runs a saved script with no
 * model. A run is one shell call, `tools scripts NAME -` with the filled input on stdin, in the
 * trigger's own session (`trg_<id>`), so it has the caller-side rules of any shell call: the
 * budget of 50, approvals, the stop report, events. A call that needs approval stops the run;
 * the request is recorded in the session's approval book and never waited on. A run that fails
 * or stops calls the wake-agent callback when the trigger says `wake_agent_on_failure`.
 *
 * Missed schedules: each schedule trigger keeps `next_run_at`. On start, a trigger whose
 * `next_run_at` has passed (the process was down then) runs once, with reason `missed`, however
 * many times it was due; then it follows its schedule.
 *
 * Rule source: docs/sessions.md → Triggers; README → Saved scripts ("A schedule or webhook
 * trigger can run a saved script without a model call").
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import { Cron } from "croner";
import type { ShellResult, ToolShell } from "../runtime/index.js";
import { SCRIPTS_SOURCE } from "../scripts/index.js";
import { DEFAULT_AGENT, type Store, type TriggerRecord, type TriggerRunRecord } from "../store/index.js";
import { parseTriggerSpec, type TriggerSpec } from "../config/index.js";
import { fillTemplates } from "./template.js";

/** What the wake-agent callback receives. */
export interface WakeCall {
  trigger: Omit<TriggerRecord, "secret_hash">;
  run: TriggerRunRecord;
  /** The shell call's result: its stop report is under `tools`. */
  report: ShellResult | undefined;
}

/** What the service needs. */
export interface TriggerServiceOptions {
  /** Runs the triggers. Without one, the service only creates, changes and deletes them. */
  shell?: ToolShell;
  store: Store;
  /** Called (awaited, errors ignored) for failed or stopped runs of triggers that ask for it. */
  wakeAgent?: (call: WakeCall) => void | Promise<void>;
  /** The clock (epoch ms). */
  now?: () => number;
}

/** SHA-256 hex of a webhook secret. */
export function secretHash(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("hex");
}

/** Compares two secrets in constant time (by their SHA-256 digests). */
export function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(createHash("sha256").update(a).digest(), createHash("sha256").update(b).digest());
}

/** A trigger as the API shows it: everything but the secret's hash. */
export function publicTrigger(t: TriggerRecord): Omit<TriggerRecord, "secret_hash"> {
  const { secret_hash: _s, ...rest } = t;
  return rest;
}

/** A trigger of `agentId` by id or name; undefined when there is none or it is another agent's. */
export async function findAgentTrigger(store: Store, agentId: string, idOrName: string): Promise<TriggerRecord | undefined> {
  const t = (await store.getTrigger(idOrName)) ?? (await store.findTrigger(agentId, idOrName));
  return t && t.agent_id === agentId ? t : undefined;
}

/**
 * The spec of a trigger after a partial change (an API PATCH body, CLI options): the current
 * record's fields, overridden by those in `patch`; `cron` in the patch replaces the schedule.
 * @throws Error `trigger…: …` as {@link parseTriggerSpec} on a bad field.
 */
export function patchTriggerSpec(cur: TriggerRecord, patch: Record<string, unknown>): TriggerSpec {
  const merged: Record<string, unknown> = {
    name: cur.name,
    kind: cur.kind,
    ...(cur.kind === "schedule" ? { schedule: cur.cron, timezone: cur.timezone } : {}),
    script: cur.script,
    input: cur.input,
    enabled: cur.enabled,
    wake_agent_on_failure: cur.wake_agent_on_failure,
    ...(cur.webhook_wait ? { webhook_wait: true } : {}),
    ...patch,
  };
  if (patch.cron !== undefined) delete merged.schedule;
  return parseTriggerSpec(merged, "trigger");
}

/** The session a trigger's runs are recorded in. */
export function triggerSessionId(t: TriggerRecord): string {
  return `trg_${t.id}`;
}

/** Schedules, runs and records triggers. */
export class TriggerService {
  private readonly jobs = new Map<string, Cron>();
  private readonly queues = new Map<string, Promise<unknown>>();
  private readonly inflight = new Set<Promise<unknown>>();
  private started = false;
  private readonly now: () => number;

  constructor(private readonly o: TriggerServiceOptions) {
    this.now = o.now ?? Date.now;
  }

  /**
   * Creates a trigger (or replaces the one of the same agent and name when `replace`). A webhook
   * trigger gets a new secret, returned once.
   * @throws Error when the name is taken (without `replace`).
   */
  async create(agentId: string, spec: TriggerSpec, options: { origin?: "api" | "config"; replace?: boolean } = {}): Promise<{ trigger: TriggerRecord; secret?: string }> {
    const existing = await this.o.store.findTrigger(agentId, spec.name);
    if (existing && !options.replace) throw new Error(`a trigger named ${spec.name} exists`);
    const t = new Date(this.now()).toISOString();
    let secret: string | undefined;
    let secret_hash = existing?.kind === "webhook" && spec.kind === "webhook" ? existing.secret_hash : undefined;
    if (spec.kind === "webhook" && !secret_hash) {
      secret = `whs_${randomBytes(24).toString("base64url")}`;
      secret_hash = secretHash(secret);
    }
    const rec: TriggerRecord = {
      id: existing?.id ?? `trg_${randomUUID().replace(/-/g, "").slice(0, 16)}`,
      agent_id: agentId,
      name: spec.name,
      kind: spec.kind,
      ...(spec.kind === "schedule" ? { cron: spec.cron, timezone: spec.timezone ?? "UTC" } : {}),
      script: spec.script,
      input: spec.input,
      enabled: spec.enabled,
      wake_agent_on_failure: spec.wake_agent_on_failure,
      ...(spec.webhook_wait ? { webhook_wait: true } : {}),
      ...(secret_hash ? { secret_hash } : {}),
      ...(existing?.last_run_at ? { last_run_at: existing.last_run_at } : {}),
      ...(existing?.next_run_at && existing.cron === spec.cron && existing.timezone === spec.timezone ? { next_run_at: existing.next_run_at } : {}),
      origin: options.origin ?? "api",
      created_at: existing?.created_at ?? t,
      updated_at: t,
    };
    await this.o.store.putTrigger(rec);
    await this.reschedule(rec);
    return { trigger: (await this.o.store.getTrigger(rec.id)) ?? rec, ...(secret ? { secret } : {}) };
  }

  /** Changes some fields of a trigger. @returns the new record, or undefined when there is none. */
  async update(id: string, spec: TriggerSpec): Promise<TriggerRecord | undefined> {
    const cur = await this.o.store.getTrigger(id);
    if (!cur) return undefined;
    return (await this.create(cur.agent_id, spec, { origin: cur.origin, replace: true })).trigger;
  }

  /** Deletes a trigger and its schedule. @returns false when there was none. */
  async delete(id: string): Promise<boolean> {
    this.jobs.get(id)?.stop();
    this.jobs.delete(id);
    return await this.o.store.deleteTrigger(id);
  }

  /**
   * Brings the config's triggers into the store (created, updated; config triggers no longer in
   * the config are deleted), then — once — marks runs a dead process left `running` as failed,
   * runs every schedule missed while the process was down and starts the schedules. Missed runs
   * are started, not awaited.
   */
  async start(configTriggers: TriggerSpec[] = []): Promise<void> {
    const keep = new Set<string>();
    for (const spec of configTriggers) {
      const agent = spec.agent_id ?? DEFAULT_AGENT;
      const { trigger } = await this.create(agent, spec, { origin: "config", replace: true });
      keep.add(trigger.id);
    }
    for (const t of await this.o.store.listTriggers()) if (t.origin === "config" && !keep.has(t.id)) await this.delete(t.id);
    if (this.started) return;
    this.started = true;
    // Runs left `running` by a process that died: they will not finish now.
    for (const t of await this.o.store.listTriggers()) {
      for (const r of await this.o.store.listTriggerRuns(t.id, { limit: 50 })) {
        if (r.status === "running") await this.o.store.putTriggerRun({ ...r, status: "failed", error: "the process stopped while this run was in flight", ended_at: new Date(this.now()).toISOString() });
      }
    }
    for (const t of await this.o.store.listTriggers()) {
      if (t.kind !== "schedule" || !t.enabled) continue;
      if (t.next_run_at && Date.parse(t.next_run_at) <= this.now()) {
        this.track(this.enqueue(t.id, "missed", { scheduled_at: t.next_run_at }));
      }
      await this.reschedule(t);
    }
  }

  /** Stops every schedule and waits for runs in flight. */
  async stop(): Promise<void> {
    this.started = false;
    for (const j of this.jobs.values()) j.stop();
    this.jobs.clear();
    await Promise.allSettled([...this.inflight]);
  }

  private track<T>(p: Promise<T>): Promise<T> {
    this.inflight.add(p);
    void p.finally(() => this.inflight.delete(p)).catch(() => {});
    return p;
  }

  /** (Re)creates the schedule of a trigger and records its next run time. */
  private async reschedule(t: TriggerRecord): Promise<void> {
    this.jobs.get(t.id)?.stop();
    this.jobs.delete(t.id);
    if (t.kind !== "schedule" || !t.cron) return;
    let job: Cron;
    try {
      job = new Cron(t.cron, { timezone: t.timezone ?? "UTC", paused: !this.started || !t.enabled, protect: true }, async () => {
        const cur = await this.o.store.getTrigger(t.id);
        if (!cur || !cur.enabled) return;
        const scheduled = new Date(this.now()).toISOString();
        await this.track(this.enqueue(t.id, "schedule", { scheduled_at: scheduled })).catch(() => {});
      });
    } catch {
      return;
    }
    const next = job.nextRun();
    const cur = await this.o.store.getTrigger(t.id);
    if (cur && next && t.enabled && this.started) {
      // Keep a next_run_at that is already due (a missed run being handled); else the next one.
      const keepDue = cur.next_run_at && Date.parse(cur.next_run_at) <= this.now();
      if (!keepDue) await this.o.store.putTrigger({ ...cur, next_run_at: next.toISOString() });
    }
    if (this.started && t.enabled) this.jobs.set(t.id, job);
    else job.stop();
  }

  /** Runs of one trigger are serialised: each waits for the one before. */
  private enqueue(triggerId: string, reason: TriggerRunRecord["reason"], extra: { payload?: unknown; scheduled_at?: string; runId?: string }): Promise<TriggerRunRecord> {
    const prev = this.queues.get(triggerId) ?? Promise.resolve();
    const next = prev.catch(() => {}).then(() => this.runNow(triggerId, reason, extra));
    this.queues.set(triggerId, next);
    void next.finally(() => {
      if (this.queues.get(triggerId) === next) this.queues.delete(triggerId);
    }).catch(() => {});
    return next;
  }

  /**
   * Runs a trigger now (a person's "run now", or a webhook) and resolves with the finished run.
   * @throws Error when there is no such trigger.
   */
  async run(triggerId: string, reason: "manual" | "webhook", payload: unknown = {}, runId?: string): Promise<TriggerRunRecord> {
    if (!(await this.o.store.getTrigger(triggerId))) throw new Error(`no trigger ${triggerId}`);
    return this.track(this.enqueue(triggerId, reason, { payload, runId }));
  }

  /** A new run id (for callers that answer before the run ends, then pass it to {@link run}). */
  static newRunId(): string {
    return `run_${randomUUID().replace(/-/g, "").slice(0, 20)}`;
  }

  private async runNow(triggerId: string, reason: TriggerRunRecord["reason"], extra: { payload?: unknown; scheduled_at?: string; runId?: string }): Promise<TriggerRunRecord> {
    const { store, shell } = this.o;
    const t = await store.getTrigger(triggerId);
    if (!t) throw new Error(`no trigger ${triggerId}`);
    if (!shell) throw new Error("this trigger service has no shell to run triggers in");
    const started = new Date(this.now()).toISOString();
    const payload = extra.payload ?? {};
    const run: TriggerRunRecord = {
      id: extra.runId ?? TriggerService.newRunId(),
      trigger_id: t.id,
      agent_id: t.agent_id,
      reason,
      status: "running",
      session_id: triggerSessionId(t),
      payload,
      started_at: started,
    };
    await store.putTriggerRun(run);
    if (reason === "schedule" || reason === "missed") {
      // Record the next due time before running, so a crash mid-run is not "missed" again.
      const job = this.jobs.get(t.id);
      const next = job?.nextRun() ?? (t.cron ? safeNext(t.cron, t.timezone) : null);
      await store.putTrigger({ ...t, last_run_at: started, ...(next ? { next_run_at: next.toISOString() } : {}) });
    } else {
      await store.putTrigger({ ...t, last_run_at: started });
    }
    let result: ShellResult | undefined;
    try {
      const scope = { payload, trigger: { id: t.id, name: t.name, agent_id: t.agent_id }, now: started, scheduled_at: extra.scheduled_at ?? started };
      const input = fillTemplates(t.input, scope) as Record<string, unknown>;
      run.input = input;
      const session = shell.session(run.session_id, { agent_id: t.agent_id, trigger_id: t.id, trigger_name: t.name, client: `trigger:${t.id}` });
      // Checked again here: a trigger stored by an older version must not inject shell words.
      if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/.test(t.script)) throw new Error(`trigger ${t.name}: ${JSON.stringify(t.script)} is not a script name`);
      result = await session.bash(`tools ${SCRIPTS_SOURCE} ${t.script} -\n`, { stdin: JSON.stringify(input) });
      run.tool_call_id = result.tool_call_id;
      run.result = result;
      run.status = result.tools?.stopped ? "stopped" : result.exit_code === 0 ? "ok" : "failed";
      if (result.tools?.stopped?.request_id) run.request_id = result.tools.stopped.request_id;
      session.emit({ type: "trigger.run", trigger_id: t.id, trigger_name: t.name, run_id: run.id, reason, status: run.status, tool_call_id: result.tool_call_id, ...(run.request_id ? { request_id: run.request_id } : {}) });
    } catch (err) {
      run.status = "failed";
      run.error = err instanceof Error ? err.message : String(err);
    }
    run.ended_at = new Date(this.now()).toISOString();
    await store.putTriggerRun(run);
    if (run.status !== "ok" && t.wake_agent_on_failure && this.o.wakeAgent) {
      try {
        await this.o.wakeAgent({ trigger: publicTrigger(t), run, report: result });
      } catch {}
    }
    return run;
  }
}

function safeNext(cron: string, timezone?: string): Date | null {
  try {
    const c = new Cron(cron, { timezone: timezone ?? "UTC", paused: true });
    const n = c.nextRun();
    c.stop();
    return n;
  } catch {
    return null;
  }
}
