/**
 * Starts the HTTP API on Node (`@hono/node-server`) over a host, and the triggers: plain HTTP,
 * or HTTPS with the config's `server.tls` certificate and key.
 *
 * See docs/sessions.md → HTTP API; docs/deployment.md → TLS and the console.
 */
import type { TokenGuard } from "./token-guard.js";
import { readFileSync } from "node:fs";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { hostname as machineName, networkInterfaces } from "node:os";
import { serve } from "@hono/node-server";
import { createApp } from "./app.js";
import type { Host } from "./host.js";
import type { Logger } from "./log.js";
import { answersInFlight } from "./in-flight.js";
import { isLoopbackHost } from "./reach.js";

/** How long closing waits for the answers still being written (in-flight.ts). */
const ANSWER_WAIT_MS = 5_000;

/** A running server. */
export interface RunningApi {
  /** `http(s)://host:port` it listens on (the bound address, e.g. `http://0.0.0.0:8787`). */
  readonly url: string;
  /**
   * Addresses a person can open (the bound one when it is a single address; for `0.0.0.0` / `::`
   * the machine's network addresses, then loopback).
   */
  readonly urls: string[];
  /** The address to reach it from this machine: loopback for a wildcard bind, else {@link url}. */
  readonly localUrl: string;
  /** The PEM certificate file it serves HTTPS with (a client on this machine may pin it). */
  readonly certFile?: string;
  readonly port: number;
  /** True when it serves HTTPS. */
  readonly tls: boolean;
  /**
   * Begins stopping: new connections are not accepted, new requests on open ones answer 503
   * (`/healthz` too), idle connections close; the requests in flight go on. Then {@link close}.
   */
  refuseNew(): void;
  /**
   * Stops accepting requests and ends every open connection (event streams too; the host stays
   * open), after waiting up to `answerWaitMs` (default 5 s) for answers of work that ended.
   */
  close(answerWaitMs?: number): Promise<void>;
}

/** Options of {@link startApi}; each defaults to the host's config `server`. */
export interface StartApiOptions {
  host?: string;
  port?: number;
  triggers?: boolean;
  allowNoTokens?: boolean;
  /** How wrong tokens slow their sender down (server/token-guard.ts); default: one guard with its defaults. */
  guard?: TokenGuard;
  /** PEM certificate and key files: serve HTTPS. */
  tls?: { cert: string; key: string };
  /** Believe a TLS proxy's X-Forwarded-Proto and X-Forwarded-For. */
  trustProxy?: boolean;
  /** The operator's log (log.ts): requests are logged to it. */
  log?: Logger;
}

/**
 * Listens on `host`/`port` (default: the config's `server`; port 0 picks a free one) and starts
 * the host's triggers unless `triggers` is false.
 * @throws Error when no API token is configured (unless `allowNoTokens`), a TLS file cannot be
 *   read or is not a usable certificate/key pair, or the port is taken.
 */
export async function startApi(host: Host, options: StartApiOptions = {}): Promise<RunningApi> {
  const tokens = host.server.tokens;
  if (!tokens.length && !options.allowNoTokens) {
    throw new Error("no API token: set server.tokens in the config or TOOLSHELL_API_TOKEN in the environment (at least 16 characters)");
  }
  const tlsFiles = options.tls ?? host.server.tls;
  const tls = tlsFiles ? readTls(tlsFiles) : undefined;
  const trustProxy = options.trustProxy ?? host.server.trustProxy ?? false;
  let stopping = false;
  const app = createApp(host, { stopping: () => stopping, tokens, tokenNames: host.server.tokenNames, tokenRoles: host.server.tokenRoles, maxBodyBytes: host.server.maxBodyBytes, tls: !!tls, trustProxy, ...(options.log ? { log: options.log } : {}), ...(options.guard ? { guard: options.guard } : {}) });
  const hostname = options.host ?? host.server.host;
  const port = options.port ?? host.server.port;
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    let s: ReturnType<typeof serve>;
    try {
      s = tls
        ? serve({ fetch: app.fetch, hostname, port, createServer: createHttpsServer, serverOptions: tls }, () => resolve(s))
        : serve({ fetch: app.fetch, hostname, port }, () => resolve(s));
    } catch (err) {
      reject(new Error(`cannot serve HTTPS with ${tlsFiles?.cert} and ${tlsFiles?.key}: ${(err as Error).message}`, { cause: err }));
      return;
    }
    s.once("error", reject);
  });
  if (options.triggers !== false) await host.startTriggers();
  const addr = server.address() as AddressInfo;
  const scheme = tls ? "https" : "http";
  const url = `${scheme}://${bracket(addr.address)}:${addr.port}`;
  const urls = reachableHosts(addr.address).map((h) => `${scheme}://${bracket(h)}:${addr.port}`);
  // Changes made by other replicas and the CLI reach this one; it is listed as a live replica,
  // under an address others can reach (docs/deployment.md).
  await host.follow({ kind: "serve", url: urls[0] ?? url });
  // A wildcard bind answers on loopback too: the address this machine's CLI and log lines use.
  const localUrl = isWildcard(addr.address) ? `${scheme}://127.0.0.1:${addr.port}` : url;
  let closing: Promise<void> | undefined;
  const answers = answersInFlight(server as unknown as import("node:http").Server);
  return {
    url,
    urls,
    localUrl,
    ...(tlsFiles && tls ? { certFile: tlsFiles.cert } : {}),
    port: addr.port,
    tls: !!tls,
    refuseNew: () => {
      if (stopping) return;
      stopping = true;
      closing = new Promise<void>((resolve) => server.close(() => resolve()));
      (server as unknown as { closeIdleConnections?: () => void }).closeIdleConnections?.();
    },
    close: async (answerWaitMs = ANSWER_WAIT_MS) => {
      closing ??= new Promise<void>((resolve) => server.close(() => resolve()));
      stopping = true;
      // The answers of the work that ended while stopping go out first (in-flight.ts).
      await answers.written(answerWaitMs);
      (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      return closing;
    },
  };
}

/** The certificate and key, read now so a missing file is a start-up error naming it. */
function readTls(files: { cert: string; key: string }): { cert: Buffer; key: Buffer } {
  const read = (file: string, what: string) => {
    try {
      return readFileSync(file);
    } catch (err) {
      throw new Error(`server.tls.${what}: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { cause: err });
    }
  };
  return { cert: read(files.cert, "cert"), key: read(files.key, "key") };
}

function isWildcard(address: string): boolean {
  return address === "0.0.0.0" || address === "::" || address === "::ffff:0.0.0.0";
}

function bracket(address: string): string {
  return address.includes(":") ? `[${address}]` : address;
}

/**
 * Where people can reach a server bound to `address`: itself, or for a wildcard address the
 * machine's external addresses (IPv4 first), its name, then loopback.
 */
export function reachableHosts(address: string): string[] {
  if (!isWildcard(address)) return [address];
  const external = Object.values(networkInterfaces())
    .flatMap((list) => list ?? [])
    .filter((i) => !i.internal && !(i.family === "IPv6" && (i.scopeid ?? 0) !== 0) && (address !== "0.0.0.0" || i.family === "IPv4"))
    .sort((a, b) => Number(a.family === "IPv6") - Number(b.family === "IPv6"))
    .map((i) => i.address);
  const name = machineName();
  return [...new Set([...external, ...(name && !isLoopbackHost(name) ? [name] : []), "127.0.0.1"])];
}
