/**
 * Replays bash vectors through our shell (the product's Bash construction over an
 * InMemoryFs); `node --import tsx test/shell/conformance/run-bash.ts` prints the mismatches.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { compatCommands } from "../../../src/shell/commands/index.js";
import { createBashkitEngine } from "../../../src/shell/bashkit-engine.js";
import { HOME, makeShell, writeFiles } from "../harness.js";
import type { BashCase } from "./bash-cases.js";
import { compareOutcome, type Outcome } from "./compare.js";

const here = path.dirname(fileURLToPath(import.meta.url));

export interface BashVector extends BashCase {
  expected: Outcome;
}

/** Load the committed vectors. */
export function loadBashVectors(): BashVector[] {
  return JSON.parse(readFileSync(path.join(here, "bash-vectors.json"), "utf8")).vectors;
}

/** Known gaps: vector name → the workaround the agent is told (docs/shell.md lists the same). */
export function loadBashGaps(): Record<string, string> {
  return JSON.parse(readFileSync(path.join(here, "bash-known-gaps.json"), "utf8"));
}

/**
 * Run one script in a fresh shell; `engine: "bashkit"` runs it on the experimental bashkit engine
 * (docs/shell.md, "The other road: bashkit"), which takes no stdin.
 */
export async function runBashVector(v: BashCase, engine: "just-bash" | "bashkit" = "just-bash"): Promise<Outcome> {
  if (engine === "bashkit") {
    const kit = createBashkitEngine({ commands: compatCommands(), maxExecutionTimeMs: 30_000 });
    await kit.fs.mkdir(HOME, { recursive: true });
    for (const [p, c] of Object.entries(v.files ?? {})) await kit.fs.writeFile(`${HOME}/${p}`, c);
    return kit.exec(v.script, { cwd: HOME });
  }
  const bash = makeShell();
  await writeFiles(bash, v.files ?? {});
  const r = await bash.exec(v.script, { stdin: v.stdin ?? "", rawScript: true });
  return { stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode };
}

/** Run all vectors; returns the mismatches. */
export async function runAllBash(vectors: BashVector[], engine: "just-bash" | "bashkit" = "just-bash"): Promise<Array<{ name: string; why: string }>> {
  const bad: Array<{ name: string; why: string }> = [];
  for (const v of vectors) {
    let actual: Outcome;
    try {
      actual = await runBashVector(v, engine);
    } catch (e) {
      actual = { stdout: "", stderr: `THROWN: ${(e as Error).message}`, exitCode: -2 };
    }
    const cmp = compareOutcome(v.expected, actual);
    if (!cmp.ok) bad.push({ name: v.name, why: cmp.why });
  }
  return bad;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  // usage: run-bash.ts [--engine=bashkit]
  const vectors = loadBashVectors();
  const bad = await runAllBash(vectors, process.argv.includes("--engine=bashkit") ? "bashkit" : "just-bash");
  for (const b of bad) console.log(`${b.name}\n    ${b.why}`);
  console.log(`${vectors.length - bad.length}/${vectors.length} match`);
  process.exit(0);
}
