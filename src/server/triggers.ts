/**
 * Triggers: a schedule (cron expression + time zone) or a webhook runs a saved script with no
 * model. A run is one shell call, `tools scripts NAME -` with the filled input on stdin, in the
 * trigger's own session (`trg_` and its id: `trg_trg_…`; people are shown the trigger's name), so it has the caller-side rules of any shell call: the
 * budget of 50, approvals, the stop report, events. A call that needs approval stops the run;
 * the request is recorded in the session's approval book, and when it is answered the same run
 * goes on (its completed calls replayed, not made again). A run that fails
 * or stops calls the wake-agent callback when the trigger says `wake_agent_on_failure`.
 *
 * Missed schedules: each schedule trigger keeps `next_run_at`. On start, a trigger whose
 * `next_run_at` has passed (the process was down then) runs once, with reason `missed`, however
 * many times it was due; then it follows its schedule.
 *
 * See docs/sessions.md → Triggers.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { Cron } from "croner";
import type { ToolShell } from "../runtime/index.js";
import { DEFAULT_AGENT, type ScriptRecord, type Store, type TriggerRecord, type TriggerRunRecord } from "../store/index.js";
import { parseTriggerSpec, type TriggerSpec } from "../config/index.js";
import { BossScheduler } from "./trigger-boss.js";
import { CronScheduler, type TriggerScheduler } from "./trigger-cron.js";
import { newRunId, runTrigger, type RunRequest, type WakeCall } from "./trigger-run.js";
import { tokenMatches } from "./token-guard.js";
import { KeyedQueue } from "../async/keyed-queue.js";

export { publicTrigger, triggerSessionId, type WakeCall } from "./trigger-run.js";

/** What the service needs. */
export interface TriggerServiceOptions {
  /** Runs the triggers. Without one, the service only creates, changes and deletes them. */
  shell?: ToolShell;
  store: Store;
  /** Called (awaited, errors ignored) for failed or stopped runs of triggers that ask for it. */
  wakeAgent?: (call: WakeCall) => void | Promise<void>;
  /** The clock (epoch ms). */
  now?: () => number;
  /**
   * The PostgreSQL URL of a store several replicas share: schedules and webhook deliveries then
   * become pg-boss jobs (trigger-boss.ts). Without it, schedules run in this process (croner).
   */
  postgresUrl?: string;
}

/** SHA-256 hex of a webhook secret. */
export function secretHash(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("hex");
}

