/**
 * `toolshell servers …`: the config's MCP servers from the command line.
 *
 *   toolshell servers list                                   each server: state, tools, transport, load mode
 *   toolshell servers add NAME [-- COMMAND ARGS…] [--url URL] [--env K=V] [--header 'K: V'] [--load on_demand] [--no-trust] …
 *   toolshell servers update NAME [the same options]         changes the given fields of its entry
 *   toolshell servers remove NAME
 *
 * The config file is the record: every change is written to it (one entry set or removed, the
 * rest of the file kept as written) after the whole next file passes the checks of loading it.
 * When a `toolshell serve` of the config runs (found as cli/running.ts says), the change is made
 * there first through `/v1/servers`, so the host's own checks (a local tool of the same name, the
 * workspace) and its answer (loaded, failed, how many tools) come back here; if the host refuses,
 * nothing is written. Hosts that watch the file (`toolshell mcp`, `serve`) and the warm host (a
 * new fingerprint) follow the file.
 *
 * See README → Changing servers while running; docs/agents.md → Configuration.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import type { CommonOptions } from "./commands.js";
import { fail, jsonObject, print, table } from "./manage.js";
import { CliError } from "./cli-error.js";
import type { RunningHost } from "./running.js";

type Opts = { json?: boolean } & Record<string, unknown>;

/** One server as `toolshell servers list` shows it. */
export interface ServerRow {
  name: string;
  /** `loaded`, `not_loaded`, `failed`, `disabled` (from the running host), or `configured` with no host running. */
  state: string;
  tools?: number;
  message?: string;
  type: string;
  load: string;
  trust?: boolean;
  /** Where it is: in the config file, in the running host, or both. */
  in_config: boolean;
  in_host: boolean;
}

/**
 * The config, its file, the running host (if any). A reader (`readOnly`) that cannot reach a
 * running serve (no API token known here, a serve file of another user) goes on without it and
 * gets the reason as `note`; a change cannot, as the serve would not hear it.
 * @throws CliError `unavailable` without a config file.
 */
async function open(common: CommonOptions, readOnly = false): Promise<{ file: string; host?: RunningHost; note?: string }> {
  const { loadConfig, parseServerConfig, resolveConfigFile } = await import("../config/index.js");
  let file: string | undefined;
  try {
    file = resolveConfigFile({ flag: common.config });
  } catch (err) {
    throw new CliError("unavailable", (err as Error).message);
  }
  if (!file) throw new CliError("unavailable", `no toolshell.config.json or .mcp.json in ${process.cwd()} (--config FILE names one)`);
  let tokens: string[] = [];
  try {
    // An operator's token first: changing servers needs one (docs/security.md "Who acts for whom").
    const { roleAt } = await import("../server/http.js");
    const server = parseServerConfig(loadConfig({ config: file }));
    tokens = [...server.tokens.filter((_, i) => roleAt(i, server) === "operator"), ...server.tokens.filter((_, i) => roleAt(i, server) !== "operator")];
  } catch {
    // A broken file is reported by the edit's own checks; only the host's token is missing here.
  }
  const { runningServe } = await import("./running.js");
  let host: RunningHost | undefined;
  try {
    host = runningServe(file, tokens);
  } catch (err) {
    if (readOnly) return { file, note: (err as Error).message };
    throw new CliError("unavailable", (err as Error).message);
  }
  return { file, host };
}

/** The API's error as a CliError (400 bad input, 404 not found, 409 conflict, else unavailable). */
function apiError(host: RunningHost, status: number, json: Record<string, unknown>): CliError {
  const message = (json.error as { message?: string } | undefined)?.message ?? `the host answered ${status}`;
  const code = status === 400 ? "invalid_input" : status === 404 ? "not_found" : status === 409 ? "conflict" : "unavailable";
  return new CliError(code, code === "unavailable" ? `the toolshell serve at ${host.url}: ${message}` : message);
}

