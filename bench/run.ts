/**
 * Runs every `bench/*.bench.ts` one after another, each in its own process, and prints what
 * each prints. `npm run bench` builds first (the CLI benchmark runs the built CLI).
 */
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
let failed = 0;
for (const file of readdirSync(here).filter((f) => f.endsWith(".bench.ts")).sort()) {
  if (only.length && !only.some((o) => file.includes(o))) continue;
  console.log(`\n== ${file}`);
  const r = spawnSync(process.execPath, ["--import", "tsx", path.join(here, file)], { stdio: "inherit" });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
