/**
 * `toolshell daemon status|stop` (and `serve`, which the CLI itself starts): the config's warm
 * host, found the same way a run finds it (README "The CLI").
 */
import { existsSync } from "node:fs";
import { resolveConfigFile } from "../config/locate.js";
import type { CommonOptions } from "./commands.js";
import { hostKey, hostsOf, idleSeconds, stopSocket, takeHostStore } from "./daemon-client.js";
import { terminalText } from "../display/show-input.js";

/** A line of `toolshell daemon`: paths and errors through the terminal escaping (docs/security.md "Text on the terminal"). */
const say = (stream: NodeJS.WriteStream, text: string) => stream.write(terminalText(text));

/**
 * Runs `toolshell daemon ACTION` and returns the exit code: 0 done (status: running), 1 status:
 * not running, 2 usage error (no config, unknown action). Prints what it found.
 */
export async function runDaemonCommand(action: string, idle: string | undefined, options: CommonOptions, afterPid?: string): Promise<number> {
  const configFile = resolveConfigFile({ flag: options.config });
  if (!configFile || !existsSync(configFile)) {
    say(process.stderr, `toolshell: ${options.config ? `config file not found: ${options.config}` : `no toolshell.config.json or .mcp.json in ${process.cwd()}`}\n`);
    return 2;
  }
  // `serve` is started by a run, which hands it the store through its environment, not argv.
  const key = hostKey(configFile, action === "serve" ? { ...options, store: takeHostStore() } : options);
  try {
    if (action === "serve") {
      const { serveDaemon } = await import("./daemon-host.js");
      await serveDaemon(key, idleSeconds({ ...options, daemonIdle: idle ?? options.daemonIdle }), afterPid ? Number(afterPid) : undefined);
      return 0;
    }
    if (action === "status") {
      const hosts = await hostsOf(key);
      if (hosts.length === 0) say(process.stdout, `not running (config ${key.config})\n`);
      for (const { status: st } of hosts) {
        const shaped = [st.workspace && `workspace ${st.workspace}`, st.store && `store ${st.store}`, st.timeout && `timeout ${st.timeout} ms`].filter(Boolean);
        say(process.stdout, `running: pid ${st.pid}, config ${st.config}${shaped.map((s) => `, ${s}`).join("")}, since ${st.startedAt}, ${st.served} runs served, exits after ${st.idleSeconds} s idle\n`);
      }
      // The `toolshell serve` replicas of this config on this machine, from their serve files
      // (cli/running.ts); a file whose process is gone (killed with SIGKILL) is removed.
      const { pruneServeFiles, servingProcesses } = await import("./running.js");
      for (const pid of pruneServeFiles(configFile)) say(process.stdout, `serve: pid ${pid} not running (its serve file was left behind: removed)\n`);
      const serves = servingProcesses(configFile);
      for (const p of serves) say(process.stdout, `serve: pid ${p.pid} at ${p.url}, since ${p.started_at}\n`);
      return hosts.length || serves.length ? 0 : 1;
    }
    if (action === "stop") {
      let stopped = 0;
      for (const { socket } of await hostsOf(key)) if (await stopSocket(socket)) stopped++;
      say(process.stdout, stopped === 0 ? "not running\n" : stopped === 1 ? "stopped\n" : `stopped ${stopped} hosts\n`);
      return 0;
    }
  } catch (e) {
    say(process.stderr, `toolshell: ${(e as Error).message}\n`);
    return 2;
  }
  say(process.stderr, `toolshell: unknown daemon action ${action} (status | stop)\n`);
  return 2;
}
