import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { Server } from "@modelcontextprotocol/server";
import type { Tool } from "@modelcontextprotocol/server";

const OBJECT = { type: "object" as const, properties: {} };
const big: Record<string, unknown> = {};
for (let i = 0; i < 150; i++) big[`field_${i}`] = { type: "string", description: `The value of field number ${i}, as the upstream system spells it.` };

const tools: Tool[] = [
  { name: "tool_search", description: "Search the available tools by keyword and load the matching ones.", inputSchema: { type: "object", properties: { query: { type: "string" } } } },
  { name: "nodesc", inputSchema: OBJECT },
  { name: "get-item", description: "Get one item by its id.", inputSchema: OBJECT, annotations: { readOnlyHint: true } },
  { name: "get_item", description: "Get one item by its id (again).", inputSchema: OBJECT, annotations: { readOnlyHint: true } },
  { name: "big", description: "A tool with a very large input schema.", inputSchema: { type: "object", properties: big }, annotations: { readOnlyHint: true } },
];

const server = new Server({ name: "lint", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler('tools/list', () => ({ tools }));
server.setRequestHandler('tools/call', (req) => ({ content: [{ type: "text", text: `called ${req.params.name}` }] }));
process.stdin.on("end", () => process.exit(0));
await server.connect(new StdioServerTransport());
