/**
 * The local source: the agent's own typed tools as top-level `tools` commands.
 *
 * See README → The `tools` command, Use it from code.
 */
import { createHash } from "node:crypto";
import { assertToolName, notLoaded, type ToolDefinition } from "./define.js";
import { normalizeSchema, type NormalizedSchema } from "./schema.js";
import { ToolCallError, type CatalogTool, type InvokeContext, type ToolOutput, type ToolSource } from "./types.js";
import { foldName } from "./text.js";

/** Turns one tool definition into a catalog tool. Resolves schemas once. @throws Error on a bad schema. */
export async function toCatalogTool(name: string, def: ToolDefinition, source = "local"): Promise<CatalogTool> {
  assertToolName(name);
  let input: NormalizedSchema;
  try {
    input = await normalizeSchema(def.inputSchema);
  } catch (err) {
    throw new Error(`tool ${name}: inputSchema: ${(err as Error).message}`, { cause: err });
  }
  const output = def.outputSchema ? await normalizeSchema(def.outputSchema) : undefined;
  const hints = def.hints ?? {};
  return {
    name,
    source,
    grouped: false,
    description: def.description,
    inputSchema: input.jsonSchema,
    outputSchema: output?.jsonSchema,
    hints,
    hintsDeclared: Object.values(hints).some((v) => typeof v === "boolean"),
    // Its code is part of what a person's answer was given for: an edit of `execute` alone (a
    // tool file changed on a warm host) asks again (docs/security.md "Answers are bound to what
    // was shown").
    revision: createHash("sha256").update(String(def.execute)).digest("hex").slice(0, 16),
    approval: def.approval,
    staysDirect: def.staysDirect,
    ...(notLoaded(def) ? { notLoaded: notLoaded(def) } : {}),
    validate: (value) => input.validate(value),
    toModelOutput: def.toModelOutput,
    async invoke(value, ctx: InvokeContext): Promise<ToolOutput> {
      let result: unknown;
      try {
        result = await def.execute(value, ctx);
      } catch (err) {
        if (err instanceof ToolCallError) throw err;
        const message = err instanceof Error ? err.message : String(err);
        throw new ToolCallError("tool_error", `${name}: ${message}`);
      }
      if (output && def.outputSchema && typeof def.outputSchema === "object" && "~standard" in def.outputSchema) {
        const checked = await output.validate(result);
        if (!checked.ok) throw new ToolCallError("tool_error", `${name}: output does not match outputSchema: ${checked.errors.join("; ")}`);
      }
      return renderLocalResult(result);
    },
  };
}

/**
 * A local tool's return value → ToolOutput: a string is a text result; `undefined` prints
 * nothing; anything else is JSON.
 */
export function renderLocalResult(result: unknown): ToolOutput {
  if (typeof result === "string") return { kind: "text", text: result, raw: result };
  if (result === undefined) return { kind: "text", text: "", raw: result };
  return { kind: "json", value: result, raw: result };
}

/** A source over a fixed set of local tools. */
export class LocalToolSource implements ToolSource {
  readonly name: string;
  readonly kind = "local" as const;
  private readonly list: CatalogTool[];
  constructor(tools: CatalogTool[], name = "local") {
    this.name = name;
    this.list = tools;
  }
  /** Builds the source from named definitions. @throws Error on a duplicate name or bad schema. */
  static async from(defs: Record<string, ToolDefinition>, name = "local"): Promise<LocalToolSource> {
    const seen = new Map<string, string>();
    const tools: CatalogTool[] = [];
    for (const [key, def] of Object.entries(defs)) {
      const toolName = def.name ?? key;
      const folded = foldName(toolName);
      const other = seen.get(folded);
      if (other) throw new Error(`duplicate tool name: ${toolName} and ${other} are the same command once "-" and "_" fold`);
      seen.set(folded, toolName);
      tools.push(await toCatalogTool(toolName, def, name));
    }
    return new LocalToolSource(tools, name);
  }
  state() {
    return "ready" as const;
  }
  tools(): CatalogTool[] {
    return this.list;
  }
  async load(): Promise<void> {}
}
