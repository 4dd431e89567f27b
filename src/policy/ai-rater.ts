/**
 * A decision service backed by an AI SDK language model: asks the model whether a tool that
 * declares nothing about its risk changes or deletes anything outside the session, and reads a
 * probability from its structured answer.
 *
 * See README → Approvals.
 */
import type { DecisionService, RatedTool } from "./rating.js";

/** The question put to the model (kept short: one call per tool, cached). */
export const RATING_QUESTION =
  "You rate tools for an approval system. Answer with the probability (0 to 1) that calling this tool changes or deletes anything outside the caller's session (files, records, messages, money, remote state). Reading, searching and computing are 0.";

/** Options of `aiSdkDecisionService`. */
export interface AiDecisionOptions {
  /** Extra instructions appended to the question. */
  instructions?: string;
  /** Characters of the input schema shown to the model (default 4000). */
  maxSchemaChars?: number;
}

/**
 * Wraps an AI SDK `LanguageModel` (e.g. `openai("gpt-5-mini")`, or `MockLanguageModelV4` in tests)
 * as a DecisionService. The model answers through `Output.object` with `{probability, reason}`.
 * A failed or malformed answer rejects; the Rater then treats the tool cautiously (0.5) and asks
 * again next time.
 * @throws nothing at creation; `rateChanges` rejects with the SDK's error.
 */
export function aiSdkDecisionService(model: unknown, options: AiDecisionOptions = {}): DecisionService {
  return {
    async rateChanges(tool: RatedTool, signal?: AbortSignal): Promise<number> {
      const { generateText, Output } = await import("ai");
      const { z } = await import("zod");
      const schema = JSON.stringify(tool.inputSchema);
      const max = options.maxSchemaChars ?? 4000;
      const prompt = [
        `Tool: ${tool.name} (from ${tool.source})`,
        `Description: ${tool.description || "(none)"}`,
        `Input schema: ${schema.length > max ? schema.slice(0, max) + "…" : schema}`,
      ].join("\n");
      const result = await generateText({
        model: model as never,
        system: RATING_QUESTION + (options.instructions ? `\n${options.instructions}` : ""),
        prompt,
        output: Output.object({ schema: z.object({ probability: z.number().min(0).max(1), reason: z.string().optional() }) }),
        abortSignal: signal,
      });
      const answer = result.output as { probability: number };
      return answer.probability;
    },
  };
}