async function hostServers(host: RunningHost): Promise<import("../server/index.js").ServerListing[]> {
  const r = await host.call("GET", "/v1/servers");
  if (r.status !== 200) throw apiError(host, r.status, r.json);
  return (r.json.servers ?? []) as import("../server/index.js").ServerListing[];
}

/**
 * The servers of the config's warm host (README "The CLI" → "The warm host"), when one runs for
 * the config as it is now; it is asked, never started. Undefined when none answers.
 */
async function warmServers(file: string, common: CommonOptions): Promise<NonNullable<import("./daemon-client.js").DaemonAnswer["servers"]> | undefined> {
  if (common.daemon === false) return undefined;
  const d = await import("./daemon-client.js");
  const key = d.hostKey(path.resolve(file), common);
  try {
    return (await d.request(d.hostPaths(key).socket, { kind: "servers", fingerprint: d.configFingerprint(key.config) })).servers;
  } catch {
    return undefined;
  }
}

/** Each server of the file and of the running host, file order first. */
async function rows(file: string, host: RunningHost | undefined, warm?: NonNullable<import("./daemon-client.js").DaemonAnswer["servers"]>): Promise<ServerRow[]> {
  const { loadConfig } = await import("../config/index.js");
  let config;
  try {
    config = loadConfig({ config: file });
  } catch (err) {
    throw new CliError("invalid_input", (err as Error).message);
  }
  const live = host ? await hostServers(host) : (warm?.list ?? []);
  const out: ServerRow[] = config.servers.map((s) => {
    const l = live.find((x) => x.name === s.name);
    const state = l?.state ?? (s.disabled ? "disabled" : "configured");
    return { name: s.name, state, ...(l?.tools === undefined ? {} : { tools: l.tools }), ...(l?.message ? { message: l.message } : {}), type: s.type, load: s.load, ...(s.trust === undefined ? {} : { trust: s.trust }), in_config: true, in_host: !!l };
  });
  for (const l of live) if (!out.some((r) => r.name === l.name)) out.push({ name: l.name, state: l.state, ...(l.tools === undefined ? {} : { tools: l.tools }), ...(l.message ? { message: l.message } : {}), type: l.type, load: l.load, ...(l.trust === undefined ? {} : { trust: l.trust }), in_config: false, in_host: true });
  return out;
}

type Replica = import("../server/shared-state.js").ReplicaInfo;

/**
 * The live replicas of the config's store (their heartbeats; server/shared-state.ts); empty when
 * the store cannot be opened (the server list is still shown).
 */
async function replicas(file: string, common: CommonOptions): Promise<Replica[]> {
  try {
    const { loadConfig } = await import("../config/index.js");
    const { defaultStorePath } = await import("../server/host.js");
    const { isStoreUrl, openStore } = await import("../store/index.js");
    const { liveReplicas } = await import("../server/shared-state.js");
    const { existsSync } = await import("node:fs");
    const config = loadConfig({ config: file });
    const location = (common as { store?: string }).store ?? defaultStorePath(config);
    // A store file nobody made yet has no replicas (and is not made here).
    if (!isStoreUrl(location) && !existsSync(location)) return [];
    const store = await openStore(location);
    try {
      return await liveReplicas(store);
    } finally {
      await store.close().catch(() => {});
    }
  } catch {
    return [];
  }
}

