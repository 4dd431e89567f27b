/**
 * The console of `toolshell serve` (README "Console"), in Debian's Chromium driven by
 * playwright-core: the agent runs its script through the HTTP API, and the person answers each
 * approval on the console's Approvals page, by the card's button (Allow once, Allow always,
 * Reject, Reject always); the agent then runs the script again, as over the API. Everything
 * else (events, questions, progress, steps) is the API surface's, which the console reads too.
 */
import { chromium, type Browser, type Page } from "playwright-core";
import type { Decision } from "../../../src/index.js";
import type { Surface, Turn } from "../paths.js";
import { TOKEN } from "../world.js";
import { api, apiSurface } from "./http-api.js";
import { waitingOn } from "./library.js";

export const CHROMIUM = "/usr/bin/chromium";

const BUTTON: Record<Decision, string> = { allow: "Allow once", allow_always: "Allow always", reject: "Reject", reject_always: "Reject always" };

/** Chromium as the console tests start it (test/server/console.test.ts). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}

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

interface BashResult {
  stdout: string;
  stderr: string;
  tools?: unknown;
}

/** The console surface of session `session` on the serve at `url`, answered on `page`. */
export async function consoleSurface(session: string, url: string, page: Page): Promise<Surface> {
  // Steps are the API's (`step_id`), not the console's: the surface has none.
  const { step: _step, ...base } = await apiSurface("console", session, url, url);
  const s = `/v1/sessions/${encodeURIComponent(session)}`;
  const bash = (script: string) => api<BashResult>(url, "POST", `${s}/bash`, { script });
  const answerOnPage = async (requestId: string, decision: Decision) => {
    const card = page.locator(`article.approval[data-request="${requestId}"]`);
    await card.getByRole("button", { name: BUTTON[decision], exact: true }).click();
    await card.waitFor({ state: "detached" });
  };
  return {
    ...base,
    name: "console",
    async turn(script, decision): Promise<Turn> {
      let asked = 0;
      let r = await bash(script);
      for (let i = 0; i < 2; i++) {
        const ids = waitingOn(r.tools);
        if (!ids.length) break;
        asked++;
        for (const id of ids) await answerOnPage(id, decision);
        if (decision.startsWith("reject")) break;
        r = await bash(script);
      }
      const pending = (await api<{ pending: unknown[] }>(url, "GET", `${s}/tool-approvals`)).pending.length;
      return { asked, stdout: r.stdout, stderr: r.stderr, pending };
    },
  };
}
