/**
 * The `input` step (input safety): the input must be a JSON object that JSON carries faithfully —
 * no `__proto__` / `constructor` / `prototype` field names, no numbers that are not finite, at
 * most 64 levels deep — before anything looks at it.
 *
 * See README → The `tools` command (Input, Errors).
 */
import { refuseUnsafeInput } from "../../shell/index.js";
import { ToolCallError } from "../../tool/index.js";
import type { CallState, Step } from "../call.js";

export const inputSafety: Step = {
  name: "input",
  run(s: CallState) {
    const given: unknown = s.call.given;
    if (!given || typeof given !== "object" || Array.isArray(given)) {
      throw new ToolCallError("invalid_input", `${s.call.command}: the input must be a JSON object`);
    }
    refuseUnsafeInput(given);
  },
};
