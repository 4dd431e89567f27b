/**
 * One script cannot run the host out of memory (docs/security.md "What each limit defends"): in
 * a Node whose heap is 400 MiB, a script holding 400 strings of 8 MiB is stopped once the heap
 * passes its bound (`heapBound`: 80% of the limit, at most the limit less 256 MiB), with an error
 * that says so; the process lives on and the next calls,
 * in that session and another, run. Before, the process died with "JavaScript heap out of memory".
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));

test("a script holding ever more memory is stopped before the host runs out of heap; the host and its sessions go on", () => {
  const r = spawnSync(process.execPath, ["--max-old-space-size=400", "--import", "tsx", path.join(here, "../fixtures/security/heap-attack.ts")], { encoding: "utf8", timeout: 240_000, cwd: path.join(here, "../..") });
  assert.equal(r.status, 0, `the process lived: ${r.stderr.slice(-1500)}`);
  const out = JSON.parse(r.stdout.trim().split("\n").pop()!) as { attack: { stdout: string; stderr: string; exit_code: number }; after: string; other: string };
  assert.notEqual(out.attack.exit_code, 0);
  assert.doesNotMatch(out.attack.stdout, /held 400/, "the script did not finish");
  assert.match(out.attack.stderr, /the host's memory passed \d+ MiB of its \d+ MiB heap \(the bound is \d+ MiB\) while this script ran; the script was stopped/, out.attack.stderr);
  assert.equal(out.after, "after\n", "the same session's next call runs");
  assert.equal(out.other, "other\n", "another session's call runs");
});
