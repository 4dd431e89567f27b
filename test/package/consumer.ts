/**
 * A project made as a user makes one, with the packed toolshell installed: `npm pack` of this
 * checkout, `npm init -y` (npm 11 writes it as CommonJS), `npm install <tarball>`. Shared by the
 * package tests (test/package/*.test.ts). Needs `dist/` (`npm run test:package` builds it).
 * npm installs from its cache where it can (`--offline`), else from the registry.
 */
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TestContext } from "node:test";
import { fileURLToPath } from "node:url";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const quiet = ["--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"];

export interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Ran {
  const r = spawnSync(cmd, args, { cwd, env, encoding: "utf8", timeout: 15 * 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** `npm <args>` from the cache alone when it has everything, else from the registry. */
export function npmInstall(args: string[], cwd: string): void {
  if (run(npm, [...args, ...quiet, "--offline"], cwd).status === 0) return;
  const r = run(npm, [...args, ...quiet, "--prefer-offline"], cwd);
  assert.equal(r.status, 0, `npm ${args.join(" ")} failed:\n${r.stderr}`);
}

export interface Consumer {
  /** The temp folder holding the tarball and the project; removed after the test. */
  dir: string;
  /** The project (`npm init -y`), toolshell installed in it. */
  proj: string;
  tarball: string;
  /** The files `npm pack` put in the tarball. */
  files: string[];
}

/** Packs this checkout and installs it into a new project; `before` runs between `npm init` and the install. */
export function makeConsumer(t: TestContext, before?: (proj: string) => void): Consumer {
  assert.ok(existsSync(path.join(root, "dist", "engine", "just-bash.js")), "dist/engine is missing: run `npm run build` first");
  const dir = mkdtempSync(path.join(os.tmpdir(), "toolshell-pkg-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const packed = JSON.parse(execFileSync(npm, ["pack", "--ignore-scripts", "--json", "--pack-destination", dir], { cwd: root, encoding: "utf8" })) as Array<{ filename: string; files: Array<{ path: string }> }>;
  const tarball = path.join(dir, packed[0]!.filename);
  const proj = path.join(dir, "consumer");
  mkdirSync(proj);
  assert.equal(run(npm, ["init", "-y"], proj).status, 0);
  before?.(proj);
  npmInstall(["install", tarball], proj);
  return { dir, proj, tarball, files: packed[0]!.files.map((f) => f.path) };
}

/** The body of the first fenced block of `lang` in a repository file after the line matching `after`. */
export function docBlock(file: string, after: RegExp, lang: string): string {
  const text = readFileSync(path.join(root, file), "utf8");
  const from = text.search(after);
  assert.ok(from >= 0, `${file}: nothing matches ${after}`);
  const m = new RegExp("```" + lang + "\\n([^]*?)```").exec(text.slice(from));
  assert.ok(m, `${file}: no ${lang} block after ${after}`);
  return m[1]!;
}
