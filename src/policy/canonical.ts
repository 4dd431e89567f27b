/**
 * Canonical JSON: object keys sorted at every depth, so `{a,b}` and `{b,a}` are one call.
 *
 * See README → Approvals.
 */
import { createHash } from "node:crypto";
import { canonicalJson, type CatalogTool } from "../tool/index.js";

export { canonicalJson };

/** A short stable hash (sha256, hex, 16 characters) of any JSON-able value, canonicalised. */
export function hashOf(value: unknown): string {
  return createHash("sha256").update(typeof value === "string" ? value : canonicalJson(value)).digest("hex").slice(0, 16);
}

/** The key of one exact call: tool command + canonical input. */
export function callKey(tool: string, input: unknown): string {
  return `${tool}\u0000${canonicalJson(input)}`;
}

/**
 * What an approval answer is about: the command, bound to what provides the tool when the tool
 * says (an MCP server's identity), so an answer never carries over to a different server
 * configured later under the same name.
 */
export function approvalSubject(command: string, tool: { identity?: string }): string {
  return tool.identity ? `${command}\u0000${tool.identity}` : command;
}

/** What defines a tool as a person is shown it: everything {@link definitionHash} covers. */
type Defined = Pick<CatalogTool, "name" | "description" | "inputSchema" | "outputSchema" | "hints" | "hintsDeclared" | "revision">;

const definitions = new WeakMap<object, { parts: unknown[]; hash: string }>();

/**
 * The SHA-256 (hex, 16 characters) of a tool's definition: its name, description, input and
 * output schemas, hints (MCP annotations) and `revision` (a saved script's body, a local tool's code). Allow answers
 * are bound to it, so a tool redefined after the answer — an MCP server's `tools/list_changed`
 * making it destructive, a saved script saved again, a tool file changed — asks again
 * (docs/security.md "Answers are bound to what was shown"). Cached per tool object while its
 * parts stay the same objects. Never throws.
 */
export function definitionHash(tool: Defined): string {
  const parts = [tool.name, tool.description, tool.inputSchema, tool.outputSchema, tool.hints, tool.hintsDeclared, tool.revision];
  const hit = definitions.get(tool);
  if (hit && hit.parts.every((p, i) => p === parts[i])) return hit.hash;
  let hash: string;
  try {
    hash = hashOf({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema ?? null, outputSchema: tool.outputSchema ?? null, hints: tool.hints ?? {}, hintsDeclared: tool.hintsDeclared === true, revision: tool.revision ?? null });
  } catch {
    // A schema JSON cannot hold (a cycle): a fresh value every time, so no answer ever covers it.
    hash = `unhashable-${Math.random().toString(36).slice(2)}`;
  }
  definitions.set(tool, { parts, hash });
  return hash;
}

/** What an allow answer is about: the subject bound to the exact definition the person was shown. */
export function allowSubject(subject: string, definition: string | undefined): string {
  return definition ? `${subject}\u0000def:${definition}` : subject;
}
