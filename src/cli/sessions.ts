/**
 * `toolshell events SESSION [--json]` and `toolshell serve`.
 *
 *   toolshell events SESSION          the session's timeline: shell calls with their nested calls
 *                                     under them, approvals, saved scripts, trigger runs, steps
 *   toolshell events SESSION --json   the same events as JSON lines (one event per line, with seq)
 *   toolshell serve                   the HTTP API (and the triggers) until SIGINT/SIGTERM
 *
 * Both read the store named by the config (`store`, default `<config dir>/.toolshell/state.db`)
 * or `--store FILE`.
 *
 * See docs/sessions.md → Events, HTTP API.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { isPostgresUrl as isStoreUrl } from "../config/store-location.js";
import { terminalJson, terminalText } from "../display/show-input.js";
import { drain, nextStopSignal } from "./graceful-stop.js";
import { hostOf, isLoopbackHost } from "../server/reach.js";

/** Exit code when the session is unknown or the store is missing. */
export const EXIT_NOT_FOUND = 1;
/** Exit code when the CLI itself fails. */
const EXIT_USAGE = 2;

/** Options the sessions subcommands share with the rest of the CLI. */
export interface SessionsCliOptions {
  config?: string;
  workspace?: string;
  timeout?: string;
  store?: string;
}

function write(stream: NodeJS.WriteStream, text: string): Promise<void> {
  return new Promise((resolve) => (text ? stream.write(text, () => resolve()) : resolve()));
}

/**
 * The store file of a CLI invocation: `--store`, else the config's `store`, else
 * `.toolshell/state.db` beside the config (or in the working directory without one).
 * @throws Error when `--config` names a missing file or the config does not parse.
 */
export async function storePath(options: SessionsCliOptions): Promise<string> {
  if (options.store) return options.store === ":memory:" || isStoreUrl(options.store) ? options.store : path.resolve(options.store);
  const { readConfigFile, parseConfig, resolveConfigFile } = await import("../config/index.js");
  const { defaultStorePath } = await import("../server/index.js");
  const file = resolveConfigFile({ flag: options.config });
  const config = file ? readConfigFile(file) : parseConfig({}, { baseDir: process.cwd() });
  return defaultStorePath(config);
}

/**
 * True when `location` names a SQLite file that does not exist yet (nothing has run with this
 * config): `:memory:` and a `postgres://` URL are never missing on disk (docs/sessions.md "The store").
 */
export function storeMissing(location: string): boolean {
  return location !== ":memory:" && !isStoreUrl(location) && !existsSync(location);
}

/**
 * Opens the store at `location` (a SQLite file, `:memory:` or a `postgres://` URL) for a CLI command.
 * @throws Error naming the store when it cannot be opened — a URL without its password, as the
 *   store's own error already names it (docs/sessions.md "PostgreSQL").
 */
export async function openCliStore(location: string): Promise<import("../store/index.js").Store> {
  const { openStore } = await import("../store/index.js");
  try {
    return await openStore(location);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new Error(isStoreUrl(location) ? message : `cannot open the store ${location}: ${message}`, { cause: err });
  }
}

/**
 * Prints a session's events: the timeline, or JSON lines with `--json`; `after` skips events up
 * to that seq. Exit code 0, {@link EXIT_NOT_FOUND} when the store or session does not exist,
 * 2 on any other failure. Never throws.
 */
