/**
 * How the CLI finds a running `toolshell serve` of a config: while it runs, `serve` keeps a small
 * file beside the config, `.toolshell/serve.<config file name>.json`, with its process id and
 * URL (no token). A CLI command reads it, checks the process is alive, and calls the HTTP API
 * with a token from the same config (`server.tokens`, `TOOLSHELL_API_TOKEN(S)`).
 *
 * Rule source: README "The CLI"; docs/sessions.md → HTTP API (bearer tokens).
 */
import { lstatSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

/** What the file says. */
interface Announced {
  pid: number;
  url: string;
  config: string;
  started_at: string;
}

/** The file a `serve` of `configFile` keeps while it runs. */
export function serveFile(configFile: string): string {
  const full = path.resolve(configFile);
  return path.join(path.dirname(full), ".toolshell", `serve.${path.basename(full)}.json`);
}

/**
 * Says that this process serves `configFile` at `url` (mode 0600). @returns a function that takes
 * the file away again (only if it is still this process's). Never throws: a folder that cannot
 * be written only means the CLI will not find this host.
 */
export function announceServe(configFile: string, url: string): () => void {
  const file = serveFile(configFile);
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    const body: Announced = { pid: process.pid, url, config: path.resolve(configFile), started_at: new Date().toISOString() };
    writeFileSync(file, JSON.stringify(body) + "\n", { mode: 0o600 });
  } catch {
    return () => {};
  }
  return () => {
    try {
      if ((JSON.parse(readFileSync(file, "utf8")) as Announced).pid === process.pid) rmSync(file, { force: true });
    } catch {}
  };
}

/** A running host's HTTP API, reachable with a token of its config. */
export interface RunningHost {
  url: string;
  pid: number;
  /** Calls the API: the answer's status and JSON body. @throws Error when the host cannot be reached. */
  call(method: string, route: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }>;
}

/**
 * The `serve` running for `configFile`, or undefined when none runs (no file, or its process is
 * gone). `tokens` are the config's API tokens (the first is used).
 * @throws Error when a host runs but no token is known to call it, or when the file is not this
 *   user's own (another user's, or one others may write): the token is not sent where it says.
 */
export function runningServe(configFile: string, tokens: readonly string[]): RunningHost | undefined {
  let a: Announced;
  try {
    a = JSON.parse(readFileSync(serveFile(configFile), "utf8")) as Announced;
  } catch {
    return undefined;
  }
  if (typeof a.pid !== "number" || typeof a.url !== "string" || !alive(a.pid)) return undefined;
  // The token goes where the file says: only to a file this user wrote, that nobody else may
  // change (a `.toolshell/` someone else made, in a shared folder, would take the token).
  const file = serveFile(configFile);
  const st = lstatSync(file);
  const uid = process.getuid?.();
  if (!st.isFile() || (uid !== undefined && st.uid !== uid) || (st.mode & 0o022) !== 0) {
    throw new Error(`${file} says a toolshell serve runs at ${a.url}, but it is not a file of this user that only this user may change: the API token is not sent there (remove the file)`);
  }
  const token = tokens[0];
  if (!token) throw new Error(`a toolshell serve runs for this config at ${a.url} (pid ${a.pid}), but no API token is known here: set TOOLSHELL_API_TOKEN`);
  return {
    url: a.url,
    pid: a.pid,
    async call(method, route, body) {
      let res: Response;
      try {
        res = await fetch(a.url + route, {
          method,
          headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      } catch (err) {
        throw new Error(`the toolshell serve at ${a.url} (pid ${a.pid}) did not answer: ${(err as Error).message}`, { cause: err });
      }
      const text = await res.text();
      let json: Record<string, unknown> = {};
      try {
        json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
      } catch {}
      return { status: res.status, json };
    },
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
