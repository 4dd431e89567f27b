/**
 * What a pg-boss schedule job runs (`scheduleDue`, src/server/trigger-boss.ts): the minute it was
 * filed in; after an outage, where pg-boss files the missed occurrence's job beside the current
 * one in the same minute, the job that finds `next_run_at` earlier runs that due time as
 * `missed`; two jobs for one due time share one run id. See docs/deployment.md → Triggers.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { scheduleDue } from "../../src/server/trigger-boss.js";

const t = { id: "trg_1", updated_at: "2026-12-06T23:00:00.000Z" };

test("a job in normal running is its minute's due time, reason schedule; one due time, one run id", () => {
  const a = scheduleDue({ ...t, next_run_at: "2026-12-06T23:41:00.000Z" }, new Date("2026-12-06T23:41:01.500Z"))!;
  assert.deepEqual({ reason: a.reason, scheduled_at: a.scheduled_at }, { reason: "schedule", scheduled_at: "2026-12-06T23:41:00.000Z" });
  const again = scheduleDue({ ...t, next_run_at: "2026-12-06T23:41:00.000Z" }, new Date("2026-12-06T23:41:40.000Z"))!;
  assert.equal(again.runId, a.runId, "two jobs for one due time are one run");
  const next = scheduleDue({ ...t, next_run_at: "2026-12-06T23:42:00.000Z" }, new Date("2026-12-06T23:42:02.000Z"))!;
  assert.notEqual(next.runId, a.runId, "another due time is another run");
  assert.notEqual(scheduleDue({ ...t, id: "trg_2", next_run_at: "2026-12-06T23:41:00.000Z" }, new Date("2026-12-06T23:41:01.500Z"))!.runId, a.runId, "another trigger's is another run");
});

test("after an outage the job that finds next_run_at past runs that missed due time as missed; the current one then runs as its own", () => {
  // Both replicas were down from 23:38:48 to 23:41:16: 23:39 was the next due time.
  const missed = scheduleDue({ ...t, next_run_at: "2026-12-06T23:39:00.000Z" }, new Date("2026-12-06T23:41:19.768Z"))!;
  assert.deepEqual({ reason: missed.reason, scheduled_at: missed.scheduled_at }, { reason: "missed", scheduled_at: "2026-12-06T23:39:00.000Z" });
  // The missed run wrote the next due time (23:42) before it ran: the second job is the 23:41 due time.
  const current = scheduleDue({ ...t, next_run_at: "2026-12-06T23:42:00.000Z" }, new Date("2026-12-06T23:41:20.152Z"))!;
  assert.deepEqual({ reason: current.reason, scheduled_at: current.scheduled_at }, { reason: "schedule", scheduled_at: "2026-12-06T23:41:00.000Z" });
  assert.notEqual(current.runId, missed.runId);
  // Both jobs taken before either run wrote anything: both are the one missed run.
  assert.equal(scheduleDue({ ...t, next_run_at: "2026-12-06T23:39:00.000Z" }, new Date("2026-12-06T23:41:20.152Z"))!.runId, missed.runId);
});

test("a job for the minute in which the schedule was made or changed runs nothing", () => {
  assert.equal(scheduleDue({ ...t, updated_at: "2026-12-06T23:41:30.000Z", next_run_at: "2026-12-06T23:42:00.000Z" }, new Date("2026-12-06T23:41:31.000Z")), undefined);
});