export async function runEvents(sessionId: string, o: { json?: boolean; after?: string; options: SessionsCliOptions }): Promise<number> {
  try {
    const file = await storePath(o.options);
    if (storeMissing(file)) {
      await write(process.stderr, `toolshell: no store at ${file} (nothing has run with this config yet)\n`);
      return EXIT_NOT_FOUND;
    }
    const after = o.after === undefined ? 0 : Number(o.after);
    if (!Number.isInteger(after) || after < 0) throw new Error(`--after takes a whole number (an event's seq), got ${o.after}`);
    const { renderTimeline } = await import("../store/index.js");
    const store = await openCliStore(file);
    try {
      // The change log (server/changes.ts) has events before anything opened it as a session.
      if (sessionId !== "changes" && !await store.getSession(sessionId)) {
        const known = (await store.listSessions({ limit: 10 })).map((s) => s.id);
        await write(process.stderr, `toolshell: no session ${sessionId} in ${store.location}${known.length ? ` (recent: ${known.join(", ")})` : ""}\n`);
        return EXIT_NOT_FOUND;
      }
      let cursor = after;
      const all = [];
      for (;;) {
        const page = await store.listEvents(sessionId, { after: cursor, limit: 5000 });
        if (!page.length) break;
        if (o.json) await write(process.stdout, terminalJson(page.map((e) => JSON.stringify(e)).join("\n")) + "\n");
        else all.push(...page);
        cursor = page[page.length - 1].seq;
      }
      if (!o.json) await write(process.stdout, terminalText(renderTimeline(all) || `(no events in session ${sessionId})\n`));
      return 0;
    } finally {
      await store.close().catch(() => {});
    }
  } catch (err) {
    await write(process.stderr, terminalText(`toolshell: ${err instanceof Error ? err.message : String(err)}\n`));
    return EXIT_USAGE;
  }
}

/**
 * Runs the HTTP API until SIGINT or SIGTERM: opens the host (config, store, MCP servers), starts
 * the triggers (unless `noTriggers`), listens. Prints the URL on stderr. Resolves with the exit
 * code once stopped (0), or 2 when it cannot start.
 */
export async function runServe(o: { host?: string; port?: string; noTriggers?: boolean; tlsCert?: string; tlsKey?: string; trustProxy?: boolean; logLevel?: string; options: SessionsCliOptions }): Promise<number> {
  const { openHost, startApi } = await import("../server/index.js");
  const { defaultEngineCommands, SHELL_NOTES } = await import("../shell/defaults.js");
  const { resolveConfigFile } = await import("../config/index.js");
  let host: Awaited<ReturnType<typeof openHost>> | undefined;
  try {
    const file = resolveConfigFile({ flag: o.options.config });
    const port = o.port === undefined ? undefined : Number(o.port);
    if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) throw new Error(`--port takes a port number, got ${o.port}`);
    const timeoutMs = o.options.timeout === undefined ? undefined : Number(o.options.timeout);
    if (timeoutMs !== undefined && (!Number.isInteger(timeoutMs) || timeoutMs <= 0)) throw new Error(`--timeout takes a whole number of milliseconds, got ${o.options.timeout}`);
    host = await openHost({
      config: file,
      store: o.options.store,
      workspaceDir: o.options.workspace ? path.resolve(o.options.workspace) : undefined,
      timeoutMs,
      engineCommands: defaultEngineCommands(),
      helpFooter: SHELL_NOTES,
    });
    const { configNotes } = await import("./commands.js");
    await write(process.stderr, configNotes(host.config, "toolshell"));
    if (!o.tlsCert !== !o.tlsKey) throw new Error("--tls-cert and --tls-key go together: give both");
    const { createLogger, eventLine, parseLogLevel } = await import("../server/log.js");
    const h = host;
    // Every line names the replica that wrote it (its heartbeat id, as the API's step holder and the
    // console's Servers page name it), once startApi has announced it.
    const log = createLogger(parseLogLevel(o.logLevel), { redact: (v) => h.shell.redactor.value(v), fields: () => (h.store.holder ? { replica: h.store.holder } : {}) });
    // Session events worth an operator's attention (approvals, trigger runs, changes, steps resumed or replayed on this replica).
    const unsubscribeEvents = host.subscribe((e) => {
      const line = eventLine(e);
      if (line) log.log(line.level, line.event, line.fields);
    });
    // What the host says of its config file and the store (reloads, servers changed elsewhere) is logged too.
    const unsubscribeNotes = host.onNote((n) => log.log(n.level, n.event, { message: n.message }));
    const unsubscribe = () => (unsubscribeEvents(), unsubscribeNotes());
    const tls = o.tlsCert && o.tlsKey ? { cert: path.resolve(o.tlsCert), key: path.resolve(o.tlsKey) } : undefined;
    const api = await startApi(host, { host: o.host, port, triggers: !o.noTriggers, log, ...(tls ? { tls } : {}), ...(o.trustProxy ? { trustProxy: true } : {}) });
    log.log("info", "serve.started", { pid: process.pid, url: api.localUrl, bound: api.url, urls: api.urls, tls: api.tls, store: host.store.location });
    // startApi made the host follow its config file and the store (Host.follow): servers added,
    // changed or removed there are seen by the next shell call of every session (README
    // "Changing servers while running"; docs/deployment.md).
    // `toolshell servers …` finds this host through a file beside the config (cli/running.ts).
    const { announceServe } = await import("./running.js");
    const unannounce = file ? announceServe(file, api.localUrl, api.certFile) : () => {};
    const { roleAt } = await import("../server/http.js");
    const operators = h.server.tokens.filter((_, i) => roleAt(i, h.server) === "operator").length;
    await write(process.stderr, serveBanner(api, host.store.location, o.trustProxy || host.server.trustProxy, operators));
    await nextStopSignal();
    log.log("info", "serve.stopping", { pid: process.pid, url: api.localUrl, running: h.shell.running });
    // The calls in flight end (by their time limit at the latest) and are recorded before the
    // host closes (docs/deployment.md "Stopping a replica").
    const waitMs = (timeoutMs ?? h.config.timeoutMs) + 5_000;
    const ended = await drain({ refuseNew: api.refuseNew, shell: h.shell, stopMore: () => h.stopTriggers() }, waitMs, (line, fields) => {
      log.log("info", "serve.draining", fields);
      void write(process.stderr, `toolshell: stopping: ${line}\n`);
    });
    unsubscribe();
    unannounce();
    // With calls still running (a second signal, or the wait ran out), their answers are not waited for.
    await api.close(ended === "idle" ? undefined : 0);
    // Named before the host lets its replica record go.
    const replica = h.store.holder;
    await host.close();
    log.log("info", "serve.stopped", { pid: process.pid, ended, ...(replica ? { replica } : {}) });
    // A script still running (a `sleep`, a loop) would hold the process until it ends: it stops now.
    if (ended !== "idle") process.exit(0);
    return 0;
  } catch (err) {
    await write(process.stderr, `toolshell: ${err instanceof Error ? err.message : String(err)}\n`);
    await host?.close();
    return EXIT_USAGE;
  }
}

