/**
 * The person behind a call, as a tool reaches them: progress it reports, and questions it asks
 * (an upstream MCP server's `elicitation/create`, relayed). The shapes only; who answers is the
 * surface's business (the gateway's client, the HTTP API, the terminal).
 *
 * See docs/mcp.md → Progress, Elicitation relay; MCP spec 2025-11-25 "Client Features" →
 * Elicitation (form mode: `message` and a flat `requestedSchema`; the answer is `accept` with
 * `content`, `decline` or `cancel`).
 */
import { jsonSchemaValidator } from "./schema.js";
import type { JsonSchema } from "./types.js";

/** One progress report of a running call (MCP `notifications/progress` params without the token). */
export interface ProgressUpdate {
  /** Grows with each report; what it counts is the tool's (steps, bytes, percent). */
  progress: number;
  total?: number;
  message?: string;
}

/** A question a tool (an upstream MCP server) asks the person, in MCP's form mode. */
export interface Question {
  /** Who asks: the MCP server's name (`local` for a local tool). Untrusted text comes from there. */
  server: string;
  /** The command of the call that asked, e.g. `tools github create-issue`. */
  command: string;
  /** The server's message, as it sent it (show it escaped: see display/show-input.ts). */
  message: string;
  /** The flat object schema the answer's `content` must match (MCP "Requested Schema"). */
  requestedSchema: JsonSchema;
  /**
   * URL mode (MCP "Elicitation" → URL mode): the address the server asks the person to open
   * themselves, already checked as safe to show (https, or http on this machine). Shown to the
   * person only, never to the model; `accept` means they agreed to go there (no `content`).
   */
  url?: string;
}

/** The person's answer (MCP ElicitResult). `content` only with `accept`. */
export interface QuestionAnswer {
  action: "accept" | "decline" | "cancel";
  content?: Record<string, unknown>;
}

/**
 * Checks an answer against the question's schema with the project's ajv setup (tool/schema.ts).
 * `decline` and `cancel` carry no content and always pass.
 * @returns `{ ok: true, answer }` (content as ajv left it), or `{ ok: false, message }` naming
 *   what does not match.
 */
export function checkAnswer(question: Pick<Question, "requestedSchema">, answer: unknown): { ok: true; answer: QuestionAnswer } | { ok: false; message: string } {
  if (!answer || typeof answer !== "object" || Array.isArray(answer)) return { ok: false, message: "the answer must be an object {action, content?}" };
  const { action, content } = answer as Record<string, unknown>;
  if (action === "decline" || action === "cancel") return { ok: true, answer: { action } };
  if (action !== "accept") return { ok: false, message: 'the answer\'s "action" must be accept, decline or cancel' };
  const given = content ?? {};
  if (typeof given !== "object" || given === null || Array.isArray(given)) return { ok: false, message: 'the answer\'s "content" must be an object' };
  let check;
  try {
    check = jsonSchemaValidator(question.requestedSchema)(given);
  } catch (err) {
    return { ok: false, message: `the question's schema cannot be checked (${err instanceof Error ? err.message : String(err)})` };
  }
  if (!check.ok) return { ok: false, message: `the answer does not match the question's schema: ${check.errors.join("; ")}` };
  return { ok: true, answer: { action: "accept", content: check.value } };
}