function render(list: ServerRow[], host: RunningHost | undefined, file: string, warm?: { pid: number }, noDaemon = false, unreached?: string): string {
  const head = host
    ? `Servers of ${file}, as the toolshell serve at ${host.url} (pid ${host.pid}) has them:\n`
    : unreached
      ? `Servers of ${file}, as ${warm ? `its warm host (pid ${warm.pid})` : "the file"} has them (${unreached}; servers added through the API or console are not listed):\n`
      : warm
      ? `Servers of ${file}, as its warm host (pid ${warm.pid}) has them:\n`
      : noDaemon
        ? `Servers of ${file} (no toolshell serve of it runs, and --no-daemon does not ask a warm host: states are those of the file):\n`
        : `Servers of ${file} (no toolshell serve or warm host of it runs: states are those of the file):\n`;
  if (!list.length) return head + "No MCP servers. Add one: toolshell servers add NAME -- COMMAND ARGS…\n";
  const where = (r: ServerRow) => (r.in_config && r.in_host) || (r.in_config && !host && !warm) ? "" : r.in_config ? "removed by API/console? update brings it back" : "host only (added by API or console)";
  const note = (r: ServerRow) => [r.message, r.trust === false ? "trust: false" : r.trust ? "trust: true" : undefined, where(r) || undefined].filter(Boolean).join("; ");
  return head + table(["NAME", "STATE", "TOOLS", "TRANSPORT", "LOAD", "NOTE"], list.map((r) => [r.name, r.state.replace("_", " "), r.tools === undefined ? "-" : String(r.tools), r.type, r.load.replace("_", "-"), note(r)]));
}

/** Why a running serve was not asked, as the list's heading says it. */
function reachNote(note: string): string {
  return note.replace(/: set TOOLSHELL_API_TOKEN$/, " (set TOOLSHELL_API_TOKEN to ask it)");
}

/** `K=V` (or `K: V` for headers) words as an object. @throws CliError naming the option. */
function pairs(words: unknown, option: string, sep: RegExp): Record<string, string> | undefined {
  if (!Array.isArray(words) || !words.length) return undefined;
  const out: Record<string, string> = {};
  for (const w of words as string[]) {
    const m = sep.exec(w);
    if (!m || m.index === 0) throw new CliError("invalid_input", `${option} takes NAME=VALUE${option === "--header" ? " or 'Name: value'" : ""}, got ${JSON.stringify(w)}`);
    out[w.slice(0, m.index).trim()] = w.slice(m.index + m[0].length);
  }
  return out;
}

/**
 * The command words as the config's folder reads them: a relative path typed here (it exists from
 * the current folder, not from the config's) is written relative to the config's folder, which is
 * where a host resolves it (docs/mcp.md). Other words stay as typed.
 */
function relativeTo(file: string, words: string[]): string[] {
  const dir = path.dirname(path.resolve(file));
  return words.map((w) => {
    if (path.isAbsolute(w) || !w.includes("/") || w.startsWith("-") || dir === process.cwd()) return w;
    const here = path.resolve(w);
    if (!existsSync(here) || existsSync(path.resolve(dir, w))) return w;
    const moved = path.relative(dir, here);
    process.stderr.write(`toolshell: ${w} is written as ${moved}: paths in the config are read from its folder (${dir})\n`);
    return moved;
  });
}

/** The entry the options describe, over `base` (the entry as written, for update). */
function entryOf(base: unknown, command: string[], o: Opts): Record<string, unknown> {
  const e: Record<string, unknown> = o.entry !== undefined ? jsonObject(o.entry as string, "--entry") : typeof base === "object" && base !== null && !Array.isArray(base) ? { ...(base as Record<string, unknown>) } : {};
  if (command.length) {
    e.command = command[0];
    e.args = command.slice(1);
    delete e.url;
  }
  if (o.url !== undefined) {
    e.url = o.url;
    if (!command.length) for (const k of ["command", "args", "env", "cwd"]) delete e[k];
  }
  if (o.transport !== undefined) e.type = o.transport;
  const env = pairs(o.env, "--env", /=/);
  if (env) e.env = { ...((e.env as object) ?? {}), ...env };
  const headers = pairs(o.header, "--header", /:\s*|=/);
  if (headers) e.headers = { ...((e.headers as object) ?? {}), ...headers };
  if (o.cwd !== undefined) e.cwd = o.cwd;
  if (o.load !== undefined) e.load = o.load;
  if (o.trust !== undefined) e.trust = o.trust;
  if (o.disabled) e.disabled = true;
  if (o.enabled) delete e.disabled;
  return e;
}