/**
 * What `serve` says when it starts: where it listens, the console's address a person can open
 * (never a wildcard address), and a warning when a browser off loopback could not sign in
 * (plain HTTP with no TLS proxy believed; docs/deployment.md "TLS and the console").
 */
export function serveBanner(api: { url: string; urls: string[]; tls: boolean }, storeLocation: string, trustProxy: boolean, operators = 1): string {
  const open = api.urls[0] ?? api.url;
  const others = api.urls.slice(1).filter((u) => !isLoopbackHost(hostOf(new URL(u).host)));
  let out = `toolshell: serving ${api.url} (store ${storeLocation}); OpenAPI at ${open}/openapi.json\n`;
  out += `toolshell: console at ${open}/ (sign in with an API token)${others.length ? `; also ${others.map((u) => u + "/").join(", ")}` : ""}\n`;
  if (operators === 0) out += `toolshell: warning: no API token has the operator role, so nobody can sign in to the console; give one "role": "operator" in server.tokens (docs/security.md "Who acts for whom")\n`;
  if (!api.tls && !trustProxy && !isLoopbackHost(hostOf(new URL(api.url).host))) {
    out +=
      `toolshell: warning: listening off loopback over plain HTTP: browsers keep the console's sign-in cookie only over HTTPS or on localhost, so nobody can sign in at ${open}/, and tokens cross the network in clear. ` +
      `Serve HTTPS (--tls-cert/--tls-key or config server.tls) or put a TLS proxy in front (--trust-proxy or config server.trustProxy) (docs/deployment.md)\n`;
  }
  return out;
}
