/**
 * The junction matrix (paths.ts) through the HTTP API of a built `toolshell serve` (run `npm run
 * build` first) on the world's SQLite store: every tool kind, every path.
 */
import { after } from "node:test";
import { openStore } from "../../src/store/index.js";
import { apiSurface, startServe, type Served } from "./drivers/http-api.js";
import { junctionMatrix, type Opened } from "./paths.js";
import { makeWorld, saveScripts, signInWorld, type World } from "./world.js";

let opened: Promise<Opened & { world: World; served: Served }> | undefined;
const open = () =>
  (opened ??= (async () => {
    const world = await makeWorld();
    const store = await openStore(world.store);
    await saveScripts(store);
    await signInWorld(world, store.credentials);
    await store.close();
    const served = await startServe(world);
    return { world, served, surface: (id: string) => apiSurface("HTTP API", id, served.url, served.url) };
  })());
after(async () => {
  if (!opened) return;
  const { served, world } = await opened;
  await served.stop();
  await world.close();
});

junctionMatrix("HTTP API", open);
