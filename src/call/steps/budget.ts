/**
 * The `budget` step: a nested call after its shell call stopped does not run (`stopped`), and
 * one past the shell call's budget stops it (`call_limit`).
 *
 * See README → The `tools` command (`call_limit`).
 */
import { ToolCallError } from "../../tool/index.js";
import type { CallState, Step } from "../call.js";

export const budget: Step = {
  name: "budget",
  run(s: CallState) {
    const { scope, call } = s;
    if (scope.stopState?.()) {
      s.error = new ToolCallError("stopped", "an earlier call stopped the script, so this one did not run");
      s.status = "stopped";
      return;
    }
    if (scope.callLimit === undefined || call.index === undefined || call.index < scope.callLimit) return;
    const err = new ToolCallError(
      "call_limit",
      `more than ${scope.callLimit} tool calls in one shell call; fetch many items with one list-style call (tools search list) and filter with jq, or continue in a new shell call`,
    );
    scope.setStop?.({ reason: "call_limit", error: err, call: { tool: call.command, input: call.given } });
    s.error = err;
    s.status = "stopped";
  },
};
