/**
 * An MCP `tools/call` result → a {@link ToolOutput}, or the `tool_error` it stands for.
 *
 * See README → The `tools` command (Output); MCP spec 2025-06-18 "Tools" → Tool Result.
 */
import { ToolCallError, type MediaBlock, type ToolOutput } from "../tool/types.js";

/** Where a call result carries its `structuredContent` as raw JSON text (see raw.ts), when kept. */
export const STRUCTURED_JSON: unique symbol = Symbol("toolshell.structuredJson");

/** The parts of a CallToolResult this module reads (the SDK's type, loosened for old servers). */
export interface McpCallResult {
  content?: ReadonlyArray<Record<string, unknown> & { type: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  [key: string]: unknown;
  /** `structuredContent` as the server wrote it, when it holds integers beyond 2^53. */
  [STRUCTURED_JSON]?: string;
}

/**
 * Converts a call result.
 *
 * - `isError: true` → throws `ToolCallError("tool_error", <the text blocks joined by "\n">)`
 *   (the content as JSON when it has no text; a generic message naming tool and server when empty).
 * - Image and audio blocks always go to `media` (base64 as MCP carries it).
 * - `structuredContent` present → `{ kind: "json", value: structuredContent }`.
 * - Else, when a `resource_link`, embedded `resource` or any unknown block is present →
 *   `{ kind: "json", value: [...blocks] }`: every non-media block in order, text blocks included
 *   as `{type:"text",text}`, so a script can `jq '.[] | select(.type=="resource_link")'` and
 *   loses neither the links nor the prose around them.
 * - Else → `{ kind: "text", text }`, the text blocks joined by "\n" (`""` when there are none,
 *   e.g. an image-only result whose files the `tools` command names on stderr).
 * `raw` is always the whole result. `json` is `structuredContent`'s raw text when the result
 * carries it under {@link STRUCTURED_JSON} (integers beyond 2^53, docs/mcp.md).
 * @throws ToolCallError `tool_error` for `isError` results.
 */
export function toToolOutput(result: McpCallResult, server: string, tool: string): ToolOutput {
  const content = Array.isArray(result.content) ? result.content : [];
  if (result.isError === true) throw new ToolCallError("tool_error", errorText(content, server, tool));
  const media: MediaBlock[] = [];
  const rest: Array<Record<string, unknown>> = [];
  for (const block of content) {
    if ((block.type === "image" || block.type === "audio") && typeof block.data === "string") {
      media.push({ kind: block.type, mimeType: typeof block.mimeType === "string" ? block.mimeType : "application/octet-stream", data: block.data });
    } else {
      rest.push(block);
    }
  }
  const withMedia = media.length > 0 ? { media } : {};
  if (result.structuredContent !== undefined && result.structuredContent !== null) {
    const json = result[STRUCTURED_JSON];
    return { kind: "json", value: result.structuredContent, ...withMedia, raw: result, ...(json !== undefined ? { json } : {}) };
  }
  if (rest.some((block) => block.type !== "text")) {
    return { kind: "json", value: rest, ...withMedia, raw: result };
  }
  const text = rest.map((block) => (typeof block.text === "string" ? block.text : "")).join("\n");
  return { kind: "text", text, ...withMedia, raw: result };
}

function errorText(content: ReadonlyArray<Record<string, unknown>>, server: string, tool: string): string {
  const texts = content.filter((b) => b.type === "text" && typeof b.text === "string").map((b) => b.text as string);
  if (texts.length > 0) return texts.join("\n");
  if (content.length > 0) return JSON.stringify(content);
  return `tool "${tool}" of server "${server}" reported an error without a message`;
}
