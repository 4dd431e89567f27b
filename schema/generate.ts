/**
 * Writes schema/toolshell.config.schema.json from the config's zod schema (src/config/schema.ts).
 * Run `npm run schema` after changing the schema; test/config/schema.unit.test.ts fails while the
 * committed file differs.
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { configJsonSchemaText } from "../src/config/index.js";

const file = fileURLToPath(new URL("./toolshell.config.schema.json", import.meta.url));
writeFileSync(file, configJsonSchemaText());
console.log(`wrote ${file}`);
