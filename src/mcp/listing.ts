/**
 * `tools/list` read tool by tool: one tool whose definition does not follow the MCP `Tool` shape
 * leaves that tool (kept with the checks that can be made, and a note for its help) or, without
 * a name, only that tool out; the server's other tools are unaffected. The SDK's own listing
 * refuses the whole page for one such tool.
 *
 * See MCP spec 2025-11-25 "Tools" → Tool and "Utilities" → Pagination; docs/mcp.md → Client.
 */
import { ToolSchema } from "@modelcontextprotocol/core";
import type { Client, Tool } from "@modelcontextprotocol/client";
import { z } from "zod";
import { refuseDeepInput } from "../shell/commands/tools/input.js";
import { withChildSignal } from "./signals.js";
import { allPages } from "./paging.js";
import { foldFreshness, type ListFreshness } from "./freshness.js";

/** A listed tool and what about its definition was not as MCP writes it (empty when all was). */
export interface ListedTool {
  tool: Tool;
  notes: string[];
}

/** A `tools/list` page as any server gives it: only `tools` must be a list. */
const LENIENT_PAGE = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.unknown().optional() });

/**
 * Lists every tool (spec "Tools" → Listing Tools, following `nextCursor`, see paging.ts). A server
 * without the `tools` capability has no tools. Each page may take `timeoutMs`; `deadline`
 * (optional) bounds them all. `onNote` hears of tools left out; `onFreshness` how long the list
 * may be used (2026 era; undefined on the 2025 era, whose lists hold until `list_changed`).
 * @throws the SDK's error, or Error when the server's paging loops.
 */
export async function listAllTools(
  client: Client,
  deadline: AbortSignal | undefined,
  timeoutMs: number,
  onNote: (note: string) => void = () => {},
  onFreshness: (freshness: ListFreshness | undefined) => void = () => {},
): Promise<ListedTool[]> {
  if (!client.getServerCapabilities()?.tools) return [];
  let freshness: ListFreshness | undefined;
  const modern = client.getProtocolEra() === "modern";
  const raw = await allPages<unknown>("tools/list", "tools", async (cursor) => {
    const page = await withChildSignal(deadline, (signal) => client.request({ method: "tools/list", params: cursor === undefined ? {} : { cursor } }, LENIENT_PAGE, { signal, timeout: timeoutMs }));
    if (modern) freshness = foldFreshness(freshness, page);
    return page;
  });
  onFreshness(freshness);
  const out: ListedTool[] = [];
  for (const [index, item] of raw.entries()) {
    const listed = readTool(item);
    if (typeof listed === "string") onNote(`tool #${index + 1} of tools/list left out: ${listed}`);
    else out.push(listed);
  }
  return out;
}

/**
 * One tool of a listing: as given when it follows the `Tool` shape; else with each field that
 * does not dropped (a non-object `inputSchema` becomes "any object"), an `inputSchema` without
 * `type: "object"` kept as the check that can be made, and a note per field. A string says why
 * the item cannot be a tool at all (no name).
 */
export function readTool(item: unknown): ListedTool | string {
  if (typeof item !== "object" || item === null || Array.isArray(item)) return "it is not an object";
  const given = item as Record<string, unknown>;
  if (typeof given.name !== "string" || given.name === "") return "it has no name";
  // A name is one line of the listing the model reads: a line break in it could forge others.
  if (/[\p{Cc}\u2028\u2029]/u.test(given.name)) return `its name ${JSON.stringify(given.name)} holds a control character`;
  // Reading a definition nested without end would run out of stack, and the whole listing with it.
  try {
    refuseDeepInput(item, "its definition");
  } catch (err) {
    return (err as Error).message;
  }
  const parsed = ToolSchema.safeParse(item);
  if (parsed.success) return { tool: parsed.data, notes: [] };
  const tool: Record<string, unknown> = { ...given };
  const notes: string[] = [];
  const fields = new Set(parsed.error.issues.map((i) => String(i.path[0] ?? "")));
  for (const field of fields) {
    if (field === "inputSchema" && isPlainObject(given.inputSchema)) {
      notes.push(given.inputSchema.type === undefined ? 'its input schema has no type "object"; arguments are checked against it as given' : 'its input schema is not of type "object"; arguments are checked against it as given');
      continue;
    }
    if (field === "inputSchema") {
      tool.inputSchema = { type: "object" };
      notes.push("its input schema is not a JSON Schema object, so arguments are not checked");
      continue;
    }
    if (field === "outputSchema" && isPlainObject(given.outputSchema)) continue;
    delete tool[field];
    notes.push(field ? `its "${field}" is not as MCP defines it and is ignored` : "its definition is not as MCP defines it");
  }
  // What is left must read as a Tool (the input schema aside, kept as the server gave it).
  const rest = ToolSchema.omit({ inputSchema: true, outputSchema: true }).safeParse(tool);
  if (!rest.success) return `its definition is not as MCP defines it (${rest.error.issues.map((i) => i.path.join(".") || i.message).join(", ")})`;
  return { tool: { ...rest.data, inputSchema: tool.inputSchema, ...(tool.outputSchema !== undefined ? { outputSchema: tool.outputSchema } : {}) } as Tool, notes };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
