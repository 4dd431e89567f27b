/**
 * What each `toolshell` subcommand does. Kept apart from argument parsing so the work can be
 * tested and so start-up loads only what a command needs.
 *
 * See README → The CLI.
 */
import { terminalJson, terminalText } from "../display/show-input.js";
import { existsSync, fstatSync, readFileSync, statSync } from "node:fs";
import { userInfo } from "node:os";
import path from "node:path";
import type { AskedQuestion, Person } from "../call/index.js";
import type { ToolshellConfig } from "../config/index.js";
import { resolveConfigFile } from "../config/locate.js";
import { processTerminal } from "./terminal.js";
import { CliError } from "./cli-error.js";
import type { ApprovalRequest } from "../policy/index.js";
import type { StopReport } from "../runtime/index.js";
import type { Host, HostOptions } from "../server/host.js";

/** Options every subcommand shares. */
export interface CommonOptions {
  config?: string;
  workspace?: string;
  timeout?: string;
  /** The session to run in (default `cli`); its files, approvals and events persist in the store. */
  session?: string;
  /** The store file (default: config `store`, else `.toolshell/state.db` beside the config). */
  store?: string;
  /** false (`--no-daemon`): run in this process instead of the config's warm host. */
  daemon?: boolean;
  /** Seconds a warm host started by this run stays without requests before it exits. */
  daemonIdle?: string;
}

/** What one run prints and exits with, wherever it ran (this process or the warm host). */
export interface CliOutcome {
  stdout: string;
  stderr: string;
  code: number;
  /** Set when the run stopped for a person's approval (the stop report's `stopped`). */
  stopped?: NonNullable<StopReport["stopped"]>;
  /** The stop report as one JSON line, printed on stderr when no person is asked. */
  report?: string;
}

/** One parsed CLI invocation. */
export type CliRequest =
  | { kind: "exec"; script: string; options: CommonOptions; stdin?: string }
  | { kind: "run"; file: string; options: CommonOptions; stdin?: string }
  | { kind: "list"; tokens: boolean; options: CommonOptions }
  | { kind: "plan"; file: string; options: CommonOptions }
  | { kind: "approve"; requestId: string; decision: string; options: CommonOptions }
  | { kind: "approvals"; json: boolean; options: CommonOptions };

/** Exit code of a run that stopped for a person's approval (the stop report is on stderr). */
export const EXIT_NEEDS_APPROVAL = 3;
/** The session the CLI runs in by default; its files, approvals and events persist in the store. */
export const CLI_SESSION = "cli";

/** Exit code when the CLI itself fails (bad config, missing file). */
export const EXIT_USAGE = 2;

function write(stream: NodeJS.WriteStream, text: string): Promise<void> {
  return new Promise((resolve) => {
    if (!text) return resolve();
    stream.write(text, () => resolve());
  });
}

/**
 * Opens the host for a CLI invocation: the config, the SQLite store (default
 * `.toolshell/state.db` beside the config file, or in the working directory without one), the
 * compatibility commands and the shell's notes.
 * @throws Error with a message for the user.
 */
export async function openToolShell(options: CommonOptions, extra: Partial<HostOptions> = {}): Promise<Host> {
  const { openHost } = await import("../server/host.js");
  const { defaultEngineCommands, SHELL_NOTES } = await import("../shell/defaults.js");
  const { describeServerWait } = await import("../mcp/index.js");
  const configFile = resolveConfigFile({ flag: options.config });
  // Running without servers is allowed (local tools, saved scripts), but never silently.
  if (!configFile) process.stderr.write(terminalText(`toolshell: no toolshell.config.json or .mcp.json in ${process.cwd()}: no MCP servers (--config FILE or TOOLSHELL_CONFIG names one)\n`));
  let workspaceDir: string | undefined;
  if (options.workspace) {
    workspaceDir = path.resolve(options.workspace);
    if (!existsSync(workspaceDir) || !statSync(workspaceDir).isDirectory()) throw new Error(`workspace is not a folder: ${options.workspace}`);
  }
  const timeoutMs = options.timeout === undefined ? undefined : Number(options.timeout);
  if (timeoutMs !== undefined && (!Number.isInteger(timeoutMs) || timeoutMs <= 0)) throw new Error(`--timeout takes a whole number of milliseconds, got ${options.timeout}`);
  const host = await openHost({
    config: configFile,
    store: options.store,
    workspaceDir,
    timeoutMs,
    engineCommands: defaultEngineCommands(),
    helpFooter: SHELL_NOTES,
    onServerWait: (waiting) => process.stderr.write(terminalText(`toolshell: ${describeServerWait(waiting).replace(/\n/g, "\ntoolshell: ")}\n`)),
    ...extra,
  });
  process.stderr.write(terminalText(configNotes(host.config, "toolshell")));
  return host;
}

