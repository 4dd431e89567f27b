/**
 * Runs every `bench/*.bench.ts` one after another, each in its own process, and prints what
 * each prints, under one line naming the commit, the date and the machine. `npm run bench` builds
 * first (the CLI benchmarks run the built CLI); `node --import tsx bench/run.ts peers cli` runs
 * only the files whose names contain one of the words.
 */
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const commit = spawnSync("git", ["rev-parse", "--short", "HEAD"], { cwd: here, encoding: "utf8" }).stdout?.trim() || "?";
console.log(
  `# toolshell benchmarks at ${commit}, ${new Date().toISOString()}: ${os.cpus().length} × ${os.cpus()[0]?.model ?? "?"}, ` +
    `${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}, load average ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}`,
);
let failed = 0;
for (const file of readdirSync(here).filter((f) => f.endsWith(".bench.ts")).sort()) {
  if (only.length && !only.some((o) => file.includes(o))) continue;
  console.log(`\n== ${file}`);
  const r = spawnSync(process.execPath, ["--import", "tsx", path.join(here, file)], { stdio: "inherit" });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
