/**
 * The console's static assets (stylesheet, client script), read once from the package: from
 * `src/server/console/static/` when running from source, from `dist/server/console/static/`
 * after `npm run build` (which copies them there). Nothing is loaded from a CDN.
 *
 * See README → Console.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";

/** One asset: its bytes, type and a content hash used to cache it for good. */
export interface Asset {
  body: string;
  type: string;
  hash: string;
}

const FILES: Record<string, string> = {
  "console.css": "text/css; charset=utf-8",
  "questions.css": "text/css; charset=utf-8",
  "console.js": "text/javascript; charset=utf-8",
  "icon.svg": "image/svg+xml",
};

let cache: Map<string, Asset> | undefined;

/**
 * The assets by file name.
 * @throws Error when a file is missing (a build that did not copy `static/`).
 */
export function assets(): Map<string, Asset> {
  if (cache) return cache;
  const out = new Map<string, Asset>();
  for (const [name, type] of Object.entries(FILES)) {
    const body = readFileSync(new URL(`./static/${name}`, import.meta.url), "utf8");
    out.set(name, { body, type, hash: createHash("sha256").update(body).digest("hex").slice(0, 12) });
  }
  cache = out;
  return out;
}

/** The URL of an asset, with its hash so a new version is never served from a stale cache. */
export function assetUrl(name: string): string {
  return `/console/static/${name}?v=${assets().get(name)?.hash ?? "0"}`;
}
