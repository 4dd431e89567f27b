/**
 * The junction matrix (paths.ts) through the console of a built `toolshell serve` (run `npm run
 * build` first) in Chromium: the person answers approvals on the console's cards. The rows where
 * the person answers an approval, for a local tool and an MCP server's tool over stdio; the other
 * rows and kinds go through the same API calls the HTTP API suite (http-api.test.ts) runs.
 */
import { after } from "node:test";
import type { Browser, Page } from "playwright-core";
import { launchChromium } from "../fixtures/chromium.js";
import { consolePage, consoleSurface } from "./drivers/console.js";
import { startServe, type Served } from "./drivers/http-api.js";
import { junctionMatrix, type Opened } from "./paths.js";
import { readyWorld, type World } from "./world.js";

let opened: Promise<Opened & { world: World; served: Served; browser: Browser; page: Page }> | undefined;
const open = () =>
  (opened ??= (async () => {
    const { world, store } = await readyWorld();
    await store.close();
    const served = await startServe(world);
    const browser = await launchChromium();
    const page = await consolePage(browser, served.url);
    return { world, served, browser, page, surface: (id: string) => consoleSurface(id, served.url, page) };
  })());
after(async () => {
  if (!opened) return;
  const { served, world, browser } = await opened;
  await browser.close();
  await served.stop();
  await world.close();
});

junctionMatrix("console", open, {
  notApplicable: { "resumed step": "a step is the API's (step_id on POST /bash); the console answers its approval as any other, which the HTTP API suite runs" },
  cells: (kind, row) => (kind.name === "local tool" || kind.name === "MCP over stdio") && /^(approve once|approve always|reject|events listed):/.test(row.name),
});
