/**
 * The junction matrix (paths.ts) through the library: a host with a store (saved scripts are a
 * source there), `session.bash` and `session.answer`.
 */
import { after } from "node:test";
import { openHost, type Host } from "../../src/server/index.js";
import { librarySurface } from "./drivers/library.js";
import { junctionMatrix, type Surface } from "./paths.js";
import { makeWorld, saveScripts, signInWorld, type World } from "./world.js";

let opened: Promise<{ surface: (session: string) => Promise<Surface>; world: World; host: Host }> | undefined;
const open = () =>
  (opened ??= (async () => {
    const world = await makeWorld();
    const host = await openHost({ config: world.config, store: world.store });
    await saveScripts(host.store);
    await signInWorld(world, host.store.credentials);
    return { surface: async (id: string) => librarySurface(host.session(id)), world, host };
  })());
after(async () => {
  if (!opened) return;
  const { host, world } = await opened;
  await host.close();
  await world.close();
});

junctionMatrix("library", open);
