/**
 * The `replay` step: inside a durable step that runs again after an interruption, a nested call
 * that completed in the earlier attempt — same position, command and given input — returns its
 * recorded output instead of running; one that was following an upstream task when the attempt
 * ended re-attaches to that task (docs/sessions.md "Durable steps").
 */
import { canonicalJson } from "../../tool/index.js";
import type { CallState, Step } from "../call.js";

export const replay: Step = {
  name: "replay",
  when: (s) => s.error === undefined && s.scope.replay !== undefined && s.call.index !== undefined,
  run(s: CallState) {
    const r = s.scope.replay!(s.call.index!, s.call.command, canonicalJson(s.call.given));
    if (!r) return;
    if ("task" in r) {
      s.resumeTask = r.task;
      return;
    }
    s.replayed = r;
    s.output = r.output;
  },
};
