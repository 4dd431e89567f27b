/**
 * The tool kinds of the junction matrix: how a script calls a tool of that kind that needs a
 * person's approval, one that asks the person a question, and one that reports progress; and
 * the line the world's log gets when the approved call runs. Add a row for a new kind.
 */
export interface ToolKind {
  name: string;
  /** The script line calling the tool on item `id` (needs approval). */
  call(id: string): string;
  /** What the world's log holds once the call on `id` ran. */
  ranLine(id: string): string;
  /** What the tool answers when it ran (part of stdout). */
  output(id: string): string;
  /**
   * True when the call needing approval is written in the script itself (judged before the
   * script starts); false when it is built at run time (a saved script's call stops the script
   * where it is reached).
   */
  literal: boolean;
  /** A call that asks the person "Which name?" (form: `{name}`) and answers `name: <name>`. */
  ask: string;
  /** A call that reports `step 1`…`step n` of n and answers `<n> steps`. */
  steps(n: number): string;
  /** The kind's server asks for OAuth sign-in (the "sign-in" row runs on it). */
  oauth?: boolean;
}

export const TOOL_KINDS: ToolKind[] = [
  { name: "local tool", call: (id) => `tools remove-local id=${id}`, ranLine: (id) => `local remove ${id}`, output: (id) => `removed ${id}`, literal: true, ask: "tools ask-local", steps: (n) => `tools steps-local n=${n}` },
  { name: "MCP over stdio", call: (id) => `tools jstdio remove id=${id}`, ranLine: (id) => `stdio remove ${id}`, output: (id) => `removed ${id}`, literal: true, ask: "tools jstdio ask", steps: (n) => `tools jstdio steps n=${n}` },
  { name: "MCP over HTTP", call: (id) => `tools jhttp remove id=${id}`, ranLine: (id) => `http remove ${id}`, output: (id) => `removed ${id}`, literal: true, ask: "tools jhttp ask", steps: (n) => `tools jhttp steps n=${n}` },
  // Signed in before the rows (world.ts signInWorld); the "sign-in" row starts from not signed in.
  { name: "MCP over HTTP with OAuth", call: (id) => `tools joauth remove id=${id}`, ranLine: (id) => `oauth remove ${id}`, output: (id) => `removed ${id}`, literal: true, ask: "tools joauth ask", steps: (n) => `tools joauth steps n=${n}`, oauth: true },
  // The saved scripts' calls are built at run time: the approval is asked when it is reached.
  { name: "saved script", call: (id) => `tools scripts purge id=${id}`, ranLine: (id) => `stdio remove ${id}`, output: (id) => `removed ${id}`, literal: false, ask: "tools scripts greet", steps: (n) => `tools scripts count n=${n}` },
];
