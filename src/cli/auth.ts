/**
 * `toolshell auth`: sign in to the MCP servers that use OAuth, list the sign-ins, sign out.
 *
 *   toolshell auth <server> [--principal P] [--no-open]   sign in (prints the URL, waits for the redirect)
 *   toolshell auth --list [--json]                         each server's state, expiry and scopes
 *   toolshell auth <server> --logout [--principal P]       forget a sign-in
 *
 * Tokens go to the store (`.toolshell/state.db`, created 0600), never to the terminal.
 *
 * See README → Sign-in; MCP spec 2025-11-25 "Authorization".
 */
import { spawn } from "node:child_process";
import path from "node:path";
import type { ServerConfig } from "../config/index.js";
import { resolveConfigFile } from "../config/locate.js";
import { DEFAULT_PRINCIPAL, type SignInStatus } from "../mcp/index.js";
import { terminalText } from "../display/show-input.js";
import { openToolShell, type CommonOptions } from "./commands.js";

// What an authorization server or an MCP server says (a URL, an error, a server's name) reaches
// the terminal only through the terminal escaping (docs/security.md "Text on the terminal").
const toOut = (text: string) => process.stdout.write(terminalText(text));
const toErr = (text: string) => process.stderr.write(terminalText(text));

/** Options of `toolshell auth`. */
export interface AuthCliOptions {
  list?: boolean;
  logout?: boolean;
  /** `--no-open` sets this to false. */
  open?: boolean;
  principal?: string;
  json?: boolean;
  /** Milliseconds to wait for the person (default 10 minutes). */
  wait?: string;
}

/** How long `toolshell auth <server>` waits for the redirect by default. */
export const SIGN_IN_WAIT_MS = 10 * 60_000;

/**
 * Runs `toolshell auth`. @returns the exit code: 0 done, 1 the sign-in failed or there was
 * nothing to forget, 2 bad usage (unknown server, no server given). Never throws.
 */
export async function runAuth(server: string | undefined, opts: AuthCliOptions, common: CommonOptions): Promise<number> {
  const principal = opts.principal ?? DEFAULT_PRINCIPAL;
  let host: Awaited<ReturnType<typeof openToolShell>> | undefined;
  try {
    host = await openToolShell(common, { connect: false });
    const { listSignIns } = await import("../mcp/auth/index.js");
    const oauth = host.shell.oauth;
    const servers = host.config.servers;
    if (opts.list) {
      const rows = await listSignIns(servers.filter((s) => !server || s.name === server), principal, oauth);
      toOut(opts.json ? JSON.stringify(rows, null, 2) + "\n" : table(rows));
      return 0;
    }
    if (!server) {
      toErr("toolshell auth: name a server (toolshell auth <server>), or --list\n");
      return 2;
    }
    const config = servers.find((s) => s.name === server);
    if (!config) {
      toErr(`toolshell auth: no MCP server "${server}" in the config (servers: ${servers.map((s) => s.name).join(", ") || "none"})\n`);
      return 2;
    }
    if (opts.logout) {
      const { signOut } = await import("../mcp/auth/index.js");
      const forgot = await signOut(server, principal, oauth);
      toOut(forgot ? `Signed out of ${server} (principal "${principal}"): its tokens are forgotten.\n` : `Not signed in to ${server} (principal "${principal}").\n`);
      return forgot ? 0 : 1;
    }
    const waitMs = opts.wait === undefined ? SIGN_IN_WAIT_MS : Number(opts.wait);
    if (!Number.isInteger(waitMs) || waitMs <= 0) {
      toErr(`toolshell auth: --wait takes a whole number of milliseconds, got ${opts.wait}\n`);
      return 2;
    }
    const { signIn } = await import("../mcp/auth/flow.js");
    const { ServerLog, logFileFor } = await import("../mcp/log.js");
    const log = new ServerLog(logFileFor(host.config.logDir, server), host.shell.redactor);
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort("wait"), waitMs);
    const onInt = () => stop.abort("interrupt");
    process.once("SIGINT", onInt);
    try {
      const status = await signIn(config, principal, oauth, {
        signal: stop.signal,
        log,
        onUrl: (url) => {
          toOut(`Sign in to ${server}${principal === DEFAULT_PRINCIPAL ? "" : ` as principal "${principal}"`} by opening:\n\n  ${url}\n\nWaiting for the authorization server's redirect (Ctrl-C stops)…\n`);
          if (opts.open !== false) openBrowser(url);
        },
      });
      toOut(`${describe(status)}\n`);
      return 0;
    } catch (err) {
      throw new Error(await advice(err, config, waitMs, stop.signal, common), { cause: err });
    } finally {
      clearTimeout(timer);
      process.off("SIGINT", onInt);
      await log.close();
    }
  } catch (err) {
    toErr(`toolshell auth: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  } finally {
    await host?.close().catch(() => {});
  }
}

/**
 * The message of a sign-in that failed, with what to do next where the CLI can tell: a redirect
 * port held by the warm host (stop it), a wait that ran out (start again, finish within the wait).
 */
async function advice(err: unknown, config: ServerConfig, waitMs: number, stopped: AbortSignal, common: CommonOptions): Promise<string> {
  const message = err instanceof Error ? err.message : String(err);
  const again = `toolshell auth ${config.name}`;
  if (stopped.aborted && stopped.reason === "wait") {
    return `no redirect from the authorization server within ${waitMs} ms (--wait ${waitMs}), so the sign-in to ${config.name} was stopped. Run \`${again}\` again, open the URL it prints and finish signing in within the wait (default 10 minutes; --wait MS sets it)`;
  }
  if (stopped.aborted) return `the sign-in to ${config.name} was stopped before the redirect came back. Run \`${again}\` to start again`;
  const port = config.type !== "stdio" && config.oauth ? config.oauth.callbackPort : undefined;
  if (port === undefined || !/EADDRINUSE/.test(message)) return message;
  const configFile = resolveConfigFile({ flag: common.config });
  const daemon = await import("./daemon-client.js");
  const warm = configFile && common.daemon !== false ? await daemon.hostStatus(daemon.hostKey(path.resolve(configFile), common)).catch(() => null) : null;
  return warm
    ? `the sign-in redirect port 127.0.0.1:${port} (oauth.callbackPort of "${config.name}") is held by this config's warm host (pid ${warm.pid}), which listens there for the sign-ins its calls start. Stop it with \`toolshell daemon stop\`, then run \`${again}\` again (the next call starts a new warm host, which uses the stored sign-in)`
    : `the sign-in redirect port 127.0.0.1:${port} (oauth.callbackPort of "${config.name}") is in use by another program (${message}). Stop what holds it (another \`toolshell serve\`, \`toolshell mcp\` or \`toolshell auth\` of this config), or set oauth.callbackPort to a free port the authorization server accepts, then run \`${again}\` again`;
}

