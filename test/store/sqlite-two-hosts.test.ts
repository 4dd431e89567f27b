/**
 * One SQLite file, two processes' hosts: the CLI's warm host beside a `--no-daemon` run or
 * `toolshell scripts run` (README "The warm host": the same store, so the same sessions). Each
 * shell call first reads the session's files again when the other host changed them since
 * (SessionStore.refreshSession); before, the warm host kept its own copy until it restarted.
 * Two openHost calls on one file stand for the two processes (each its own connection).
 */
import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { openHost } from "../../src/server/index.js";
import { tempDir } from "../fixtures/temp.js";

test("a session run by two hosts on one SQLite file sees the files each wrote, and a file one removed is gone for the other", async (t) => {
  const dir = tempDir(t);
  const store = path.join(dir, "state.db");
  const warm = await openHost({ store, config: { mcpServers: {} } });
  t.after(() => warm.close());
  const other = await openHost({ store, config: { mcpServers: {} } });
  t.after(() => other.close());
  assert.equal((await warm.session("fs").bash("echo a > a.txt; ls")).stdout, "a.txt\n");
  assert.equal((await other.session("fs").bash("echo b > b.txt; ls")).stdout, "a.txt\nb.txt\n");
  const seen = await warm.session("fs").bash("ls; cat a.txt b.txt");
  assert.deepEqual([seen.stdout, seen.stderr], ["a.txt\nb.txt\na\nb\n", ""]);
  await other.session("fs").bash("rm a.txt; echo c > b.txt");
  assert.equal((await warm.session("fs").bash("ls; cat b.txt")).stdout, "b.txt\nc\n");
  // Control: what the warm host writes next is what the other host reads.
  await warm.session("fs").bash("echo d > d.txt");
  assert.equal((await other.session("fs").bash("ls")).stdout, "b.txt\nd.txt\n");
});