/** Compares two secrets in constant time (by their SHA-256 digests). */
export function sameSecret(a: string, b: string): boolean {
  return tokenMatches(a, [b]);
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

/** What a trigger's schedule depends on, to see that it changed. */
function stamp(t: TriggerRecord): string {
  return `${t.updated_at}|${t.enabled}`;
}

/**
 * The `next_run_at` a trigger gets when saved: none for a webhook or a disabled schedule; the
 * one kept when its schedule did not change (a missed run may be due); else the next due time.
 */
function nextRun(spec: TriggerSpec, existing: TriggerRecord | undefined): { next_run_at?: string } {
  if (spec.kind !== "schedule" || !spec.cron || !spec.enabled) return {};
  const tz = spec.timezone ?? "UTC";
  if (existing?.next_run_at && existing.enabled && existing.cron === spec.cron && (existing.timezone ?? "UTC") === tz) return { next_run_at: existing.next_run_at };
  try {
    const next = new Cron(spec.cron, { timezone: tz, paused: true }).nextRun();
    return next ? { next_run_at: next.toISOString() } : {};
  } catch {
    return {};
  }
}

/**
 * Creates, changes, deletes and runs triggers. Runs of one trigger are queued one after another
 * in this process (and, on several replicas, the trigger's session is held by one at a time);
 * whichever scheduler fires a run, it goes through `runTrigger` (trigger-run.ts).
 */
export class TriggerService {
  private readonly runs = new KeyedQueue<string>();
  private readonly inflight = new Set<Promise<unknown>>();
  /** Answers being handed over to their stopped runs ({@link answered}), by session and request. */
  private readonly handovers = new Map<string, Promise<string | undefined>>();
  private readonly now: () => number;
  private readonly scheduler: TriggerScheduler;
  private configSynced = false;
  /** What the scheduler was last given per trigger (its `updated_at` and `enabled`), for {@link sync}. */
  private readonly known = new Map<string, string>();

  constructor(private readonly o: TriggerServiceOptions) {
    this.now = o.now ?? Date.now;
    const fire = (id: string, reason: TriggerRunRecord["reason"], req: RunRequest) => this.track(this.enqueue(id, reason, req));
    this.scheduler = o.postgresUrl && o.shell ? new BossScheduler(o.store, fire, { url: o.postgresUrl }) : new CronScheduler(o.store, fire, this.now);
  }

  /**
   * Creates a trigger (or replaces the one of the same agent and name when `replace`). A webhook
   * trigger gets a new secret, returned once.
   * @throws Error when the name is taken (without `replace`).
   */
  async create(
    agentId: string,
    spec: TriggerSpec,
    options: { origin?: TriggerRecord["origin"]; replace?: boolean; principal?: string; vouch?: boolean } = {},
  ): Promise<{ trigger: TriggerRecord; secret?: string }> {
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
      ...(nextRun(spec, existing)),
      origin: options.origin ?? "api",
      ...(options.principal ? { principal: options.principal } : {}),
      vouched_at: options.vouch === false && existing ? (existing.vouched_at ?? existing.updated_at) : t,
      created_at: existing?.created_at ?? t,
      updated_at: t,
    };
    await this.o.store.putTrigger(rec);
    // Every replica schedules it (docs/deployment.md "What is shared").
    await this.o.store.noteChange();
    if (this.configSynced) this.known.set(rec.id, stamp(rec));
    await this.scheduler.reschedule(rec);
    return { trigger: (await this.o.store.getTrigger(rec.id)) ?? rec, ...(secret ? { secret } : {}) };
  }

  /**
   * What to tell whoever made or changed `trigger` when its runs will fail: the saved script it
   * runs is not there (not saved yet, or archived: `unknown_command` until it is), or the
   * trigger's input does not fit the script's input schema (a field it does not name, a required
   * one missing: `invalid_input` at every run). The trigger is kept either way (the script may be
   * saved or changed after it). @returns the warning, or undefined.
   */
  async scriptWarning(trigger: Pick<TriggerRecord, "agent_id" | "script" | "name" | "input">): Promise<string | undefined> {
    const saved = await this.o.store.getScript(trigger.agent_id, trigger.script);
    if (!saved || saved.archived) {
      return `agent ${trigger.agent_id} has no ${saved ? "unarchived " : ""}saved script ${trigger.script}: every run of trigger ${trigger.name} fails until it is saved (toolshell scripts save, POST /v1/agents/${trigger.agent_id}/scripts)`;
    }
    const schema = saved.input_schema;
    const named = schema.properties && typeof schema.properties === "object" ? Object.keys(schema.properties) : [];
    const input = trigger.input ?? {};
    const open = schema.additionalProperties !== undefined && schema.additionalProperties !== false;
    const unknown = open ? [] : Object.keys(input).filter((k) => !named.includes(k));
    const missing = Array.isArray(schema.required) ? schema.required.filter((k): k is string => typeof k === "string" && !(k in input)) : [];
    if (!unknown.length && !missing.length) return undefined;
    const what = [unknown.length ? `it sends ${unknown.map((k) => JSON.stringify(k)).join(", ")}, which the script's input schema does not name${named.length ? ` (it names ${named.join(", ")})` : " (it names no fields)"}` : "", missing.length ? `it does not send the required ${missing.map((k) => JSON.stringify(k)).join(", ")}` : ""].filter(Boolean).join("; ");
    return `trigger ${trigger.name}'s input does not fit saved script ${saved.name} v${saved.version}: ${what}. Every run fails until the trigger's input or the script's --input-schema changes`;
  }

  /**
   * What to tell whoever saved a new version of `script`: the triggers of its agent that run it
   * while acting for another principal, which refuse versions saved after that principal last
   * changed them (docs/security.md "Who acts for whom") — so they refuse this one until changed.
   * @returns the warning, or undefined.
   */
  async unvouchedTriggers(script: Pick<ScriptRecord, "agent_id" | "name" | "version" | "updated_at">): Promise<string | undefined> {
    const refusing = (await this.o.store.listTriggers({ agentId: script.agent_id })).filter((t) => t.script === script.name && t.principal && t.principal !== t.agent_id && t.vouched_at && t.vouched_at < script.updated_at);
    if (!refusing.length) return undefined;
    const names = refusing.map((t) => `${t.name} (acting for ${t.principal})`).join(", ");
    return `trigger${refusing.length > 1 ? "s" : ""} ${names} will refuse v${script.version} of ${script.name}: a trigger acting for someone other than its agent runs only versions saved before that person last changed it; change the trigger (PATCH /v1/agents/${script.agent_id}/triggers/<name> with any field but enabled, or toolshell triggers update) to accept this version`;
  }

  /**
   * Changes a trigger. Whoever changes what it does is who it acts for from then on, and vouches
   * for the saved scripts as they are now (`vouched_at`); `vouch: false` (a change that only turns
   * it on or off) keeps who it acts for and what they vouched for.
   * @returns the new record, or undefined when there is none.
   */
  async update(id: string, spec: TriggerSpec, options: { principal?: string; vouch?: boolean } = {}): Promise<TriggerRecord | undefined> {
    const cur = await this.o.store.getTrigger(id);
    if (!cur) return undefined;
    const vouch = options.vouch !== false;
    const principal = vouch ? (options.principal ?? cur.principal) : cur.principal;
    return (await this.create(cur.agent_id, spec, { origin: cur.origin, replace: true, vouch, ...(principal ? { principal } : {}) })).trigger;
  }

  /** Deletes a trigger and its schedule. @returns false when there was none. */
  async delete(id: string): Promise<boolean> {
    await this.scheduler.unschedule(id);
    this.known.delete(id);
    const gone = await this.o.store.deleteTrigger(id);
    if (gone) await this.o.store.noteChange();
    return gone;
  }

  /**
   * Schedules what the store's triggers say now: those created, changed or deleted by another
   * replica or the CLI since this one last looked (docs/deployment.md "What is shared"). Does
   * nothing before {@link start}.
   */
  async sync(): Promise<void> {
    if (!this.configSynced) return;
    const list = await this.o.store.listTriggers();
    for (const t of list) {
      if (this.known.get(t.id) === stamp(t)) continue;
      this.known.set(t.id, stamp(t));
      await this.scheduler.reschedule(t);
    }
    for (const id of [...this.known.keys()]) {
      if (list.some((t) => t.id === id)) continue;
      this.known.delete(id);
      await this.scheduler.unschedule(id);
    }
  }

  /**
   * Brings the config's triggers into the store (created, updated; config triggers no longer in
   * the config are deleted), then — once — starts the scheduler: in-process, runs a dead process
   * left `running` are marked failed and schedules missed while down run once (started, not
   * awaited); on pg-boss, the schedules are registered and this replica takes jobs.
   */
  async start(configTriggers: TriggerSpec[] = []): Promise<void> {
    const keep = new Set<string>();
    for (const spec of configTriggers) {
      const agent = spec.agent_id ?? DEFAULT_AGENT;
      const { trigger } = await this.create(agent, spec, { origin: "config", replace: true });
      keep.add(trigger.id);
    }
    for (const t of await this.o.store.listTriggers()) if (t.origin === "config" && !keep.has(t.id)) await this.delete(t.id);
    if (this.configSynced) return;
    this.configSynced = true;
    const list = await this.o.store.listTriggers();
    for (const t of list) this.known.set(t.id, stamp(t));
    await this.scheduler.start(list);
  }

  /** Stops every schedule and waits for runs in flight. */
  async stop(): Promise<void> {
    // Answers being handed over first: pg-boss must still be open to take them.
    await Promise.allSettled([...this.handovers.values()]);
    await this.scheduler.stop();
    await Promise.allSettled([...this.inflight]);
  }

  private track<T>(p: Promise<T>): Promise<T> {
    this.inflight.add(p);
    void p.finally(() => this.inflight.delete(p)).catch(() => {});
    return p;
  }

  /** Runs of one trigger are serialised: each waits for the one before. */
  private enqueue(triggerId: string, reason: TriggerRunRecord["reason"], req: RunRequest): Promise<TriggerRunRecord> {
    return this.runs.run(triggerId, () => runTrigger({ store: this.o.store, shell: this.o.shell, wakeAgent: this.o.wakeAgent, now: this.now }, triggerId, reason, req));
  }

  /**
   * Runs a trigger now (a person's "run now", or a webhook the caller waits for) in this process
   * and resolves with the finished run.
   * @throws Error when there is no such trigger.
   */
  async run(triggerId: string, reason: "manual" | "webhook", payload: unknown = {}, runId?: string): Promise<TriggerRunRecord> {
    if (!(await this.o.store.getTrigger(triggerId))) throw new Error(`no trigger ${triggerId}`);
    return this.track(this.enqueue(triggerId, reason, { payload, runId }));
  }

  /**
   * Accepts a webhook delivery to run without the caller waiting: in this process, or on
   * pg-boss as a job whichever replica takes (retried if that replica dies). Resolves once accepted.
   * @throws Error when there is no such trigger, or pg-boss refused the job.
   */
  async deliver(triggerId: string, payload: unknown, runId: string): Promise<void> {
    if (!(await this.o.store.getTrigger(triggerId))) throw new Error(`no trigger ${triggerId}`);
    await this.scheduler.deliver(triggerId, { payload, runId });
  }

  /**
   * An approval request of session `sessionId` was answered: when it is an enabled trigger's
   * session and runs of that trigger stopped on the request, each goes on (here, or on pg-boss by
   * whichever replica takes it) — its completed calls replayed, the answered call run with its
   * answer (docs/sessions.md → Triggers). Never throws.
   * @returns the earliest run that goes on, or undefined when none waited on the request.
   */
  answered(sessionId: string, requestId: string): Promise<string | undefined> {
    // One handover per answer, whoever asks for it (the host's answer event, or `toolshell
    // approve`, which waits for it before its process exits): both wait on the same promise.
    const key = `${sessionId}\n${requestId}`;
    let p = this.handovers.get(key);
    if (!p) {
      p = this.handOver(sessionId, requestId);
      this.handovers.set(key, p);
      void p.finally(() => this.handovers.delete(key));
    }
    return p;
  }

  private async handOver(sessionId: string, requestId: string): Promise<string | undefined> {
    try {
      if (!this.o.shell || !sessionId.startsWith("trg_")) return undefined;
      const t = await this.o.store.getTrigger(sessionId.slice(4));
      // A disabled trigger runs nothing: the answer is kept, the stopped run stays stopped.
      if (!t || !t.enabled) return undefined;
      // Every run stopped on the request goes on (a run now beside a stopped run can stop on the
      // same pending request): each takes the answer, or asks again once a one-off answer is spent.
      const runs = (await this.o.store.listTriggerRuns(t.id, { limit: 50 })).filter((r) => r.status === "stopped" && r.request_id === requestId);
      if (!runs.length) return undefined;
      // Read back from the store (after this process's queued writes of the session): the replica
      // that takes the run must find the answer there.
      if ((await this.o.store.approvalBook(sessionId)).get(requestId)?.status !== "answered") return undefined;
      for (const run of runs) await this.scheduler.resume(t.id, { runId: run.id, resume: requestId });
      return runs[runs.length - 1]!.id;
    } catch {
      return undefined;
    }
  }

  /** A new run id (for callers that answer before the run ends, then pass it to {@link run}). */
  static newRunId(): string {
    return newRunId();
  }
}

