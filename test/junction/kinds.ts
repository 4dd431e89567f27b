/**
 * The tool kinds of the junction matrix: how a script calls a tool of that kind that needs a
 * person's approval, and the line the world's log gets when it runs. Add a row for a new kind.
 */
export interface ToolKind {
  name: string;
  /** The script line calling the tool on item `id`. */
  call(id: string): string;
  /** What the world's log holds once the call on `id` ran. */
  ranLine(id: string): string;
  /** What the tool answers when it ran (part of stdout). */
  output(id: string): string;
}

export const TOOL_KINDS: ToolKind[] = [
  { name: "local tool", call: (id) => `tools remove-local id=${id}`, ranLine: (id) => `local remove ${id}`, output: (id) => `removed ${id}` },
  { name: "MCP over stdio", call: (id) => `tools jstdio remove id=${id}`, ranLine: (id) => `stdio remove ${id}`, output: (id) => `removed ${id}` },
  { name: "MCP over HTTP", call: (id) => `tools jhttp remove id=${id}`, ranLine: (id) => `http remove ${id}`, output: (id) => `removed ${id}` },
  // The saved script's call is built at run time: the approval is asked when it is reached.
  { name: "saved script", call: (id) => `tools scripts purge id=${id}`, ranLine: (id) => `stdio remove ${id}`, output: (id) => `removed ${id}` },
];
