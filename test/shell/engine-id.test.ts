/**
 * The shell engine toolshell loads is the one it was built with (src/shell/just-bash.ts):
 * the id the patch generator computes, the id in src and the id the loaded just-bash carries
 * agree, and every module reaches just-bash's code through the one door. The refusal of a
 * different engine is proved on the installed package (test/package/tarball.test.ts).
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { engineId } from "../../patches/just-bash-edits.mjs";
import { assertEngine, ENGINE_ID, engineMismatch } from "../../src/shell/just-bash.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

test("the engine id in src is the one patches/just-bash-edits.mjs makes, and the loaded engine carries it", () => {
  assert.equal(ENGINE_ID, engineId);
  assert.match(ENGINE_ID, /^just-bash@3\.4\.2\+toolshell\.[0-9a-f]{12}$/);
  assert.equal(engineMismatch(), null);
  assert.doesNotThrow(() => assertEngine());
});

test("no module of src imports just-bash's code except through src/shell/just-bash.ts", () => {
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((f) => (statSync(path.join(dir, f)).isDirectory() ? walk(path.join(dir, f)) : [path.join(dir, f)]));
  const offenders = walk(path.join(root, "src"))
    .filter((f) => f.endsWith(".ts") && !f.endsWith(path.join("shell", "just-bash.ts")))
    .filter((f) => /^import (?!type )[^;]*from "just-bash";/m.test(readFileSync(f, "utf8")));
  assert.deepEqual(offenders, []);
});
