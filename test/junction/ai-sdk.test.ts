/**
 * The junction matrix (paths.ts) through the AI SDK adapter over a host with a store (saved
 * scripts are a source there): every tool kind, every path.
 */
import { after } from "node:test";
import { openHost, type Host } from "../../src/server/index.js";
import { aiSdkSurface } from "./drivers/ai-sdk.js";
import { junctionMatrix, type Surface } from "./paths.js";
import { makeWorld, saveScripts, signInWorld, type World } from "./world.js";

let opened: Promise<{ surface: (session: string) => Promise<Surface>; world: World; host: Host }> | undefined;
const open = () =>
  (opened ??= (async () => {
    const world = await makeWorld();
    const host = await openHost({ config: world.config, store: world.store });
    await saveScripts(host.store);
    await signInWorld(world, host.store.credentials);
    return { surface: (id: string) => aiSdkSurface(host.session(id), host.shell), world, host };
  })());
after(async () => {
  if (!opened) return;
  const { host, world } = await opened;
  await host.close();
  await world.close();
});

junctionMatrix("AI SDK adapter", open, {
  notApplicable: { "resumed step": "the adapter names each shell call's step by the model's tool call id (ai:<toolCallId>); its user gives no step id to ask for again" },
});