/** One line saying who is signed in where, until when, with which scopes. */
export function describe(s: SignInStatus): string {
  const who = s.subject ? ` as ${s.subject}` : "";
  const as = s.principal === DEFAULT_PRINCIPAL ? "" : ` (principal "${s.principal}")`;
  const scopes = s.scopes?.length ? `; scopes: ${s.scopes.join(" ")}` : "";
  const until = s.expires_at ? `; the access token expires at ${s.expires_at}${s.refreshable ? " and is refreshed without asking" : ""}` : "";
  return `Signed in to ${s.server}${who}${as}${scopes}${until}.`;
}

function table(rows: SignInStatus[]): string {
  if (rows.length === 0) return "No configured MCP server signs in with OAuth.\n";
  const head = ["SERVER", "PRINCIPAL", "STATE", "WHO", "EXPIRES AT", "SCOPES"];
  const body = rows.map((r) => [r.server, r.principal, r.state, r.subject ?? "-", r.expires_at ?? "-", r.scopes?.join(" ") ?? "-"]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  return [head, ...body].map((cols) => cols.map((c, i) => (i === cols.length - 1 ? c : c.padEnd(widths[i]))).join("  ")).join("\n") + "\n";
}

/**
 * The command that opens `url` in a browser on `platform`, or undefined when none should run. The
 * URL comes from the authorization server's metadata (an MCP server's claim, not trusted): only
 * http(s) URLs are opened, and never through `cmd`, whose parser would run what follows an `&`
 * (every OAuth query has one) as a command (the mcp-remote CVE-2025-6514 class).
 */
export function browserCommand(url: string, platform: NodeJS.Platform = process.platform, env: NodeJS.ProcessEnv = process.env): string[] | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  if (u.protocol !== "https:" && u.protocol !== "http:") return undefined;
  const href = u.href;
  if (platform === "darwin") return ["open", href];
  if (platform === "win32") return ["rundll32", "url.dll,FileProtocolHandler", href];
  return env.DISPLAY || env.WAYLAND_DISPLAY ? ["xdg-open", href] : undefined;
}

/** Opens `url` in the person's browser when there is one (a desktop session); failures are ignored: the URL is printed. */
function openBrowser(url: string): void {
  const cmd = browserCommand(url);
  if (!cmd) return;
  try {
    const child = spawn(cmd[0], cmd.slice(1), { stdio: "ignore", detached: true });
    child.on("error", () => {});
    child.unref();
  } catch {}
}
