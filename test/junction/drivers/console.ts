/**
 * The console of `toolshell serve` (README "Console"), in Debian's Chromium driven by
 * playwright-core: the agent runs its script through the HTTP API, and the person answers each
 * approval on the console's Approvals page, by the card's button (Allow once, Allow always,
 * Reject, Reject always); the agent then runs the script again, as over the API. Everything
 * else (events, questions, progress, steps) is the API surface's, which the console reads too.
 */
import type { Browser, Page } from "playwright-core";
import type { Decision } from "../../../src/index.js";
import type { Surface } from "../paths.js";
import { TOKEN } from "../world.js";
import { apiSurface } from "./http-api.js";

const BUTTON: Record<Decision, string> = { allow: "Allow once", allow_always: "Allow always", reject: "Reject", reject_always: "Reject always" };

/** A page signed in to the console at `url` with the world's token. */
export async function consolePage(browser: Browser, url: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  context.setDefaultTimeout(30_000);
  const page = await context.newPage();
  await page.goto(url + "/");
  await page.getByLabel("API token").fill(TOKEN);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForFunction(() => document.documentElement.dataset.live === "connected");
  return page;
}

/** The console surface of session `session` on the serve at `url`, answered on `page`. */
export async function consoleSurface(session: string, url: string, page: Page): Promise<Surface> {
  const answerOnPage = async (ids: string[], decision: Decision) => {
    for (const id of ids) {
      const card = page.locator(`article.approval[data-request="${id}"]`);
      await card.getByRole("button", { name: BUTTON[decision], exact: true }).click();
      await card.waitFor({ state: "detached" });
    }
  };
  // The agent sends steps through the API (`step_id`); the person answers them on the cards and
  // sees them on the session page's "Durable steps" list, kept open and live.
  const surface = await apiSurface("console", session, url, url, answerOnPage);
  let sessionPage: Page | undefined;
  const listed = async () => {
    if (!sessionPage) {
      sessionPage = await page.context().newPage();
      await sessionPage.goto(`${url}/sessions/${encodeURIComponent(session)}`);
      await sessionPage.waitForFunction(() => document.documentElement.dataset.live === "connected");
    }
    const rows = sessionPage.getByRole("region", { name: "Durable steps" }).locator("tr[data-step]");
    const pairs = await rows.evaluateAll((trs) => trs.map((tr) => [tr.getAttribute("data-step") ?? "", tr.getAttribute("data-status") ?? ""]));
    return Object.fromEntries(pairs);
  };
  return { ...surface, step: { ...surface.step!, listed } };
}
