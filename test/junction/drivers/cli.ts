/**
 * The CLI (README "The CLI"), built: `toolshell exec SCRIPT --session ID`, on the warm host or
 * with `--no-daemon`; a stop for approval exits 3 with the stop report as the last line of
 * stderr, the person answers with `toolshell approve ID DECISION`, and runs the script again.
 * Progress is printed on stderr (`tools: COMMAND: MESSAGE (n/total)`); a question is asked only
 * on a terminal, which these runs do not have, so it is declined and stderr says so.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import type { Decision } from "../../../src/index.js";
import { REPO_ROOT } from "../../fixtures/mcp/index.js";
import { approve } from "../../mcp/oauth-helpers.js";
import type { ListedEvent, Surface, Turn } from "../paths.js";
import type { World } from "../world.js";
import { waitingOn } from "./library.js";

export const CLI = path.join(REPO_ROOT, "dist/cli/main.js");

/** Runs the built CLI in the world's folder. Never rejects. */
export function cli(world: World, args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [CLI, "--config", world.config, ...args], { cwd: world.dir, env: { ...world.env, ...env } });
    let stdout = "";
    let stderr = "";
    p.stdout.on("data", (d) => (stdout += d));
    p.stderr.on("data", (d) => (stderr += d));
    p.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

/**
 * `toolshell auth SERVER --no-open` (README "Sign-in"): the person opens the URL it prints; it
 * ends once the redirect came back. Resolves with its output; rejects when it fails.
 */
export function cliAuth(world: World, server: string, flags: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [CLI, "--config", world.config, ...flags, "auth", server, "--no-open"], { cwd: world.dir, env: { ...world.env, ...env } });
    let stdout = "";
    let stderr = "";
    let opened: Promise<void> | undefined;
    p.stdout.on("data", (d) => {
      stdout += d;
      const url = /^\s+(http\S+\/authorize\?\S+)$/m.exec(stdout)?.[1];
      if (url && !opened) opened = approve(url).catch((err: unknown) => void (stderr += String(err)));
    });
    p.stderr.on("data", (d) => (stderr += d));
    p.on("close", (status) => {
      void Promise.resolve(opened).then(() => (status === 0 ? resolve(stdout) : reject(new Error(`toolshell auth ${server} exited ${status}: ${stdout}${stderr}`))));
    });
  });
}

/** The stop report on the last line of a CLI run's stderr, if any. */
function reportOf(stderr: string): unknown {
  try {
    return (JSON.parse(stderr.trim().split("\n").pop() ?? "") as { tools?: unknown }).tools;
  } catch {
    return undefined;
  }
}

export function cliSurface(world: World, session: string, flags: string[], env: NodeJS.ProcessEnv): Surface {
  const run = (script: string) => cli(world, [...flags, "--session", session, "exec", script], env);
  const pending = async () => JSON.parse((await cli(world, [...flags, "--session", session, "approvals", "--json"], env)).stdout || "[]") as unknown[];
  return {
    name: `CLI ${flags.join(" ") || "warm host"}`,
    async turn(script: string, decision: Decision): Promise<Turn> {
      let asked = 0;
      let r = await run(script);
      for (let i = 0; i < 2; i++) {
        const ids = r.status === 3 ? waitingOn(reportOf(r.stderr)) : [];
        if (!ids.length) break;
        asked++;
        for (const id of ids) {
          const a = await cli(world, [...flags, "approve", id, decision], env);
          if (a.status !== 0) throw new Error(`toolshell approve ${id} ${decision}: ${a.stderr}`);
        }
        if (decision.startsWith("reject")) break;
        r = await run(script);
      }
      return { asked, stdout: r.stdout, stderr: r.stderr, pending: (await pending()).length };
    },
    async events() {
      const r = await cli(world, [...flags, "events", session, "--json"], env);
      if (r.status !== 0) throw new Error(`toolshell events: ${r.stderr}`);
      return r.stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l) as ListedEvent);
    },
    signIn: {
      way: (server) => new RegExp(`connection_required.*run \`toolshell auth ${server}\``),
      async run(script, server) {
        const before = await run(script);
        await cliAuth(world, server, flags, env);
        return { before, offered: before.stderr + before.stdout, after: await run(script) };
      },
    },
    async progress(script) {
      const r = await run(script);
      const seen = r.stderr.split("\n").filter((l) => l.startsWith("tools: "));
      return { asked: 0, stdout: r.stdout, stderr: r.stderr, pending: (await pending()).length, seen };
    },
  };
}
