/**
 * The junction matrix (paths.ts) through two built `toolshell serve` replicas on one PostgreSQL
 * database (docs/deployment.md): every script runs on replica 1, every answer and listing goes to
 * replica 2 — an approval asked on one is answered on the other, and a step waiting for approval
 * on one is resumed after an answer given on the other. A server's question is answered on the
 * replica running the call: pending questions are kept by that replica (docs/deployment.md "What
 * each replica keeps to itself").
 */
import { after } from "node:test";
import { openStore } from "../../src/store/index.js";
import { freshDatabase } from "../fixtures/postgres.js";
import { apiSurface, startServe, type Served } from "./drivers/http-api.js";
import { junctionMatrix, PATHS, type Opened } from "./paths.js";
import { SERVE_PATHS } from "./serve-paths.js";
import { AGENT_TOKEN, makeWorld, saveScripts, signInWorld, type World } from "./world.js";

let opened: Promise<Opened & { world: World; replicas: Served[] }> | undefined;
// The database is dropped after the replicas stop, at the end of the file (not of the first test).
const drops: Array<() => unknown> = [];
const open = () =>
  (opened ??= (async () => {
    const dbUrl = await freshDatabase({ after: (fn) => void drops.push(fn) });
    const world = await makeWorld({ store: dbUrl });
    const store = await openStore(dbUrl);
    await saveScripts(store);
    await signInWorld(world, store.credentials);
    await store.close();
    const replicas = [await startServe(world), await startServe(world)];
    return {
      world,
      replicas,
      surface: (id: string) => apiSurface("two replicas", id, replicas[0].url, replicas[1].url),
      agent: (id: string) => apiSurface("two replicas", id, replicas[0].url, replicas[1].url, undefined, AGENT_TOKEN),
    };
  })());
after(async () => {
  if (!opened) return;
  const { replicas, world } = await opened;
  await Promise.all(replicas.map((r) => r.stop()));
  await world.close();
  // Without TOOLSHELL_TEST_DATABASE_URL the fixture's throwaway cluster (stopped by its own hook,
  // registered first) goes away whole, this database with it.
  for (const drop of drops) await Promise.resolve(drop()).catch(() => undefined);
});

junctionMatrix("two replicas on PostgreSQL", open, { paths: [...PATHS, ...SERVE_PATHS] });
