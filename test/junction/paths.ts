/**
 * The junction matrix: the user paths every surface must take the same way, over every tool
 * kind. A surface is a driver (drivers/): it runs a script as that surface's user does and has
 * the person answer an approval as that surface lets them. A path is a row: what happens and
 * what must come out, the same on every surface. Add a row here and every surface runs it; add a
 * driver and it runs every row.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Decision } from "../../src/index.js";
import { TOOL_KINDS, type ToolKind } from "./kinds.js";
import type { World } from "./world.js";

/** What one turn of a surface came to. */
export interface Turn {
  /** How many approval cards the person was shown. */
  asked: number;
  /** What the agent (or the user) finally got from the script: its stdout and stderr. */
  stdout: string;
  stderr: string;
  /** Approval requests of the session still pending after the turn. */
  pending: number;
}

/** One surface, as its user drives it. */
export interface Surface {
  name: string;
  /**
   * Runs `script` in the surface's session the way its user does; when a call waits for a
   * person's approval, the person answers `decision` (through the surface's own way of
   * answering), and the surface goes on as its docs say.
   */
  turn(script: string, decision: Decision): Promise<Turn>;
  /** The session's events as the surface lists them (text), when it lists them. */
  events?(): Promise<string>;
}

/** One user path: run against a surface and a tool kind, with ids of its own. */
export interface PathRow {
  name: string;
  run(surface: Surface, kind: ToolKind, world: World, id: (n: number) => string): Promise<void>;
}

const ranCount = (world: World, line: string) => world.ran().filter((l) => l === line).length;

export const PATHS: PathRow[] = [
  {
    name: "approve once: the call runs once; the same call asks again",
    async run(surface, kind, world, id) {
      const first = await surface.turn(kind.call(id(1)), "allow");
      assert.equal(first.asked, 1, "the person is asked once");
      assert.equal(ranCount(world, kind.ranLine(id(1))), 1, "the approved call ran once");
      assert.match(first.stdout, new RegExp(kind.output(id(1))));
      assert.equal(first.pending, 0, "nothing stays pending");
      const again = await surface.turn(kind.call(id(1)), "allow");
      assert.equal(again.asked, 1, "allow covers one call: the same call asks again");
      assert.equal(ranCount(world, kind.ranLine(id(1))), 2);
    },
  },
  {
    name: "approve always: the call runs; the tool then runs without asking",
    async run(surface, kind, world, id) {
      const first = await surface.turn(kind.call(id(1)), "allow_always");
      assert.equal(first.asked, 1);
      assert.equal(ranCount(world, kind.ranLine(id(1))), 1);
      assert.match(first.stdout, new RegExp(kind.output(id(1))));
      const other = await surface.turn(kind.call(id(2)), "reject");
      assert.equal(other.asked, 0, "allow_always: another input of the tool is not asked about");
      assert.equal(ranCount(world, kind.ranLine(id(2))), 1);
      assert.equal(other.pending, 0);
    },
  },
  {
    name: "reject: nothing runs; the same call again is refused without asking",
    async run(surface, kind, world, id) {
      const r = await surface.turn(kind.call(id(1)), "reject");
      assert.equal(r.asked, 1);
      assert.equal(ranCount(world, kind.ranLine(id(1))), 0, "a rejected call never runs");
      assert.doesNotMatch(r.stdout, new RegExp(kind.output(id(1))));
      // The refusal was stored where the next call looks it up: it answers denied, asking nobody.
      const again = await surface.turn(kind.call(id(1)), "allow");
      assert.equal(again.asked, 0, "a refused call is not asked about again");
      assert.equal(ranCount(world, kind.ranLine(id(1))), 0);
      assert.match(again.stderr, /denied|refused/);
      assert.equal(again.pending, 0, "nothing stays pending");
    },
  },
];

/**
 * Registers the matrix for one surface: a test per tool kind × path, each in a session of its own
 * (an `allow_always` of one path must not answer for another). `open` gives the world and the
 * surface's factory (made once per file, so servers and hosts are shared).
 */
export function junctionMatrix(
  surfaceName: string,
  open: () => Promise<{ world: World; surface: (session: string) => Promise<Surface> }>,
  options: { kinds?: ToolKind[]; paths?: PathRow[] } = {},
): void {
  let n = 0;
  for (const kind of options.kinds ?? TOOL_KINDS) {
    for (const row of options.paths ?? PATHS) {
      // Ids and sessions of their own per surface too: several surfaces share one world's log and store.
      const prefix = `${surfaceName.toLowerCase().replace(/[^a-z]+/g, "")}${++n}x`;
      test(`${surfaceName} × ${kind.name}: ${row.name}`, async () => {
        const { surface, world } = await open();
        await row.run(await surface(`junction-${prefix}`), kind, world, (i) => `${prefix}${i}`);
      });
    }
  }
}
