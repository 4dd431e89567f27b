/** The catalog folder's public face: names, resolution, search, help and signatures. */
export { Catalog, RESERVED_WORDS } from "./catalog.js";
export type { Resolution, SearchHit } from "./catalog.js";
export { foldName, displayName, closest, editDistance, findByName, namesakes, entryKeys, entryNames, toolKey, nameWords, spellsExactly } from "./names.js";
export { signature, typeOf } from "./signature.js";
export { renderIndex, renderSource, renderTool, renderSearch, shortDescription, sourceSummary } from "./help.js";
export { effectiveSchema, objectFields } from "./schema.js";
