/**
 * The replay of a durable step's earlier attempt: which recorded nested calls a shell call that
 * runs again answers from its record instead of running them (docs/sessions.md → Durable steps).
 * The records are the store's (`SessionStore.recordedCalls`, durable.ts); the mark of a call that
 * only started is never replayed.
 */
import type { Replayed, ResumedTask } from "../call/index.js";
import { canonicalJson } from "../policy/index.js";
import type { RecordedCall } from "./durable.js";

/** Replays the recorded calls of an earlier attempt, in order, until the script diverges. */
export interface Replayer {
  /**
   * The recorded call at `index` when it matches `command` and the given input's canonical JSON
   * (the upstream task it was following, when it had not completed); else undefined (and replay ends).
   */
  take(index: number, command: string, givenKey: string): Replayed | ResumedTask | undefined;
}

/** The records a later attempt replays from: completed calls and calls following a task, never the mark of a call that only started. */
export function replayable(calls: readonly RecordedCall[]): RecordedCall[] {
  return calls.filter((c) => c.started === undefined);
}

/**
 * A replayer over the calls of an earlier attempt (sorted by index). A call with no record
 * whose position is before a recorded one was still running while later calls completed (the
 * saved script whose calls they were, or a call run in the background): it runs for real and
 * the replay goes on. A call that differs from its record, or has no record after the last
 * recorded one, ends the replay. A call that was following an upstream task when the attempt
 * ended gives that task to follow; the calls after it run for real.
 */
export function createReplayer(calls: RecordedCall[]): Replayer {
  const byIndex = new Map(replayable(calls).map((c) => [c.index, c]));
  const last = Math.max(-1, ...byIndex.keys());
  let diverged = byIndex.size === 0;
  return {
    take(index, command, givenKey) {
      if (diverged) return undefined;
      const c = byIndex.get(index);
      if (!c && index < last) return undefined;
      if (!c || c.command !== command || c.inputKey !== givenKey) {
        diverged = true;
        return undefined;
      }
      if (c.task !== undefined) return { task: c.task };
      return { output: c.output, readOnly: c.readOnly, ...(c.done ? { done: c.done } : {}) };
    },
  };
}

/**
 * Which gated literal calls of a resumed step the replay will answer from the record, for the
 * preflight (README "Approvals"): a call with the same command and input as a recorded call of
 * the step (completed, or following its upstream task), matched in order (each record answers
 * one call), already ran or runs already — asking a
 * person again before the start would ask about a call that is not going to run. A call with no
 * such record is asked as usual; a call let through here that the replay does not answer after
 * all (the script went another way) is asked when reached, as any call is.
 */
export function replayedCalls(calls: readonly RecordedCall[]): (command: string, input: Record<string, unknown>) => boolean {
  // A call that re-attaches to its upstream task counts too: its work was approved when it
  // started, and following it starts nothing (the policy step asks nothing for it either; a block
  // written since still denies it when reached).
  const sorted = replayable(calls).sort((a, b) => a.index - b.index);
  let from = 0;
  return (command, input) => {
    const key = canonicalJson(input);
    for (let i = from; i < sorted.length; i++) {
      if (sorted[i].command === command && sorted[i].inputKey === key) {
        from = i + 1;
        return true;
      }
    }
    return false;
  };
}
