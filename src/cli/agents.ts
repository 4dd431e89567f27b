/**
 * The agent-facing subcommands: `toolshell mcp` (the MCP gateway over stdio or Streamable HTTP,
 * with `--import` of other clients' servers), `toolshell check` (advisory findings, always exit
 * 0) and `toolshell list --tokens` (the size of what the model sees).
 *
 * See docs/agents.md → With an MCP client, `toolshell check`, What the model sees.
 */
import { existsSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { ToolShell, ToolShellOptions } from "../runtime/index.js";
import type { CommonOptions } from "./commands.js";
import { terminalText } from "../display/show-input.js";
import { drain, nextStopSignal } from "./graceful-stop.js";

/** Options of `toolshell mcp`. */
export interface McpCliOptions {
  /** Serve Streamable HTTP on this port (0 = any free port) instead of stdio. */
  http?: string;
  /** Host to bind with --http (default 127.0.0.1). */
  host?: string;
  /** With --http: MCP sessions kept at once. */
  maxSessions?: string;
  /** With --http: milliseconds after which an idle MCP session is closed. */
  sessionIdle?: string;
  /** Clients whose servers to import: claude-desktop, cursor, claude-code, vscode. */
  import?: string[];
  /** Write the config with the imported servers to this file and exit. */
  write?: string;
  /** The toolshell session id of a stdio client (default `mcp`). */
  session?: string;
  /** `--no-elicitation`: never ask through elicitation; use the approve tool. */
  elicitation?: boolean;
  /** `--no-approve-tool`: do not offer the approve tool to clients without elicitation. */
  approveTool?: boolean;
  /** The store file (default: the config's `store`, else `.toolshell/state.db` beside it). */
  store?: string;
}

/** Options of `toolshell check`. */
export interface CheckCliOptions {
  json?: boolean;
  /** `--no-load`: do not start servers that are not loaded. */
  load?: boolean;
  /** Token limit of one input schema. */
  schemaLimit?: string;
}

/**
 * Writes what `mcp`, `check` and `tokens` print — server names, tool descriptions, start-up
 * errors, imported entries — through the terminal escaping (`terminalText`, docs/security.md
 * "Text on the terminal"); JSON stays JSON (the escapes only occur inside its strings).
 */
function out(stream: NodeJS.WriteStream, text: string): Promise<void> {
  const shown = terminalText(text);
  return new Promise((resolve) => (shown ? stream.write(shown, () => resolve()) : resolve()));
}

/** Reads the config file's JSON as written (for merging). @throws Error naming the file. */
async function readRawConfig(file: string): Promise<Record<string, unknown>> {
  const { readConfigJson } = await import("../config/index.js");
  const json = readConfigJson(file);
  if (!json || typeof json !== "object" || Array.isArray(json)) throw new Error(`${path.resolve(file)}: (top level): expected a JSON object`);
  return json as Record<string, unknown>;
}

/** A ToolShell opened for a subcommand, and how to close it (and its store). */
export interface OpenedShell {
  shell: ToolShell;
  close(): Promise<void>;
  /** The host's store, when opened `durable`. */
  store?: import("../store/index.js").Store;
  /** Keeps a `durable` host current (Host.follow: its config file and the store's shared state). */
  follow?: (replica?: { kind: string; url: string }) => Promise<void>;
  /** Lines for the user (what was imported). */
  notes: string[];
  /** The config object when servers were imported (else the file is read as is). */
  config?: Record<string, unknown>;
  configFile?: string;
}

/**
 * Opens the ToolShell of a CLI invocation, optionally with servers imported from other clients.
 * With `durable`, it is the host of `toolshell serve` (server/'s openHost): a store (config
 * `store`, default `.toolshell/state.db` beside the config, or `storeFile`) keeps sessions,
 * approvals and ratings, and saved scripts are a source.
 * @throws Error with a message for the user (bad config, missing file, unknown client).
 */
export async function openAgentShell(common: CommonOptions, imports: string[] = [], options: { durable?: boolean; storeFile?: string; connect?: boolean } = {}): Promise<OpenedShell> {
  const { createToolShell } = await import("../runtime/index.js");
  type Opened = { shell: ToolShell; close(): Promise<void>; store?: import("../store/index.js").Store; follow?: OpenedShell["follow"] };
  const open = async (o: Omit<ToolShellOptions, "store">): Promise<Opened> => {
    if (!options.durable) {
      const shell = await createToolShell(o);
      return { shell, close: () => shell.close() };
    }
    const { openHost } = await import("../server/index.js");
    const host = await openHost({ ...o, ...(options.storeFile ? { store: options.storeFile } : {}) });
    return { shell: host.shell, close: () => host.close(), store: host.store, follow: (replica) => host.follow(replica) };
  };
  const { resolveConfigFile } = await import("../config/index.js");
  const configFile = resolveConfigFile({ flag: common.config });
  const { describeServerWait } = await import("../mcp/index.js");
  const base: Omit<ToolShellOptions, "config" | "store"> = {
    connect: options.connect,
    onServerWait: (waiting) => process.stderr.write(terminalText(`toolshell: ${describeServerWait(waiting).replace(/\n/g, "\ntoolshell: ")}\n`)),
  };
  if (common.workspace) {
    const dir = path.resolve(common.workspace);
    if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new Error(`workspace is not a folder: ${common.workspace}`);
    base.workspaceDir = dir;
  }
  if (common.timeout !== undefined) {
    const t = Number(common.timeout);
    if (!Number.isInteger(t) || t <= 0) throw new Error(`--timeout takes a whole number of milliseconds, got ${common.timeout}`);
    base.timeoutMs = t;
  }
  const withNotes = (o: Opened, notes: string[] = []) => ({ ...o, notes: [...notes, ...o.shell.config.notes.map((n) => `${o.shell.config.file ?? "config"}: note: ${n}`)] });
  if (imports.length === 0) return { ...withNotes(await open({ ...base, config: configFile })), configFile };
  const { clientConfigFiles, importClientServers, mergeImported } = await import("../gateway/index.js");
  // Read again at every start: the workspace must not hold them (docs/security.md "The workspace guard").
  base.importFiles = imports.flatMap((client) => clientConfigFiles(client).map((f) => f.file));
  let config: Record<string, unknown> = configFile ? await readRawConfig(configFile) : {};
  const notes: string[] = [];
  for (const client of imports) {
    const found = importClientServers(client);
    notes.push(...found.notes);
    const merged = mergeImported(config, found.servers);
    config = merged.config;
    if (merged.added.length) notes.push(`imported from ${client} (${found.files.join(", ")}): ${merged.added.join(", ")}`);
    if (merged.skipped.length) notes.push(`kept the config's own entry for: ${merged.skipped.join(", ")}`);
  }
  const baseDir = configFile ? path.dirname(path.resolve(configFile)) : process.cwd();
  return { ...withNotes(await open({ ...base, config, baseDir }), notes), config, configFile };
}

/**
 * `toolshell mcp`: serves the gateway until the client goes away (stdio) or the process is
 * stopped (HTTP), over the host of `toolshell serve` (store, saved scripts, stored approvals
 * and ratings). Nothing but MCP messages goes to stdout in stdio mode. Exit code 2 when it
 * cannot start; 0 after a clean end.
 */
export async function runMcp(opts: McpCliOptions, common: CommonOptions): Promise<void> {
  let opened: OpenedShell | undefined;
  try {
    // Each client was checked by the option's parser (src/cli/usage.ts).
    const imports = opts.import ?? [];
    if (opts.write) {
      if (imports.length === 0) throw new Error("--write needs --import <client>");
      opened = await openAgentShell(common, imports);
      // Relative paths keep naming what they named where the config was read (config/rebase.ts).
      const { rebaseConfig } = await import("../config/index.js");
      const written = rebaseConfig(opened.config ?? {}, opened.configFile ? path.dirname(path.resolve(opened.configFile)) : process.cwd(), path.dirname(path.resolve(opts.write)));
      writeFileSync(opts.write, JSON.stringify(written, null, 2) + "\n");
      await out(process.stderr, [...opened.notes, `wrote ${path.resolve(opts.write)}`].join("\n") + "\n");
      await opened.close();
      process.exit(0);
    }
    // The gateway answers `initialize` at once: servers start in the background and the client
    // is told when their tools are there (tools/list_changed, see createGatewayServer).
    opened = await openAgentShell(common, imports, { durable: true, storeFile: opts.store ?? (common as { store?: string }).store, connect: false });
    const shell = opened.shell;
    for (const n of opened.notes) await out(process.stderr, `toolshell mcp: ${n}\n`);
    const { serveHttp, serveStdio } = await import("../gateway/index.js");
    const { loadEagerSources, McpServerSource, describeServerWait } = await import("../mcp/index.js");
    const startServers = () =>
      void loadEagerSources(
        shell.sources.filter((s): s is InstanceType<typeof McpServerSource> => s instanceof McpServerSource),
        undefined,
        (waiting) => void out(process.stderr, `toolshell mcp: ${describeServerWait(waiting).replace(/\n/g, "\ntoolshell mcp: ")}\n`),
      );
    const gatewayOptions = { elicitation: opts.elicitation !== false, approveTool: opts.approveTool !== false, approveCommand: await approveCommand(common, opts.store ?? (common as { store?: string }).store) };
    if (opts.http !== undefined) {
      const port = Number(opts.http);
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--http takes a port number, got ${opts.http}`);
      const whole = (v: string | undefined, flag: string): number | undefined => {
        if (v === undefined) return undefined;
        const n = Number(v);
        if (!Number.isInteger(n) || n < 1) throw new Error(`${flag} takes a whole number ≥ 1, got ${v}`);
        return n;
      };
      const maxSessions = whole(opts.maxSessions, "--max-sessions");
      const sessionIdleMs = whole(opts.sessionIdle, "--session-idle");
      // The HTTP API's tokens (config `server.tokens`, TOOLSHELL_API_TOKEN(S)) guard the gateway too.
      const { parseServerConfig } = await import("../config/index.js");
      const { tokens, tokenNames, tokenRoles } = parseServerConfig(shell.config);
      // Never without a token, even on 127.0.0.1: every local user could run and approve calls.
      const { gatewayToken } = await import("./gateway-token.js");
      const made = tokens.length ? undefined : gatewayToken(shell.config.baseDir);
      if (made) tokens.push(made.token);
      // MCP sessions live in the store, so replicas on one database share them (docs/deployment.md).
      const running = await serveHttp(shell, { ...gatewayOptions, port, host: opts.host ?? "127.0.0.1", maxSessions, sessionIdleMs, tokens, tokenNames, tokenRoles, ...(opened.store ? { store: opened.store } : {}) });
      // The gateway follows its config file and the store like every host (Host.follow; README
      // "Changing servers while running"), listed as a live replica of the store.
      await opened.follow?.({ kind: "mcp", url: running.url });
      const how = made ? ` (Authorization: Bearer <the token in ${made.file}, readable by you only${made.created ? ", made now" : ""}>)` : " (Authorization: Bearer <token> required)";
      await out(process.stderr, `toolshell mcp: serving Streamable HTTP at ${running.url}${how}\n`);
      startServers();
      // The tool calls in flight end and are recorded before it closes (docs/deployment.md "Stopping a replica").
      void nextStopSignal().then(async () => {
        const waitMs = shell.config.timeoutMs + 5_000;
        await drain({ refuseNew: running.refuseNew, shell }, waitMs, (line) => void out(process.stderr, `toolshell mcp: stopping: ${line}\n`));
        await running.close().catch(() => {});
        await opened?.close().catch(() => {});
        process.exit(0);
      });
      return;
    }
    const running = await serveStdio(shell, { ...gatewayOptions, sessionId: opts.session });
    await opened.follow?.();
    startServers();
    await running.closed;
    await running.close().catch(() => {});
    await opened.close().catch(() => {});
    process.exit(0);
  } catch (err) {
    await out(process.stderr, `toolshell mcp: ${err instanceof Error ? err.message : String(err)}\n`);
    await opened?.close().catch(() => {});
    process.exit(2);
  }
}

/** `toolshell check`: prints findings (text, or JSON with --json) and exits 0 whatever it finds. */
export async function runCheck(opts: CheckCliOptions, common: CommonOptions): Promise<void> {
  const { checkConfigError, checkStoreError, checkToolShell, renderFindings } = await import("../check/index.js");
  let opened: OpenedShell | undefined;
  let store: { ratings: import("../policy/index.js").RatingCache; close(): Promise<void> } | undefined;
  let findings;
  try {
    const limit = opts.schemaLimit === undefined ? undefined : Number(opts.schemaLimit);
    if (limit !== undefined && (!Number.isInteger(limit) || limit <= 0)) throw new Error(`--schema-limit takes a whole number of tokens, got ${opts.schemaLimit}`);
    opened = await openAgentShell(common);
    // Ratings already made are in the store (a file, or a database several processes share),
    // when one exists; check never creates one.
    const { openCliStore, storeMissing, storePath } = await import("./sessions.js");
    const location = await storePath(common);
    let unavailable;
    if (location !== ":memory:" && !storeMissing(location)) {
      try {
        store = await openCliStore(location);
      } catch (err) {
        unavailable = checkStoreError(err);
      }
    }
    findings = await checkToolShell(opened.shell, { load: opts.load !== false, schemaTokenLimit: limit, ratingCache: store?.ratings });
    if (unavailable) findings.unshift(unavailable);
    // Findings quote servers' start-up errors: secrets from the config are replaced there too.
    const redactor = opened.shell.redactor;
    if (redactor?.active) findings = redactor.value(findings);
  } catch (err) {
    let file: string | undefined;
    try {
      const { resolveConfigFile } = await import("../config/index.js");
      file = resolveConfigFile({ flag: common.config });
    } catch {}
    findings = [checkConfigError(file ?? common.config ?? "(no config file)", err)];
  } finally {
    await opened?.close().catch(() => {});
    await store?.close().catch(() => {});
  }
  await out(process.stdout, opts.json ? JSON.stringify(findings, null, 2) + "\n" : renderFindings(findings));
  process.exit(0);
}

/** `toolshell list --tokens`: the listing, then the size of the model's tool list in o200k tokens. */
export async function runListTokens(common: CommonOptions): Promise<void> {
  let opened: OpenedShell | undefined;
  let code = 0;
  try {
    opened = await openAgentShell(common);
    const shell = opened.shell;
    const { bashToolSpec, directTools, directToolName, toolListTokens, toolTokens } = await import("../surface/index.js");
    const bash = bashToolSpec(shell);
    const direct = directTools(shell).map((d) => ({ name: d.name, description: d.description, inputSchema: d.inputSchema }));
    const loaded = shell.sources.flatMap((s) => s.tools());
    const notLoaded = shell.sources.filter((s) => s.state() !== "ready").map((s) => s.name);
    const seen = toolListTokens([bash, ...direct]);
    const listed = toolListTokens(loaded.map((t) => ({ name: directToolName(t), description: t.description, inputSchema: t.inputSchema })));
    const lines = [
      shell.listing().trimEnd(),
      "",
      "Tokens (o200k_base; each tool as {type, name, description, parameters} JSON):",
      `  bash tool              ${toolTokens(bash)}  (description ${bash.description.length} characters)`,
      `  direct tools           ${direct.length ? `${toolListTokens(direct)}  (${direct.map((d) => `${d.name} ${toolTokens(d)}`).join(", ")})` : "0  (none)"}`,
      `  the model's tool list  ${seen}`,
      `  all ${loaded.length} loaded tools listed directly instead: ${listed}${listed > 0 ? `  (toolshell: ${savings(seen, listed)})` : ""}${notLoaded.length ? `; not loaded, not counted: ${notLoaded.join(", ")}` : ""}`,
    ];
    await out(process.stdout, lines.join("\n") + "\n");
  } catch (err) {
    await out(process.stderr, `toolshell: ${err instanceof Error ? err.message : String(err)}\n`);
    code = 2;
  } finally {
    await opened?.close().catch(() => {});
  }
  process.exit(code);
}

/**
 * How the model's tool list compares with listing every tool directly: "N% fewer", or, with few
 * tools (where the `bash` tool's own description outweighs them), "N% more".
 */
function savings(seen: number, listed: number): string {
  const pct = Math.round(Math.abs(1 - seen / listed) * 1000) / 10;
  return seen <= listed ? `${pct}% fewer` : `${pct}% more: with this few tools, listing them directly is smaller`;
}

/**
 * The command a person runs to answer this gateway's requests from any folder: `toolshell
 * approve` with this gateway's config file (and a store file given by flag) as absolute paths. A
 * store URL is not written out (it may hold a password): the config's `store`, or the person's
 * own `--store`, reaches it.
 */
async function approveCommand(common: CommonOptions, storeFlag: string | undefined): Promise<string> {
  const { resolveConfigFile } = await import("../config/index.js");
  const { isStoreUrl } = await import("../store/index.js");
  const { shellWord: quote } = await import("../shell/shell-word.js");
  const file = resolveConfigFile({ flag: common.config });
  const store = storeFlag && !isStoreUrl(storeFlag) ? storeFlag : undefined;
  return ["toolshell", ...(file ? ["--config", quote(path.resolve(file))] : []), ...(store ? ["--store", quote(path.resolve(store))] : []), "approve"].join(" ");
}
