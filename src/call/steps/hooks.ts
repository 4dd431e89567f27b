/**
 * The `before-hooks` and `after-hooks` steps. Before-hooks run after the schema and before the
 * policy, so a person's answer covers the input the tool really gets: a hook's replacement is
 * checked again and becomes the given input. After-hooks see the outcome (success or failure)
 * and may replace the output.
 *
 * See docs/architecture.md → One call, one path: the pipeline (before- and after-hooks).
 */
import { refuseUnsafeInput } from "../../shell/index.js";
import { ToolCallError } from "../../tool/index.js";
import type { CallState, Step } from "../call.js";
import { parseInput } from "./schema.js";

export const beforeHooks: Step = {
  name: "before-hooks",
  // Absent hooks cost no await: this is the hot path of every nested call.
  when: (s) => s.error === undefined && s.replayed === undefined && s.env.hooks.beforeToolCall !== undefined,
  async run(s: CallState) {
    const before = await s.env.hooks.beforeToolCall!(s.call);
    if (!before || before.action === "allow") return;
    if (before.action === "deny") throw new ToolCallError("denied", `${s.call.command}: ${before.reason}`);
    if (before.action === "replace") {
      if (!before.input || typeof before.input !== "object" || Array.isArray(before.input)) {
        throw new ToolCallError("invalid_input", `${s.call.command}: a before-hook replaced the input with something that is not an object`);
      }
      refuseUnsafeInput(before.input);
      await parseInput(s.call, before.input);
      s.call.given = before.input;
    }
  },
};

export const afterHooks: Step = {
  name: "after-hooks",
  when: (s) => s.invoked && s.env.hooks.afterToolCall !== undefined,
  async run(s: CallState) {
    const outcome = s.error ? { ok: false as const, error: { code: s.error.code, message: s.error.message } } : { ok: true as const, output: s.output! };
    const after = await s.env.hooks.afterToolCall!(s.call, outcome);
    if (!s.error && after && typeof after === "object" && "output" in after && after.output) s.output = after.output;
  },
};
