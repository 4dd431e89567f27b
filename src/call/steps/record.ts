/**
 * The `record` step: the surface keeps the outcome (a shell call's `done` list and read-only
 * count, and the durable record used to replay the call). Runs for every call.
 */
import type { CallState, Step } from "../call.js";

export const record: Step = {
  name: "record",
  when: (s) => s.scope.record !== undefined,
  run: (s: CallState) => s.scope.record!(s),
};
