/**
 * Prompt size of tool definitions in tokens, with a real tokenizer: `o200k_base` (the encoding
 * of GPT-4o and later OpenAI models) from `gpt-tokenizer`.
 *
 * Counting method (used for every figure, so the ratios compare like with like): each tool is
 * serialised as a function definition `{"type":"function","name","description","parameters"}`
 * (compact JSON, as providers receive them) and the token counts of the tools are summed.
 * Providers add a few framing tokens per tool of their own; those are the same on both sides of
 * a comparison and are left out.
 *
 * See docs/agents.md → What the model sees, Context economy.
 */
import { createRequire } from "node:module";
import type { ToolSpec } from "./bash-tool.js";

// The encoding's tables take about 100 ms to load: they are loaded the first time a count is
// asked for, not when a ToolShell starts (surface/ is on every start's path).
let o200k: ((text: string) => number) | undefined;

/** Tokens of a text in o200k_base. */
export function countTokens(text: string): number {
  o200k ??= (createRequire(import.meta.url)("gpt-tokenizer/encoding/o200k_base") as { countTokens: (text: string) => number }).countTokens;
  return o200k(text);
}

/** The JSON a provider receives for one tool (see the module docstring). */
export function toolDefinitionJson(spec: ToolSpec): string {
  return JSON.stringify({ type: "function", name: spec.name, description: spec.description, parameters: spec.inputSchema });
}

/** Tokens of one tool definition. */
export function toolTokens(spec: ToolSpec): number {
  return countTokens(toolDefinitionJson(spec));
}

/** Tokens of a list of tool definitions: the sum over the tools. */
export function toolListTokens(specs: readonly ToolSpec[]): number {
  let n = 0;
  for (const s of specs) n += toolTokens(s);
  return n;
}
