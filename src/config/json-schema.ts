/**
 * `schema/toolshell.config.schema.json`, generated from the zod schema (schema.ts) so the file
 * editors read and the checks toolshell runs cannot drift apart. `npm run schema` writes it; a
 * test fails while the committed file differs.
 *
 * See docs/agents.md → Configuration. Built with zod's `z.toJSONSchema` (JSON Schema draft-07, the
 * input side: what a person writes, with defaults).
 */
import * as z from "zod";
import { configSchema } from "./schema.js";

/** The config file's JSON Schema (draft-07), as an object. */
export function configJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(configSchema, { target: "draft-07", io: "input", unrepresentable: "any" }) as Record<string, unknown>;
}

/** The text of `schema/toolshell.config.schema.json`: {@link configJsonSchema}, two-space indented, newline-terminated. */
export function configJsonSchemaText(): string {
  return `${JSON.stringify(configJsonSchema(), null, 2)}\n`;
}
