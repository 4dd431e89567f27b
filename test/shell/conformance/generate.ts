/**
 * Writes the conformance vectors from the real binaries:
 *   node --import tsx test/shell/conformance/generate.ts [jq|bash]
 * jq cases run through /usr/bin/jq (1.6 here), bash scripts through /usr/bin/bash (5.2),
 * each in a fresh empty temp directory with a fixed small environment (TZ=UTC, LC_ALL=C.UTF-8),
 * so the outputs do not depend on the host. The tests read the JSON files and need neither binary.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { BASH_CASES } from "./bash-cases.js";
import { JQ_CASES } from "./jq-cases.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const JQ = process.env.REAL_JQ ?? "/usr/bin/jq";
const BASH = process.env.REAL_BASH ?? "/usr/bin/bash";
const BASE_ENV = { PATH: "/usr/bin:/bin", LC_ALL: "C.UTF-8", LANG: "C.UTF-8", TZ: "UTC" };

function version(bin: string, flag: string): string {
  const r = spawnSync(bin, [flag], { encoding: "utf8" });
  return (r.stdout || r.stderr).split("\n")[0].trim();
}

function inTemp<T>(files: Record<string, string> | undefined, fn: (dir: string) => T): T {
  const dir = mkdtempSync(path.join(tmpdir(), "conf-"));
  try {
    for (const [p, content] of Object.entries(files ?? {})) {
      const abs = path.join(dir, p);
      mkdirSync(path.dirname(abs), { recursive: true });
      writeFileSync(abs, content);
    }
    return fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function genJq(): void {
  const vectors = JQ_CASES.map((c) =>
    inTemp(c.files, (dir) => {
      const r = spawnSync(JQ, c.args, {
        cwd: dir,
        input: c.stdin ?? "",
        env: { ...BASE_ENV, HOME: dir, ...c.env },
        encoding: "utf8",
        timeout: 10_000,
      });
      return { ...c, expected: { stdout: r.stdout, stderr: r.stderr, exitCode: r.status ?? -1 } };
    }),
  );
  const out = { generator: "test/shell/conformance/generate.ts jq", binary: JQ, version: version(JQ, "--version"), vectors };
  writeFileSync(path.join(here, "jq-vectors.json"), JSON.stringify(out, null, 1) + "\n");
  console.log(`jq: ${vectors.length} vectors from ${out.version}`);
}

function genBash(): void {
  const vectors = BASH_CASES.map((c) =>
    inTemp(c.files, (dir) => {
      const r = spawnSync(BASH, ["--norc", "--noprofile", "-c", c.script], {
        cwd: dir,
        input: c.stdin ?? "",
        env: { ...BASE_ENV, HOME: dir },
        encoding: "utf8",
        timeout: 10_000,
      });
      // The script ran in a temp dir; the vectors must not mention it.
      const strip = (s: string) => s.split(dir).join("$TMP");
      return { ...c, expected: { stdout: strip(r.stdout), stderr: strip(r.stderr), exitCode: r.status ?? -1 } };
    }),
  );
  const out = { generator: "test/shell/conformance/generate.ts bash", binary: BASH, version: version(BASH, "--version"), vectors };
  writeFileSync(path.join(here, "bash-vectors.json"), JSON.stringify(out, null, 1) + "\n");
  console.log(`bash: ${vectors.length} vectors from ${out.version}`);
}

const which = process.argv[2];
if (!which || which === "jq") genJq();
if (!which || which === "bash") genBash();
