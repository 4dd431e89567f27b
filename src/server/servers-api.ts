/**
 * The HTTP API's MCP server routes (`/v1/servers`): list the servers with their state, add,
 * change and remove one while `toolshell serve` runs. Entries are checked like the config file's
 * `mcpServers` entries. Changes made here are kept in the store, not the config file: every
 * replica on the store follows them, they outlast a restart, and a later edit of the config file
 * keeps them (server/shared-state.ts; README "Changing servers while running").
 * `GET /v1/replicas` lists the replicas on the store from their heartbeats (docs/deployment.md
 * "Who holds a step"); `createApp` lets only operator tokens read it.
 */
import { Hono } from "hono";
import { ConfigError } from "../config/index.js";
import type { McpServerSource } from "../mcp/index.js";
import { ServerChangeError } from "../runtime/index.js";
import type { Host } from "./host.js";
import { ApiError, body } from "./http.js";
import { knownReplicas } from "./shared-state.js";

/** One server as `GET /v1/servers` lists it. */
export interface ServerListing {
  name: string;
  type: string;
  /** `eager` (started with the host) or `on_demand` (when a script first names it). */
  load: "eager" | "on_demand";
  /** The entry's `trust`, when written (README "Approvals"). */
  trust?: boolean;
  /** `loaded`, `not_loaded`, `failed` (with `message`), or `disabled`. */
  state: "loaded" | "not_loaded" | "failed" | "disabled";
  message?: string;
  tools?: number;
}

/** The servers of a running host with their state (what `GET /v1/servers` answers). */
export function listServers(host: Host): ServerListing[] {
  return host.shell.config.servers.map((config) => {
    const base = { name: config.name, type: config.type, load: config.load, ...(config.trust === undefined ? {} : { trust: config.trust }) };
    const source = host.shell.sources.find((s) => s.name === config.name) as McpServerSource | undefined;
    if (!source || config.disabled) return { ...base, state: "disabled" };
    const state = source.state();
    if (state === "failed") return { ...base, state: "failed", message: host.shell.redactor.text(source.failure()?.message ?? "failed") };
    if (state === "ready") return { ...base, state: "loaded", tools: source.tools().length };
    return { ...base, state: "not_loaded" };
  });
}

/**
 * The `/v1/servers` routes, mounted by `createApp` behind its bearer-token check.
 * @returns a Hono app with GET/POST `/v1/servers` and PUT/DELETE `/v1/servers/:name`.
 */
export function serversRoutes(host: Host): Hono {
  const fail = (status: 400 | 404 | 409, code: string, message: string) => new ApiError(status, code, message);
  const app = new Hono();
  // A server change's errors as API errors: 400 bad entry, 404 unknown server, 409 it exists.
  const apply = async (fn: () => Promise<void>): Promise<void> => {
    try {
      await fn();
    } catch (err) {
      if (err instanceof ServerChangeError) throw fail(err.code === "not_found" ? 404 : 409, err.code, err.message);
      throw fail(400, "invalid_request", err instanceof ConfigError || err instanceof Error ? err.message : String(err));
    }
  };
  app.get("/v1/servers", (c) => c.json({ servers: listServers(host) }));
  // Every replica the store has a heartbeat of (a stale one is `live: false` until forgotten), and
  // which one answered.
  app.get("/v1/replicas", async (c) => c.json({ replicas: await knownReplicas(host.store), this: host.store.holder ?? null }));
  app.post("/v1/servers", async (c) => {
    const b = await body(c);
    if (typeof b.name !== "string") throw fail(400, "invalid_request", '"name" must be a string');
    const name = b.name;
    await apply(() => host.shell.addServer(name, b.entry));
    await host.store.putShared("server", name, { entry: b.entry });
    return c.json(listServers(host).find((s) => s.name === name), 201);
  });
  app.put("/v1/servers/:name", async (c) => {
    const b = await body(c);
    const name = c.req.param("name");
    await apply(() => host.shell.updateServer(name, b.entry));
    await host.store.putShared("server", name, { entry: b.entry });
    return c.json(listServers(host).find((s) => s.name === name));
  });
  app.delete("/v1/servers/:name", async (c) => {
    const name = c.req.param("name");
    await apply(() => host.shell.removeServer(name));
    // A server of the config file stays out on every replica; one only in the store is gone.
    await host.store.putShared("server", name, host.fileServers().some((s) => s.name === name) ? { removed: true } : null);
    return c.body(null, 204);
  });
  return app;
}