function said(r: ServerRow | undefined): string {
  if (!r) return "";
  if (r.state === "loaded") return `: loaded, ${r.tools} tools`;
  if (r.state === "failed") return `: failed (${r.message ?? "see its log"})`;
  return `: ${r.state.replace("_", " ")}`;
}

/**
 * Makes one change: checked edit of the file, then the running host (if any), then the file
 * written. Nothing is written when the host refuses; a host change undone when the write fails.
 */
async function change(common: CommonOptions, o: Opts, name: string, mode: "add" | "update" | "remove", command: string[] = []): Promise<void> {
  const { editServerEntry, readConfigServers, writeConfigText } = await import("../config/index.js");
  const { file, host } = await open(common);
  const written = readConfigServers(file).servers.find((s) => s.name === name);
  const live = host ? (await hostServers(host)).find((s) => s.name === name) : undefined;
  if (mode === "add" && (written || live)) throw new CliError("conflict", `server ${name} already exists${written ? ` in ${file}` : ` in the toolshell serve at ${host!.url}`}: use toolshell servers update`);
  if (mode !== "add" && !written && !live) throw new CliError("not_found", `no server named ${name} in ${file}${host ? " or its running host" : ""}${host ? "" : `; a server added through the API or console lives in the store: ${mode} it with a toolshell serve of this config running (this command, the console's Servers page or /v1/servers/${name})`}`);
  if (mode === "update" && !written && o.entry === undefined) throw new CliError("invalid_input", `server ${name} is only in the running host, not in ${file}: give its whole entry with --entry JSON`);
  const entry = mode === "remove" ? undefined : entryOf(written?.entry, o.cwd === undefined ? relativeTo(file, command) : command, o);
  if (entry && !Object.keys(entry).length) throw new CliError("invalid_input", `give the server's command (toolshell servers add ${name} -- COMMAND ARGS…), --url URL, or --entry JSON`);
  let edit: ReturnType<typeof editServerEntry> | undefined;
  try {
    if (written || entry) edit = editServerEntry(file, name, entry);
  } catch (err) {
    throw new CliError("invalid_input", (err as Error).message);
  }
  let after: ServerRow | undefined;
  let undo: (() => Promise<unknown>) | undefined;
  if (host && (entry !== undefined || live)) {
    const route = `/v1/servers/${encodeURIComponent(name)}`;
    const r = entry === undefined ? await host.call("DELETE", route) : live ? await host.call("PUT", route, { entry }) : await host.call("POST", "/v1/servers", { name, entry });
    if (r.status >= 300) throw apiError(host, r.status, r.json);
    if (entry) after = { ...(r.json as unknown as ServerRow), in_config: true, in_host: true };
    const before = written?.entry;
    undo = () => (!live ? host.call("DELETE", route) : before !== undefined ? (entry ? host.call("PUT", route, { entry: before }) : host.call("POST", "/v1/servers", { name, entry: before })) : Promise.resolve());
  }
  if (edit) {
    try {
      writeConfigText(file, edit.text);
    } catch (err) {
      await undo?.().catch(() => {});
      throw new CliError("unavailable", `${(err as Error).message}${host ? "; the running host's change was undone" : ""}`);
    }
  }
  const s = edit?.config.servers.find((x) => x.name === name);
  const verb = mode === "add" ? "Added" : mode === "update" ? "Changed" : "Removed";
  const where = edit ? `${mode === "remove" ? "from" : "in"} ${file}` : `(it was not in ${file})`;
  const hostSays = host ? `; the toolshell serve at ${host.url} ${mode === "remove" ? "ended it" : `has it${said(after)}`}` : "; no toolshell serve of this config runs: hosts that watch the file, and the next start, use it";
  const value = { name, action: mode, file, host: host?.url ?? null, server: after ?? (s ? { name, state: host ? "configured" : s.disabled ? "disabled" : "configured", type: s.type, load: s.load, in_config: true, in_host: false } : null) };
  await print(o, value, () => `${verb} server ${name}${s ? ` (${s.type}, ${s.load.replace("_", "-")})` : ""} ${where}${hostSays}.\n`);
}

const run = (o: Opts, fn: () => Promise<void>) =>
  fn().then(
    () => void (process.exitCode = 0),
    async (err: unknown) => void (process.exitCode = await fail(o, err)),
  );

/** The options of `add` and `update`. */
function entryOptions(c: Command): Command {
  const collect = (v: string, prev: string[] = []) => [...prev, v];
  return c
    .option("--url <url>", "an HTTP server's endpoint (Streamable HTTP, falling back to SSE)")
    .option("--transport <type>", "stdio | http | sse (default: stdio with a command, http with --url)")
    .option("--env <NAME=VALUE>", "stdio: an environment variable (repeat for more; ${VAR} expands)", collect)
    .option("--header <'Name: value'>", "HTTP: a header sent with every request (repeat for more)", collect)
    .option("--cwd <dir>", "stdio: its working folder, relative to the config's folder")
    .option("--load <mode>", "eager (started with the host) or on_demand (when a script first names it)")
    .option("--trust", 'take its tool annotations as given ("trust": true)')
    .option("--no-trust", 'the stricter reading of its annotations ("trust": false; README "Approvals")')
    .option("--disabled", "keep the entry but leave the server out")
    .option("--enabled", "with update: take a disabled server back in")
    .option("--entry <json>", "the whole entry as JSON (the options above change it)")
    .option("--json", "print JSON instead of sentences");
}

/** Registers `toolshell servers …` on the program; `common()` gives the shared options (--config, …). */
export function registerServersCommands(program: Command, common: () => CommonOptions): void {
  const servers = program.command("servers").description("the config's MCP servers: list, add, update, remove (a running toolshell serve follows at once)");

  servers
    .command("list")
    .description("each server: state, tool count, transport, load mode (live from a running toolshell serve of the config)")
    .option("--json", "print JSON")
    .action((o: Opts) =>
      run(o, async () => {
        const { file, host, note } = await open(common(), true);
        // Live states from a running serve, else from the warm host that CLI runs use.
        const warm = host ? undefined : await warmServers(file, common());
        const list = await rows(file, host, warm);
        const live = await replicas(file, common());
        const said = (r: Replica) => `  ${r.id}  ${r.url}  ${r.kind}, pid ${r.pid} on ${r.host}, started ${r.started_at}, seen ${Math.max(0, Math.round((Date.now() - Date.parse(r.seen_at)) / 1000))} s ago\n`;
        await print(o, { file, host: host?.url ?? null, ...(note ? { note } : {}), ...(warm ? { warm_host: { pid: warm.pid } } : {}), servers: list, replicas: live }, () => render(list, host, file, warm, common().daemon === false, note ? reachNote(note) : undefined) + (live.length ? `Live replicas on the store (${live.length}):\n${live.map(said).join("")}` : ""));
      }),
    );

  entryOptions(servers.command("add"))
    .description("add a server to the config (and to its running toolshell serve): toolshell servers add NAME -- COMMAND ARGS…, or --url URL")
    .argument("<name>", "the server's name (tools NAME …)")
    .argument("[command...]", "stdio: the command and its arguments (after --)")
    .action((name: string, command: string[], o: Opts) => run(o, () => change(common(), o, name, "add", command)));

  entryOptions(servers.command("update"))
    .description("change a server's entry: the options given replace those fields (a new command replaces command and args)")
    .argument("<name>", "the server's name")
    .argument("[command...]", "stdio: a new command and its arguments (after --)")
    .action((name: string, command: string[], o: Opts) => run(o, () => change(common(), o, name, "update", command)));

  servers
    .command("remove")
    .description("remove a server from the config (and end it in its running toolshell serve)")
    .argument("<name>", "the server's name")
    .option("--json", "print JSON")
    .action((name: string, o: Opts) => run(o, () => change(common(), o, name, "remove")));
}
