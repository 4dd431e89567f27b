/**
 * The junction matrix (paths.ts) through the built CLI (run `npm run build` first): the warm
 * host and `--no-daemon` runs on one store, the person answering with `toolshell approve`.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { cli, cliSurface } from "./drivers/cli.js";
import { junctionMatrix, type Surface } from "./paths.js";
import { readyWorld, type World } from "./world.js";

let opened: Promise<{ world: World; env: NodeJS.ProcessEnv }> | undefined;
const world = () =>
  (opened ??= (async () => {
    const { world: w, store } = await readyWorld();
    await store.close();
    const sockets = path.join(w.dir, "sockets");
    mkdirSync(sockets, { mode: 0o700 });
    return { world: w, env: { TOOLSHELL_DAEMON_DIR: sockets } };
  })());
after(async () => {
  if (!opened) return;
  const { world: w, env } = await opened;
  await cli(w, ["daemon", "stop"], env);
  await w.close();
});

const surface = (flags: string[]) => async () => {
  const { world: w, env } = await world();
  return { world: w, surface: async (session: string): Promise<Surface> => cliSurface(w, session, flags, env) };
};

const notApplicable = { "resumed step": "toolshell exec takes no step id: each run is a shell call of its own (durable steps are the library's stepId and the HTTP API's step_id)" };
junctionMatrix("CLI warm host", surface([]), { notApplicable });
// A --no-daemon run starts its servers for itself (seconds each on a loaded machine): the kinds
// that start no child process keep the file within a few minutes; sign-in is where a run with no
// warm host differs (it ends before anyone could open a link), so it runs too.
junctionMatrix("CLI --no-daemon", surface(["--no-daemon"]), { cells: (k, row) => k.name === "local tool" || row.needs === "sign-in", notApplicable });

// Beyond the matrix: with no terminal a server's question is declined, and the run says so on
// stderr (not only in the tool's error, which a script may swallow).
test("CLI warm host: a question declined for want of a terminal is said on stderr", async () => {
  const { world: w, env } = await world();
  const r = await cli(w, ["--session", "junction-cli-declined", "exec", "tools jstdio ask || true"], env);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /tools: tools jstdio ask: a question it asked was declined: nobody can answer questions here .*run toolshell where stdin and stderr are one/);
});
