/**
 * A server's resources and prompts as four read-only tools of its source: `resources`,
 * `read-resource`, `prompts`, `get-prompt`. Being tools of the catalog, they appear in
 * `tools <server> --help` and `tools search`, count against the call limit, are judged by the
 * policy (read-only: they declare `readOnlyHint`), are recorded as events and work through the
 * gateway, with no path of their own.
 *
 * See MCP spec 2025-11-25 "Server Features" → Resources and Prompts; README → The `tools` command.
 */
import type { Client, RequestOptions, Tool } from "@modelcontextprotocol/client";
import { allPages, PagingError } from "./paging.js";
import type { McpCallResult } from "./result.js";

/** Sends the request a synthetic tool stands for and gives its result as a tool result. */
export type SyntheticSend = (client: Client, args: Record<string, unknown>, options: RequestOptions) => Promise<McpCallResult>;

/** A synthetic tool: its definition as `tools/list` would give it, and what it sends. */
export interface SyntheticTool {
  tool: Tool;
  send: SyntheticSend;
}

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;
const NO_INPUT = { type: "object" as const, properties: {}, additionalProperties: false };
const json = (value: Record<string, unknown>): McpCallResult => ({ content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value });

/**
 * One page of a list, as the server gave it. The SDK's `listResources()` & co. without a cursor
 * walk every page themselves (and serve cached aggregates); paging.ts is the one rule for
 * following cursors, so each page is asked for on its own.
 */
function onePage(client: Client, method: "resources/list" | "resources/templates/list" | "prompts/list", cursor: string | undefined, options: RequestOptions): Promise<Record<string, unknown>> {
  return client.request({ method, params: cursor === undefined ? {} : { cursor } }, options);
}

const resources: SyntheticTool = {
  tool: { name: "resources", description: "Lists this server's resources and resource templates (MCP resources/list, resources/templates/list) as JSON", inputSchema: NO_INPUT, annotations: READ_ONLY },
  async send(client, _args, options) {
    const list = await allPages("resources/list", "resources", (cursor) => onePage(client, "resources/list", cursor, options));
    const templates = await allPages("resources/templates/list", "resourceTemplates", (cursor) => onePage(client, "resources/templates/list", cursor, options)).catch((error: unknown) => {
      // A server without templates answers an error: it has none. Broken paging is said.
      if (error instanceof PagingError) throw error;
      return [];
    });
    return json({ resources: list, resourceTemplates: templates });
  },
};

const readResource: SyntheticTool = {
  tool: {
    name: "read-resource",
    description: "Reads one resource by its uri (MCP resources/read): text as is; binary contents saved under tool-images/",
    inputSchema: { type: "object", properties: { uri: { type: "string", description: "the resource's URI, from `resources`" } }, required: ["uri"], additionalProperties: false },
    annotations: READ_ONLY,
  },
  async send(client, args, options) {
    const result = await client.readResource({ uri: String(args.uri) }, options);
    const content = result.contents.map((c) => {
      if ("text" in c && typeof c.text === "string") return { type: "text", text: c.text };
      const mimeType = typeof c.mimeType === "string" ? c.mimeType : "application/octet-stream";
      return { type: mimeType.startsWith("audio/") ? "audio" : "image", data: "blob" in c ? String(c.blob) : "", mimeType };
    });
    return { content };
  },
};

const prompts: SyntheticTool = {
  tool: { name: "prompts", description: "Lists this server's prompts and their arguments (MCP prompts/list) as JSON", inputSchema: NO_INPUT, annotations: READ_ONLY },
  async send(client, _args, options) {
    return json({ prompts: await allPages("prompts/list", "prompts", (cursor) => onePage(client, "prompts/list", cursor, options)) });
  },
};

const getPrompt: SyntheticTool = {
  tool: {
    name: "get-prompt",
    description: "Gets one prompt's messages (MCP prompts/get) as JSON: name=… and the prompt's arguments as key=value",
    inputSchema: { type: "object", properties: { name: { type: "string", description: "the prompt's name, from `prompts`" } }, required: ["name"], additionalProperties: { type: "string" } },
    annotations: READ_ONLY,
  },
  async send(client, args, options) {
    const { name, ...rest } = args;
    // Prompt arguments are strings (spec: `arguments: { [key: string]: string }`).
    const given = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]));
    const result = await client.getPrompt({ name: String(name), arguments: given }, options);
    return json({ ...(result.description ? { description: result.description } : {}), messages: result.messages });
  },
};

/**
 * The synthetic tools a server offers by its capabilities (`resources`, `prompts`), minus any
 * whose name a real tool of the server already uses (the server's own tool wins).
 */
export function syntheticTools(client: Client, realNames: Set<string>): SyntheticTool[] {
  const caps = client.getServerCapabilities() ?? {};
  const out: SyntheticTool[] = [];
  if (caps.resources) out.push(resources, readResource);
  if (caps.prompts) out.push(prompts, getPrompt);
  const fold = (n: string) => n.replace(/_/g, "-");
  const taken = new Set([...realNames].map(fold));
  return out.filter((s) => !taken.has(fold(s.tool.name)));
}
