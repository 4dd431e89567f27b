/** The tool folder's public face: defining tools, schemas, loading, the shared types. */
export * from "./types.js";
export { defineTool, isToolDefinition, assertToolName, always, once, never } from "./define.js";
export type { ToolDefinition, ToolDefinitionOptions, ApprovalPredicate, ModelOutput, InferInput } from "./define.js";
export { normalizeSchema, jsonSchemaValidator, isStandardSchema } from "./schema.js";
export type { SchemaInput, NormalizedSchema, StandardSchemaLike } from "./schema.js";
export { LocalToolSource, toCatalogTool, renderLocalResult } from "./local-source.js";
export { loadToolsDir, readSkill } from "./load.js";
export { displayName, editDistance, foldName, nameWords, spellsExactly } from "./text.js";
export { canonicalJson } from "./canonical.js";
export { checkAnswer } from "./person.js";
export type { ProgressUpdate, Question, QuestionAnswer } from "./person.js";
