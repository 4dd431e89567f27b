/**
 * The `schema` step: fields the schema does not name are refused, then the tool's validator
 * checks (and may coerce) the input; `call.input` becomes what the tool will receive. A refusal
 * names every problem found first and the tool's signature.
 *
 * See README → The `tools` command (Input: unknown or mistyped fields are refused, never dropped).
 */
import { signature } from "../../catalog/index.js";
import { checkKnownFields } from "../../shell/index.js";
import { isPromiseLike, ToolCallError, type MaybePromise, type ToolCall, type ValidationResult } from "../../tool/index.js";
import type { CallState, Step } from "../call.js";

/**
 * Checks `given` against the call's tool and sets `call.input` to the parsed value.
 * Synchronous when the validator is. @throws ToolCallError `invalid_input`.
 */
export function parseInput(call: ToolCall, given: Record<string, unknown>): MaybePromise<void> {
  checkKnownFields(call.tool, given);
  let checking: MaybePromise<ValidationResult>;
  try {
    checking = call.tool.validate(given);
  } catch (err) {
    throw new ToolCallError("invalid_input", `${call.command}: the input could not be checked: ${(err as Error)?.message ?? String(err)}`);
  }
  const apply = (checked: ValidationResult): void => {
    if (!checked.ok) throw new ToolCallError("invalid_input", `${call.command}: ${checked.errors.join("; ")}. Signature: ${signature(call.tool.name, call.tool.inputSchema)}`);
    call.input = checked.value;
  };
  if (!isPromiseLike(checking)) return apply(checking);
  return Promise.resolve(checking).then(apply, (err) => {
    throw new ToolCallError("invalid_input", `${call.command}: the input could not be checked: ${(err as Error)?.message ?? String(err)}`);
  });
}

export const schema: Step = {
  name: "schema",
  run: (s: CallState) => parseInput(s.call, s.call.given),
};
