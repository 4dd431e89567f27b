/**
 * Replays jq vectors through our shell and reports the match rate (used by the test and
 * by `node --import tsx test/shell/conformance/run-jq.ts` for a readable diff list).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Bash, InMemoryFs } from "just-bash";
import { compatCommands } from "../../../src/shell/commands/index.js";
import { createBashkitEngine } from "../../../src/shell/bashkit-engine.js";
import { HOME, makeShell, shq, writeFiles } from "../harness.js";
import { compareOutcome, type Outcome } from "./compare.js";
import type { JqCase } from "./jq-cases.js";

const here = path.dirname(fileURLToPath(import.meta.url));

export interface JqVector extends JqCase {
  expected: Outcome;
}

/** Load the committed vectors. */
export function loadJqVectors(): JqVector[] {
  return JSON.parse(readFileSync(path.join(here, "jq-vectors.json"), "utf8")).vectors;
}

/** Deliberate differences: vector name → reason (docs/shell.md lists the same). */
export function loadJqDifferences(): Record<string, string> {
  return JSON.parse(readFileSync(path.join(here, "jq-differences.json"), "utf8"));
}

/**
 * Run one vector through a fresh shell; `jq` is invoked as a shell command line.
 * `engine: "just-bash"` uses just-bash's own jq instead of ours (for the comparison in docs/shell.md).
 */
export async function runJqVector(v: JqCase, engine: "ours" | "just-bash" | "bashkit" = "ours"): Promise<Outcome> {
  if (engine === "bashkit") {
    // Our jq as a builtin of the experimental bashkit engine (docs/shell.md); it takes no stdin, so
    // stdin comes through a here-string's file.
    const kit = createBashkitEngine({ commands: compatCommands(), maxExecutionTimeMs: 30_000 });
    await kit.fs.mkdir(HOME, { recursive: true });
    for (const [p, c] of Object.entries({ ...(v.files ?? {}), ".stdin": v.stdin ?? "" })) await kit.fs.writeFile(`${HOME}/${p}`, c);
    const exports = Object.entries(v.env ?? {}).map(([k, val]) => `export ${k}=${shq(val)}; `).join("");
    return kit.exec(`${exports}jq ${v.args.map(shq).join(" ")} < .stdin`, { cwd: HOME });
  }
  const bash = engine === "ours" ? makeShell() : new Bash({ fs: new InMemoryFs(), cwd: HOME });
  await writeFiles(bash, v.files ?? {});
  const exports = Object.entries(v.env ?? {})
    .map(([k, val]) => `export ${k}=${shq(val)}; `)
    .join("");
  const r = await bash.exec(`${exports}jq ${v.args.map(shq).join(" ")}`, { stdin: v.stdin ?? "", rawScript: true });
  return { stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode };
}

/** Run all vectors; returns the mismatches. */
export async function runAllJq(vectors: JqVector[], engine: "ours" | "just-bash" | "bashkit" = "ours"): Promise<Array<{ name: string; why: string }>> {
  const bad: Array<{ name: string; why: string }> = [];
  for (const v of vectors) {
    let actual: Outcome;
    try {
      actual = await runJqVector(v, engine);
    } catch (e) {
      actual = { stdout: "", stderr: `THROWN: ${(e as Error).message}`, exitCode: -2 };
    }
    const cmp = compareOutcome(v.expected, actual);
    if (!cmp.ok) bad.push({ name: v.name, why: cmp.why });
  }
  return bad;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  // usage: run-jq.ts [--engine=just-bash|--engine=bashkit]
  const engine = process.argv.includes("--engine=just-bash") ? "just-bash" : process.argv.includes("--engine=bashkit") ? "bashkit" : "ours";
  const vectors = loadJqVectors();
  const bad = await runAllJq(vectors, engine);
  for (const b of bad) console.log(`${b.name}\n    ${b.why}`);
  console.log(`${vectors.length - bad.length}/${vectors.length} match`);
  process.exit(0);
}
