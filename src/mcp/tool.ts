/**
 * One MCP tool definition (from `tools/list`) → a {@link CatalogTool} of its server.
 *
 * See MCP spec 2025-06-18 "Tools" → Tool and Structured Content (clients SHOULD validate
 * structured results against the output schema).
 */
import type { Tool } from "@modelcontextprotocol/client";
import { compileJsonSchema } from "../tool/schema.js";
import { ToolCallError, type CatalogTool, type Hints, type InvokeContext, type JsonSchema, type ToolOutput, type ValidationResult } from "../tool/types.js";
import { toToolOutput, type McpCallResult } from "./result.js";

/**
 * Sends one `tools/call` for a tool of this server; `taskSupport` is the definition's
 * `execution.taskSupport` (tasks.ts `sendsAsTask`). Throws ToolCallError only.
 */
export type CallFn = (name: string, args: Record<string, unknown>, ctx: InvokeContext, taskSupport?: unknown) => Promise<McpCallResult>;

/**
 * Maps MCP annotations to hints: `readOnlyHint`→`readOnly`, `destructiveHint`→`destructive`,
 * `idempotentHint`→`idempotent`, `openWorldHint`→`openWorld`; only booleans the server gave are
 * copied (the spec's defaults for absent hints are the policy layer's business).
 * `declared` is true iff any of the four is present.
 */
export function hintsFromAnnotations(annotations: Tool["annotations"]): { hints: Hints; declared: boolean } {
  const hints: Hints = {};
  const a = annotations ?? {};
  if (typeof a.readOnlyHint === "boolean") hints.readOnly = a.readOnlyHint;
  if (typeof a.destructiveHint === "boolean") hints.destructive = a.destructiveHint;
  if (typeof a.idempotentHint === "boolean") hints.idempotent = a.idempotentHint;
  if (typeof a.openWorldHint === "boolean") hints.openWorld = a.openWorldHint;
  return { hints, declared: Object.keys(hints).length > 0 };
}

/**
 * Builds the catalog view of one tool.
 * - `validate` checks input with ajv (`compileJsonSchema`); a schema ajv cannot compile does
 *   not break listing: input is then accepted as is. What is not checked (that, a `format` ajv
 *   does not know, a `pattern` RE2 runs only in part, a definition read leniently: `listed`)
 *   ends the description as one note, so `tools <server> <tool> --help` says it.
 * - `invoke` calls the tool, checks `structuredContent` against `outputSchema` (a mismatch, or no
 *   structured content from a tool that declares an output schema, is `tool_error`) and converts
 *   the result with {@link toToolOutput}. It throws ToolCallError only.
 * @param onNote receives notes worth logging (schemas that could not be compiled).
 * @param listed notes of the listing about this tool's definition (listing.ts).
 */
export function toCatalogTool(tool: Tool, server: string, call: CallFn, onNote: (note: string) => void = () => {}, listed: string[] = []): CatalogTool {
  const inputSchema = tool.inputSchema as JsonSchema;
  const outputSchema = tool.outputSchema as JsonSchema | undefined;
  const { hints, declared } = hintsFromAnnotations(tool.annotations);
  const notes = [...listed];

  let checkInput: (value: unknown) => ValidationResult;
  try {
    const compiled = compileJsonSchema(inputSchema);
    checkInput = compiled.check;
    notes.push(...compiled.notes.map((n) => `input: ${n}`));
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    onNote(`tool "${tool.name}": input schema not compiled (${why}); inputs are passed unchecked`);
    notes.push("the input schema could not be compiled, so inputs are not checked");
    checkInput = (value) => ({ ok: true, value: value as Record<string, unknown> });
  }

  let checkOutput: ((value: unknown) => ValidationResult) | undefined;
  if (outputSchema) {
    try {
      const compiled = compileJsonSchema(outputSchema);
      checkOutput = compiled.check;
      notes.push(...compiled.notes.map((n) => `output: ${n}`));
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      onNote(`tool "${tool.name}": output schema not compiled (${why}); outputs are not checked`);
    }
  }
  for (const note of listed) onNote(`tool "${tool.name}": ${note}`);
  const base = tool.description ?? "";
  const description = notes.length ? `${base}${base ? " " : ""}(toolshell: ${notes.join("; ")})` : base;

  return {
    name: tool.name,
    source: server,
    grouped: true,
    description,
    inputSchema,
    ...(outputSchema ? { outputSchema } : {}),
    hints,
    hintsDeclared: declared,
    validate: checkInput,
    async invoke(input, ctx): Promise<ToolOutput> {
      const result = await call(tool.name, input, ctx, (tool as { execution?: { taskSupport?: unknown } }).execution?.taskSupport);
      if (outputSchema && result.isError !== true) {
        const structured = result.structuredContent;
        if (structured === undefined || structured === null) {
          throw new ToolCallError("tool_error", `MCP server "${server}", tool "${tool.name}": declares an output schema but returned no structured content`);
        }
        const verdict = checkOutput?.(structured);
        if (verdict && !verdict.ok) {
          throw new ToolCallError(
            "tool_error",
            `MCP server "${server}", tool "${tool.name}": its output does not match its output schema: ${verdict.errors.join("; ")}`,
          );
        }
      }
      return toToolOutput(result, server, tool.name);
    },
  };
}