/** The config's notes (keys kept as written, …) as stderr lines, `<prefix>: <file>: note: …`. */
export function configNotes(config: Pick<ToolshellConfig, "file" | "notes">, prefix: string): string {
  return config.notes.map((n) => `${prefix}: ${config.file ?? "config"}: note: ${n}\n`).join("");
}

/** The script a request runs: its text, the file's, or stdin's (`-`). @throws Error for the user. */
export function readScript(req: CliRequest): string | undefined {
  if (req.kind === "exec") return req.script;
  if (req.kind === "run" || req.kind === "plan") {
    try {
      return req.file === "-" ? readFileSync(0, "utf8") : readFileSync(req.file, "utf8");
    } catch (err) {
      throw new Error(`cannot read script ${req.file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { cause: err });
    }
  }
  return undefined;
}

/** The most of the CLI's stdin a script is given. */
export const MAX_CLI_STDIN_BYTES = 64 * 1024 * 1024;

/**
 * The CLI's stdin, the script's stdin for `exec` and `run FILE`, when it is a pipe or a file
 * (`cmd | toolshell exec 'jq .'`, `< data.json`), as bash gives a script its stdin. A terminal,
 * /dev/null or a socket (what a parent process's `spawn` leaves open, which may never end) is
 * not read. The script starts once the pipe's writer closes it; past 2 s of waiting, `note` says
 * so. @throws Error past {@link MAX_CLI_STDIN_BYTES}.
 */
export async function pipedStdin(req: CliRequest, note: (text: string) => void): Promise<string | undefined> {
  if (req.kind !== "exec" && !(req.kind === "run" && req.file !== "-")) return undefined;
  let kind;
  try {
    kind = fstatSync(0);
  } catch {
    return undefined;
  }
  if (!kind.isFIFO() && !kind.isFile()) return undefined;
  const waiting = setTimeout(() => note("toolshell: the script starts when its stdin (a pipe) ends; `< /dev/null` gives it none\n"), 2000);
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
      total += chunk.length;
      if (total > MAX_CLI_STDIN_BYTES) throw new Error(`stdin is larger than ${MAX_CLI_STDIN_BYTES / 1024 / 1024} MiB: give the script a file to read instead`);
      chunks.push(chunk);
    }
    return Buffer.concat(chunks).toString("utf8");
  } finally {
    clearTimeout(waiting);
  }
}

/**
 * Does one request on an open host: the same work whether the host lives in this process or is
 * the warm host. Never prints. @throws Error for the user (unknown request id, …).
 */
export async function runOnHost(host: Host, req: CliRequest, script: string | undefined, person?: Person): Promise<CliOutcome> {
  const shell = host.shell;
  const sessionId = req.options.session ?? CLI_SESSION;
  // Approvals are found across the store's sessions; --session narrows (cli/approvals.ts).
  if (req.kind === "approvals") return { stdout: terminalText(await (await import("./approvals.js")).listApprovals(host, { session: req.options.session, json: req.json })), stderr: "", code: 0 };
  // A session the CLI opens records the user who runs it (ctx.session.auth.client).
  const cliSession = (id: string) => host.session(id, { client: `cli:${cliUser()}` });
  if (req.kind === "list") return { stdout: terminalText(shell.listing()), stderr: "", code: 0 };
  if (req.kind === "plan") {
    const { planScript } = await import("../policy/index.js");
    const session = cliSession(sessionId);
    // The session's catalog: its saved scripts are commands too, as inside a shell call.
    const { plan } = await planScript(script!, await session.freshCatalog(), shell.policy, { sessionId: session.id, sessionMetadata: session.metadata });
    return { stdout: terminalJson(JSON.stringify(plan, null, 2)) + "\n", stderr: "", code: 0 };
  }
  if (req.kind === "approve") {
    const { approveById } = await import("./approvals.js");
    const answered = await approveById(host, req.requestId, req.decision, { session: req.options.session }).catch((err: unknown) => {
      if (err instanceof CliError) return err;
      throw err;
    });
    // Not found is exit 1 (README "The CLI"); 2 stays for a config or store that could not be opened.
    if (answered instanceof CliError) return { stdout: "", stderr: terminalText(`toolshell: ${answered.message}\n`), code: answered.exitCode };
    const { showInput, showName } = await import("../display/show-input.js");
    const r = answered.answered;
    // An "always" answer covers the tool, not the input shown: it says so in the card's words.
    const what = answered.covers ? showName(answered.covers).text : `${showName(r.tool).text} ${showInput(r.input).text} (session ${showName(r.session_id).text})`;
    return { stdout: `${r.decision}: ${what}\n`, stderr: "", code: 0 };
  }
  const stdin = req.kind === "exec" || req.kind === "run" ? req.stdin : undefined;
  const result = await cliSession(sessionId).bash(script ?? "", { person, ...(stdin !== undefined ? { stdin } : {}) });
  const out: CliOutcome = { stdout: result.stdout, stderr: result.stderr, code: result.exit_code };
  const stopped = result.tools?.stopped;
  if (stopped?.reason === "needs_approval" && stopped.request_id) {
    out.code = EXIT_NEEDS_APPROVAL;
    out.stopped = stopped;
  }
  if (stopped) out.report = terminalJson(JSON.stringify({ tools: { ...result.tools, stdout: undefined, stderr: undefined } })) + "\n";
  return out;
}

/** How long a finished run waits for its host to close before it exits. */
export const CLOSE_BOUND_MS = 500;

/**
 * Runs one CLI request and exits with its code: the script's exit code for exec/run, 0 for
 * list, EXIT_NEEDS_APPROVAL when it stopped for approval, EXIT_USAGE when the CLI itself fails.
 * The work runs on the config's warm host (`daemon-client.ts`) when one runs; otherwise here (and
 * a host is started for the next run, unless `--no-daemon` is given or there is no config file).
 * The output and the exit code are the same either way. Never throws.
 */
export async function runCli(req: CliRequest): Promise<void> {
  let host: Host | undefined;
  let code: number;
  try {
    const script = readScript(req);
    const stdin = await pipedStdin(req, (text) => process.stderr.write(terminalText(text)));
    if (stdin !== undefined && (req.kind === "exec" || req.kind === "run")) req = { ...req, stdin };
    const configFile = resolveConfigFile({ flag: req.options.config });
    let outcome: CliOutcome;
    let answer: (requestId: string, decision: "allow" | "allow_always" | "reject" | "reject_always") => Promise<unknown>;
    let pending: (() => Promise<ApprovalRequest[]>) | undefined;
    // Progress lines on stderr; an upstream server's question asked on the terminal, if there is
    // one (person.ts, loaded only when asked or run here: a warm run loads no call pipeline).
    const terminal = processTerminal();
    const relay = { line: (text: string) => process.stderr.write(terminalText(`tools: ${text}\n`)), ...(terminal ? { ask: async (q: AskedQuestion) => (await import("./person.js")).askQuestion(q, terminal) } : {}) };
    // A script held before it started runs again once the person allowed every call (ask.ts).
    for (let round = 0; ; round++) {
      // A run that went in-process stays there (the warm host may still be starting).
      const warm = !host && req.options.daemon !== false && configFile ? await (await import("./daemon-client.js")).viaWarmHost(path.resolve(configFile), req, script, relay) : null;
      if (warm) {
        ({ outcome, answer } = warm);
      } else {
        // Listing and answering approvals read and write the store: the servers are not started
        // for it (their tools' descriptions then come from the servers already loaded only; a
        // trigger run the answer lets go on starts what it calls, as on demand).
        host ??= await openToolShell(req.options, req.kind === "approvals" || req.kind === "approve" ? { connect: false } : {});
        const h = host;
        outcome = await runOnHost(h, req, script, (await import("./person.js")).cliPerson(process.stderr, terminal));
        answer = async (id, decision) => h.session(req.options.session ?? CLI_SESSION).answer(id, decision, (await import("./ask.js")).cliActor());
        pending = () => h.session(req.options.session ?? CLI_SESSION).pendingApprovals();
      }
      code = outcome.code;
      const ask = outcome.stopped && process.stdin.isTTY && process.stderr.isTTY;
      await write(process.stdout, outcome.stdout);
      await write(process.stderr, outcome.stderr);
      // On a terminal the person is asked; otherwise the stop report is one JSON line on stderr.
      if (!ask && outcome.report) await write(process.stderr, outcome.report);
      if (!ask) break;
      const { askApproval } = await import("./ask.js");
      const allowed = await askApproval({ answer, pendingApprovals: pending }, outcome.stopped!);
      if (!allowed || !outcome.stopped!.before_start || round >= 20) break;
    }
  } catch (err) {
    await write(process.stderr, terminalText(`toolshell: ${err instanceof Error ? err.message : String(err)}\n`));
    code = EXIT_USAGE;
  } finally {
    // The output is out: a server still ending (one busy with a call the stop left running gets
    // the stdio grace, mcp/stdio.ts) holds the exit at most CLOSE_BOUND_MS; the transport's exit
    // hook then signals its process group.
    if (host) await Promise.race([host.close().catch(() => {}), new Promise((r) => setTimeout(r, CLOSE_BOUND_MS))]);
  }
  if (req.options.daemon !== false) await (await import("./daemon-client.js")).hostStarted();
  process.exit(code);
}

/** The name of the user running the CLI (for `ctx.session.auth`). */
function cliUser(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER ?? "user";
  }
}
