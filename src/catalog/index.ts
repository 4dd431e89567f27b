/** The catalog folder's public face: names, resolution, search, help, signatures and the split. */
export { Catalog, RESERVED_WORDS } from "./catalog.js";
export type { Resolution, SearchHit } from "./catalog.js";
export { foldName, displayName, closest, editDistance, findByName, namesakes, entryKeys, entryNames, toolKey, nameWords, spellsExactly } from "./names.js";
export { signature, typeOf } from "./signature.js";
export { renderIndex, renderSource, renderTool, renderSearch, shortDescription, sourceSummary } from "./help.js";
export { effectiveSchema, objectFields } from "./schema.js";
export { placeTool, explainPlacement, splitTools, reachableFromShell, callableDirectly, namesTool, FilteredSource, TURN_CONTROL_NAMES, IMAGE_RESULT_NAMES, FILE_EDIT_NAMES } from "./split.js";
export type { Placement, PlacementReason, SplitRules, ToolSplit } from "./split.js";
