/**
 * How the CLI finds a running `toolshell serve` of a config: while it runs, each `serve` keeps a
 * small file beside the config, `.toolshell/serve.<config file name>.<pid>.json`, with its
 * process id and URL (no token), and writes the same to `.toolshell/serve.<config file name>.json`
 * (the one started last). A CLI command reads them, skips processes that are gone (a replica
 * killed with SIGKILL leaves its file), and calls the HTTP API of a live one with a token from the
 * same config (`server.tokens`, `TOOLSHELL_API_TOKEN(S)`). Replicas on other machines are listed
 * from the store (server/shared-state.ts).
 *
 * See README → The CLI; docs/sessions.md → HTTP API.
 */
import { X509Certificate } from "node:crypto";
import { lstatSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { request as httpsRequest } from "node:https";
import { checkServerIdentity, rootCertificates } from "node:tls";
import path from "node:path";
import { writePrivateFile } from "../config/index.js";

/** What the file says. */
interface Announced {
  pid: number;
  url: string;
  config: string;
  started_at: string;
  /** The PEM certificate an HTTPS serve presents: the CLI trusts it for this URL (pinned). */
  cert?: string;
}

/** The file a `serve` of `configFile` keeps while it runs. */
export function serveFile(configFile: string): string {
  const full = path.resolve(configFile);
  return path.join(path.dirname(full), ".toolshell", `serve.${path.basename(full)}.json`);
}

/** The serve files of `configFile`: the one started last first, then one per process. */
function serveFiles(configFile: string): string[] {
  const latest = serveFile(configFile);
  const prefix = path.basename(latest).replace(/\.json$/, ".");
  let names: string[] = [];
  try {
    names = readdirSync(path.dirname(latest)).filter((n) => n.startsWith(prefix) && /^\d+\.json$/.test(n.slice(prefix.length)));
  } catch {}
  return [latest, ...names.sort().map((n) => path.join(path.dirname(latest), n))];
}

/** The processes serving `configFile` on this machine now (one per live process, from their serve files). */
export function servingProcesses(configFile: string): Array<{ pid: number; url: string; started_at: string }> {
  const out = new Map<number, { pid: number; url: string; started_at: string }>();
  for (const f of serveFiles(configFile)) {
    try {
      const a = JSON.parse(readFileSync(f, "utf8")) as Announced;
      if (typeof a.pid === "number" && typeof a.url === "string" && alive(a.pid) && !out.has(a.pid)) out.set(a.pid, { pid: a.pid, url: a.url, started_at: String(a.started_at) });
    } catch {}
  }
  return [...out.values()];
}

/**
 * Removes the serve files of `configFile` whose process is gone (a replica killed with SIGKILL
 * leaves its file). The "latest" file (`serve.<config>.json`) of a gone process is rewritten to
 * name the live replica started last, when one runs, as a replica that stops does (announceServe).
 * @returns the process ids whose files were removed.
 */
export function pruneServeFiles(configFile: string): number[] {
  const pruned: number[] = [];
  const [latest, ...own] = serveFiles(configFile);
  for (const f of own) {
    try {
      const a = JSON.parse(readFileSync(f, "utf8")) as Announced;
      if (typeof a.pid !== "number" || alive(a.pid)) continue;
      rmSync(f, { force: true });
      if (!pruned.includes(a.pid)) pruned.push(a.pid);
    } catch {}
  }
  try {
    const a = JSON.parse(readFileSync(latest, "utf8")) as Announced;
    if (typeof a.pid !== "number" || !alive(a.pid)) {
      const next = servingProcesses(configFile).sort((x, y) => y.started_at.localeCompare(x.started_at))[0];
      if (next) writePrivateFile(latest, readFileSync(latest.replace(/\.json$/, `.${next.pid}.json`), "utf8"));
      else rmSync(latest, { force: true });
      if (typeof a.pid === "number" && !pruned.includes(a.pid)) pruned.push(a.pid);
    }
  } catch {}
  return pruned;
}

/**
 * Says that this process serves `configFile` at `url` (mode 0600). @returns a function that takes
 * the files away again (only if they are still this process's). Never throws: a folder that
 * cannot be written only means the CLI will not find this host.
 */
export function announceServe(configFile: string, url: string, cert?: string): () => void {
  const file = serveFile(configFile);
  const own = file.replace(/\.json$/, `.${process.pid}.json`);
  try {
    // Owner-only, as every local file toolshell keeps (config/private-files.ts).
    const body: Announced = { pid: process.pid, url, config: path.resolve(configFile), started_at: new Date().toISOString(), ...(cert ? { cert: path.resolve(cert) } : {}) };
    writePrivateFile(own, JSON.stringify(body) + "\n");
    writePrivateFile(file, JSON.stringify(body) + "\n");
  } catch {
    return () => {};
  }
  return () => {
    rmSync(own, { force: true });
    try {
      if ((JSON.parse(readFileSync(file, "utf8")) as Announced).pid !== process.pid) return;
      // Another replica of the config still runs here: the file names it instead.
      const other = servingProcesses(configFile).find((p) => p.pid !== process.pid);
      if (!other) rmSync(file, { force: true });
      else writePrivateFile(file, readFileSync(file.replace(/\.json$/, `.${other.pid}.json`), "utf8"));
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
 * gone). `tokens` are the config's API tokens (the first is used). Each replica of the config
 * writes its own serve file: a call goes to the first whose process is there and, when that one
 * does not answer (killed, its pid not yet reaped), to the next; `url` and `pid` name the one
 * that answered last.
 * @throws Error when a host runs but no token is known to call it, or when the file is not this
 *   user's own (another user's, or one others may write): the token is not sent where it says.
 */
export function runningServe(configFile: string, tokens: readonly string[]): RunningHost | undefined {
  const found: Announced[] = [];
  for (const f of serveFiles(configFile)) {
    let x: Announced;
    try {
      x = JSON.parse(readFileSync(f, "utf8")) as Announced;
    } catch {
      continue;
    }
    if (typeof x.pid !== "number" || typeof x.url !== "string" || !alive(x.pid)) continue;
    // The token goes where the file says: only to a file this user wrote, that nobody else may
    // change (a `.toolshell/` someone else made, in a shared folder, would take the token).
    const st = lstatSync(f);
    const uid = process.getuid?.();
    if (!st.isFile() || (uid !== undefined && st.uid !== uid) || (st.mode & 0o022) !== 0) {
      throw new Error(`${f} says a toolshell serve runs at ${x.url}, but it is not a file of this user that only this user may change: the API token is not sent there (remove the file)`);
    }
    found.push(x);
  }
  if (!found.length) return undefined;
  const token = tokens[0];
  if (!token) throw new Error(`a toolshell serve runs for this config at ${found[0].url} (pid ${found[0].pid}), but no API token is known here: set TOOLSHELL_API_TOKEN`);
  const host: RunningHost = {
    url: found[0].url,
    pid: found[0].pid,
    async call(method, route, body) {
      let first: Error | undefined;
      for (const at of found) {
        let res: { status: number; text: string };
        try {
          res = await request(at, method, route, { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) }, body === undefined ? undefined : JSON.stringify(body));
        } catch (err) {
          first ??= new Error(`the toolshell serve at ${at.url} (pid ${at.pid}) did not answer: ${reason(err, at)}`, { cause: err });
          // Only a refused connection goes on to the next replica: a request that may have
          // reached this one (a reset, a timeout) is not sent twice.
          if (((err as { cause?: NodeJS.ErrnoException }).cause ?? (err as NodeJS.ErrnoException))?.code === "ECONNREFUSED") continue;
          break;
        }
        host.url = at.url;
        host.pid = at.pid;
        let json: Record<string, unknown> = {};
        try {
          json = res.text ? (JSON.parse(res.text) as Record<string, unknown>) : {};
        } catch {}
        return { status: res.status, json };
      }
      throw first!;
    },
  };
  return host;
}

/**
 * One HTTP(S) request to the serve. Over HTTPS the certificate its serve file names is trusted
 * besides the usual roots, and a server presenting exactly that certificate is accepted under
 * any address (a self-signed certificate made for a name, reached here on loopback).
 */
async function request(a: Announced, method: string, route: string, headers: Record<string, string>, body?: string): Promise<{ status: number; text: string }> {
  const url = new URL(a.url + route);
  if (url.protocol !== "https:" || !a.cert) {
    const res = await fetch(url, { method, headers, body });
    return { status: res.status, text: await res.text() };
  }
  const pem = readFileSync(a.cert);
  const pinned = new X509Certificate(pem).fingerprint256;
  return await new Promise((resolve, reject) => {
    const req = httpsRequest(
      url,
      {
        method,
        headers,
        ca: [...rootCertificates, pem],
        checkServerIdentity: (host, cert) => (cert.fingerprint256 === pinned ? undefined : checkServerIdentity(host, cert)),
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** Why a request failed, with what to do when the cause is a certificate this machine does not trust. */
function reason(err: unknown, a: Announced): string {
  const cause = (err as { cause?: NodeJS.ErrnoException }).cause ?? (err as NodeJS.ErrnoException);
  const code = cause?.code ?? "";
  const message = cause?.message ?? String(err);
  if (/CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS/.test(code)) {
    const file = a.cert ?? "the certificate file";
    return `its TLS certificate is not trusted here (${code}: ${message}); a self-signed certificate is trusted when the serve file records it (serve --tls-cert), or give it to Node: NODE_EXTRA_CA_CERTS=${file}`;
  }
  return code ? `${message} (${code})` : message;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
