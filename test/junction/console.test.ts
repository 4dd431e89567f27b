/**
 * The junction matrix (paths.ts) through the console of a built `toolshell serve` (run `npm run
 * build` first) in Chromium: the person answers approvals on the console's cards and watches a
 * session's durable steps on its page. The rows where the person answers an approval or reads the
 * step list, for a local tool and an MCP server's tool over stdio; the other rows and kinds go
 * through the same API calls the HTTP API suite (http-api.test.ts) runs.
 */
import { after } from "node:test";
import type { Browser, Page } from "playwright-core";
import { launchChromium } from "../fixtures/chromium.js";
import { consolePage, consoleSurface } from "./drivers/console.js";
import { startServe, type Served } from "./drivers/http-api.js";
import { junctionMatrix, PATHS, type Opened } from "./paths.js";
import { SERVE_PATHS } from "./serve-paths.js";
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

// A step is sent through the API (step_id on POST /bash); the person answers it on the card and
// watches it on the session page's step list.
junctionMatrix("console", open, {
  paths: [...PATHS, ...SERVE_PATHS],
  cells: (kind, row) => (kind.name === "local tool" || kind.name === "MCP over stdio") && /^(approve once|approve always|reject|events listed|resumed step|step list):/.test(row.name),
});
