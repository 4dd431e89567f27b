/**
 * Starts the HTTP API on Node (`@hono/node-server`) over a host, and the triggers.
 *
 * Rule source: docs/sessions.md → HTTP API (`toolshell serve`, Hono on Node).
 */
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { createApp } from "./app.js";
import type { Host } from "./host.js";

/** A running server. */
export interface RunningApi {
  /** `http://host:port` it listens on. */
  readonly url: string;
  readonly port: number;
  /** Stops accepting requests and waits for open ones to end (the host stays open). */
  close(): Promise<void>;
}

/**
 * Listens on `host`/`port` (default: the config's `server`; port 0 picks a free one) and starts
 * the host's triggers unless `triggers` is false.
 * @throws Error when no API token is configured (unless `allowNoTokens`), or the port is taken.
 */
export async function startApi(host: Host, options: { host?: string; port?: number; triggers?: boolean; allowNoTokens?: boolean } = {}): Promise<RunningApi> {
  const tokens = host.server.tokens;
  if (!tokens.length && !options.allowNoTokens) {
    throw new Error("no API token: set server.tokens in the config or TOOLSHELL_API_TOKEN in the environment (at least 16 characters)");
  }
  const app = createApp(host, { tokens, maxBodyBytes: host.server.maxBodyBytes });
  const hostname = options.host ?? host.server.host;
  const port = options.port ?? host.server.port;
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, hostname, port }, () => resolve(s));
    s.once("error", reject);
  });
  if (options.triggers !== false) await host.startTriggers();
  const addr = server.address() as AddressInfo;
  const shownHost = addr.family === "IPv6" ? `[${addr.address}]` : addr.address;
  const url = `http://${shownHost}:${addr.port}`;
  // Changes made by other replicas and the CLI reach this one; it is listed as a live replica (docs/deployment.md).
  await host.follow({ kind: "serve", url });
  return {
    url,
    port: addr.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      }),
  };
}
