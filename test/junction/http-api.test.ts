/**
 * The junction matrix (paths.ts) through the HTTP API of a built `toolshell serve` (run `npm run
 * build` first) on the world's SQLite store: every tool kind, every path.
 */
import { after } from "node:test";
import { apiSurface, startServe, type Served } from "./drivers/http-api.js";
import { junctionMatrix, PATHS, type Opened } from "./paths.js";
import { SERVE_PATHS } from "./serve-paths.js";
import { AGENT_TOKEN, readyWorld, type World } from "./world.js";

let opened: Promise<Opened & { world: World; served: Served }> | undefined;
const open = () =>
  (opened ??= (async () => {
    const { world, store } = await readyWorld();
    await store.close();
    const served = await startServe(world);
    return { world, served, surface: (id: string) => apiSurface("HTTP API", id, served.url, served.url), agent: (id: string) => apiSurface("HTTP API", id, served.url, served.url, undefined, AGENT_TOKEN) };
  })());
after(async () => {
  if (!opened) return;
  const { served, world } = await opened;
  await served.stop();
  await world.close();
});

junctionMatrix("HTTP API", open, { paths: [...PATHS, ...SERVE_PATHS] });
