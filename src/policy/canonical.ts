/**
 * Canonical JSON: object keys sorted at every depth, so `{a,b}` and `{b,a}` are one call.
 *
 * Rule source: README "Approvals" → Answers ("`allow` covers one exact call (tool + input, object keys in
 * any order)").
 */
import { createHash } from "node:crypto";
import { canonicalJson } from "../tool/index.js";

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
