/**
 * The call pipeline: every tool call — nested in a script, direct from the AI SDK adapter or the
 * MCP gateway, inside a saved script, from a trigger or the HTTP API — goes through these steps,
 * in this order, each written once:
 *
 *   budget → input → schema → replay → before-hooks → policy → invoke → after-hooks → redact → record → event
 *
 * A step runs while the call is still going (no error, no replayed result) unless its `when`
 * says otherwise: after-hooks see failures of the tool, redaction covers errors, and record and
 * event run for every call. A step that throws ends the call with that error (converted by
 * `toToolCallError`); the pipeline itself never throws. A step added later (a rate limit, an
 * audit sink, a cache) is added here once. See docs/architecture.md.
 */
import { isPromiseLike, toToolCallError, type MaybePromise, type ToolCall } from "../tool/index.js";
import { going, type CallEnv, type CallScope, type CallState, type Step } from "./call.js";
import { budget } from "./steps/budget.js";
import { event } from "./steps/event.js";
import { afterHooks, beforeHooks } from "./steps/hooks.js";
import { inputSafety } from "./steps/input.js";
import { invoke } from "./steps/invoke.js";
import { approvalNeeded, policy } from "./steps/policy.js";
import { record } from "./steps/record.js";
import { redact } from "./steps/redact.js";
import { replay } from "./steps/replay.js";
import { schema } from "./steps/schema.js";

/** The steps, in the documented order. */
export const STEPS: readonly Step[] = [budget, inputSafety, schema, replay, beforeHooks, policy, invoke, afterHooks, redact, record, event];

function fail(s: CallState, err: unknown): void {
  // The first error stands: a throwing after-hook does not hide the tool's own failure.
  s.error ??= toToolCallError(err);
}

/**
 * Runs `steps` over `s` from `from`. Synchronous steps run in one go; the pipeline waits only
 * where a step returns a promise (the hot path of a nested call awaits nothing it need not).
 * Never throws, never rejects.
 */
function runFrom(steps: readonly Step[], s: CallState, from: number): MaybePromise<CallState> {
  for (let i = from; i < steps.length; i++) {
    const step = steps[i];
    if (!(step.when ? step.when(s) : going(s))) continue;
    let r: MaybePromise<void>;
    try {
      r = step.run(s);
    } catch (err) {
      fail(s, err);
      continue;
    }
    if (isPromiseLike(r)) {
      return Promise.resolve(r).then(
        () => runFrom(steps, s, i + 1),
        (err: unknown) => {
          fail(s, err);
          return runFrom(steps, s, i + 1);
        },
      );
    }
  }
  return s;
}

/** The pipeline over one host's policy, hooks and redactor. */
export class CallPipeline {
  constructor(
    readonly env: CallEnv,
    readonly steps: readonly Step[] = STEPS,
  ) {}

  private state(call: ToolCall, scope: CallScope): CallState {
    return { call, scope, env: this.env, started: performance.now(), invoked: false };
  }

  /**
   * Makes one call through every step. Never throws: the state (returned, or promised when a
   * step waits) holds the output or the error (a ToolCallError with README "The `tools` command" → Errors codes), the
   * judgement and any request raised.
   */
  run(call: ToolCall, scope: CallScope): MaybePromise<CallState> {
    return runFrom(this.steps, this.state(call, scope), 0);
  }

  /**
   * The approval a direct call needs before it is made (the input and schema steps, then the
   * policy without using up answers): undefined when it may run or will be refused; else the
   * pending request. Never throws.
   */
  async approvalNeeded(call: ToolCall, scope: CallScope): Promise<{ requestId: string; why?: string } | undefined> {
    const s = this.state(call, scope);
    await runFrom([inputSafety, schema], s, 0);
    if (s.error) return undefined;
    try {
      return await approvalNeeded(s);
    } catch {
      return undefined;
    }
  }
}
