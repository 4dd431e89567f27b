/**
 * The terminal a CLI run may ask a person on: stdin and stderr, when both are one. Kept apart
 * from person.ts so a warm run decides this without loading the call pipeline (README
 * "Performance").
 *
 * See README → The CLI; docs/mcp.md → Elicitation relay.
 */

/** Terminal streams a question is asked on. */
export interface Terminal {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
}

/** The terminal of this process when stdin and stderr are one, else undefined. */
export function processTerminal(): Terminal | undefined {
  return process.stdin.isTTY && process.stderr.isTTY ? { input: process.stdin, output: process.stderr } : undefined;
}
