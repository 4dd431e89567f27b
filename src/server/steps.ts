/**
 * A session's durable steps as the API (`GET /v1/sessions/{id}/steps`) and the console's session
 * page show them: snake_case like every other answer, and a step waiting for approval whose
 * request was answered is `answered` — it runs (resumes) when the same step_id is sent again, and
 * nothing runs until then.
 *
 * A running step names the replica that holds it; when that replica's heartbeat is older than
 * `REPLICA_STALE_MS` (or gone), the step is `replica_gone`: nothing runs it until the same step_id
 * is sent again to a live replica.
 *
 * Rule source: docs/sessions.md → Durable steps; docs/deployment.md "A client whose replica is killed"
 * and "Who holds a step".
 */
import type { StepRecord } from "../runtime/index.js";
import type { Store } from "../store/index.js";
import { knownReplicas, type ReplicaInfo } from "./shared-state.js";

/** What a person or an agent does about an answered step. */
export const ANSWERED_NOTE = "the approval was answered; send the same step_id again to run it (what already ran is replayed)";

/** What a person or an agent does about a step whose replica is gone. */
export const GONE_NOTE = "the replica running it stopped (no heartbeat); send the same step_id again to resume it on a live replica (what already ran is replayed)";

/** The replica holding a running step, as the API shows it. */
export interface StepReplica {
  id: string;
  /** False when its heartbeat stopped (or its record is gone). */
  live: boolean;
  host?: string;
  pid?: number;
  url?: string;
  /** Its last heartbeat. */
  seen_at?: string;
}

/** A step as the API shows it. */
export interface StepView {
  session_id: string;
  step_id: string;
  kind: string;
  tool_call_id: string;
  request_hash: string;
  request: unknown;
  /**
   * `running`, `completed`, `waiting_approval`, `answered` (waiting no more: send it again), or
   * `replica_gone` (was running on a replica that stopped: send it again).
   */
  status: StepRecord["status"] | "answered" | "replica_gone";
  /** The replica that ran its latest attempt (running it now, or having ended it), when a replica did. */
  replica?: StepReplica;
  note?: string;
  /** 1 for the first run; more when it ran again (resumed after a kill or an answer). */
  attempt: number;
  result: unknown;
  request_id?: string;
  /** When the first attempt started. */
  started_at: string;
  /** When the latest attempt started, for a step that ran more than once. */
  resumed_at?: string;
  ended_at?: string;
}

function stepReplica(id: string, known: ReadonlyMap<string, ReplicaInfo & { live: boolean }>): StepReplica {
  const r = known.get(id);
  return r ? { id, live: r.live, host: r.host, pid: r.pid, url: r.url, seen_at: r.seen_at } : { id, live: false };
}

function stepJson(s: StepRecord, answered: ReadonlySet<string>, known: ReadonlyMap<string, ReplicaInfo & { live: boolean }>): StepView {
  const waitsNoMore = s.status === "waiting_approval" && !!s.requestId && answered.has(s.requestId);
  const replica = s.holder ? stepReplica(s.holder, known) : undefined;
  const gone = s.status === "running" && replica?.live === false;
  return {
    session_id: s.sessionId,
    step_id: s.stepId,
    kind: s.kind,
    tool_call_id: s.toolCallId,
    request_hash: s.requestHash,
    request: s.request,
    status: waitsNoMore ? "answered" : gone ? "replica_gone" : s.status,
    ...(replica ? { replica } : {}),
    ...(waitsNoMore ? { note: ANSWERED_NOTE } : gone ? { note: GONE_NOTE } : {}),
    attempt: s.attempt,
    result: s.result,
    request_id: s.requestId,
    started_at: s.firstStartedAt ?? s.startedAt,
    ...(s.attempt > 1 && s.firstStartedAt && s.firstStartedAt !== s.startedAt ? { resumed_at: s.startedAt } : {}),
    ended_at: s.endedAt,
  };
}

/** The session's steps in start order, each held step's answer looked up in its approval book. */
export async function sessionSteps(store: Store, sessionId: string): Promise<StepView[]> {
  const steps = await store.listSteps(sessionId);
  const asked = steps.filter((s) => s.status === "waiting_approval" && s.requestId).map((s) => s.requestId!);
  const book = asked.length ? await store.approvalBook(sessionId) : undefined;
  const answered = new Set(asked.filter((id) => book?.get(id)?.status === "answered"));
  const held = steps.some((s) => s.holder);
  const known = new Map(held ? (await knownReplicas(store)).map((r) => [r.id, r]) : []);
  return steps.map((s) => stepJson(s, answered, known));
}

/**
 * How many steps of each session were running on a replica that stopped (`replica_gone`), for
 * the session lists (`GET /v1/sessions`, the console's Sessions page): a session whose step
 * nobody runs any more stands out before anyone opens it.
 */
export async function goneStepsBySession(store: Store): Promise<Map<string, number>> {
  const held = (await store.runningSteps()).filter((s) => s.holder);
  const gone = new Map<string, number>();
  if (!held.length) return gone;
  const live = new Set((await knownReplicas(store)).filter((r) => r.live).map((r) => r.id));
  for (const s of held) if (!live.has(s.holder!)) gone.set(s.sessionId, (gone.get(s.sessionId) ?? 0) + 1);
  return gone;
}
