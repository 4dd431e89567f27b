/**
 * Every session's files of one process are bounded together too (docs/security.md "What each
 * limit defends", session files): each session is held to `maxSessionFileBytes`, and many
 * sessions at once to the host's bound (`TOOLSHELL_HOST_FILE_BYTES`, else a quarter of the
 * machine's memory, at most 4 GiB), since the bodies sit outside the heap the memory bound
 * watches. A write past it fails as on a full disk in any session, and says so; removing files
 * anywhere makes room. Its own file: no other test's sessions hold files in this process.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { createToolShell } from "../../src/index.js";
import { hostFileBytes } from "../../src/shell/session-fs.js";

const MiB = 1024 * 1024;

test("sessions that each fit their own bound fill the host's: the next write fails in any session and says which bound; removing files makes room", async (t) => {
  process.env.TOOLSHELL_HOST_FILE_BYTES = String(2 * MiB);
  t.after(() => delete process.env.TOOLSHELL_HOST_FILE_BYTES);
  const ts = await createToolShell({ config: { maxSessionFileBytes: MiB, maxOutputBytes: 4 * MiB } });
  t.after(() => ts.close());
  const [a, b, c] = ["a", "b", "c"].map((id) => ts.session(id));
  for (const s of [a, b]) {
    const r = await s.bash(`printf '%0900000d' 0 > f; echo "rc=$?"`);
    assert.equal(r.stdout, "rc=0\n", r.stderr);
  }
  assert.equal(hostFileBytes(), 1_800_000, "the host counts both sessions' files");
  const full = await c.bash(`printf '%0300000d' 0 > f; echo "rc=$?"; cp /dev/null g; echo fits > h; cat h`);
  assert.match(full.stdout, /^rc=1\nfits\n$/, JSON.stringify(full));
  assert.match(full.stderr, /write error: No space left on device/);
  assert.ok(full.stderr.endsWith("toolshell: the sessions of this host hold 2097152 bytes of files together, the most they may (TOOLSHELL_HOST_FILE_BYTES), so a write failed (No space left on device); remove files sessions no longer need\n"), full.stderr);
  // A file moved in from the session's own /usr/bin (a mount of its own) counts as a write too.
  const moved = await c.bash(`printf '%0300000d' 0 > /usr/bin/x; echo "rc=$?"; mv /usr/bin/x /tmp/x; echo "mv=$?"`);
  assert.match(moved.stdout, /^rc=0\nmv=1\n$/, JSON.stringify(moved));
  assert.equal((await a.bash("rm f")).exit_code, 0);
  const room = await c.bash(`printf '%0300000d' 0 > f; echo "rc=$?"`);
  assert.deepEqual([room.stdout, room.stderr], ["rc=0\n", ""], "removing a file in another session made room");
});
