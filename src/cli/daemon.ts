/**
 * `toolshell daemon status|stop` (and `serve`, which the CLI itself starts): the config's warm
 * host, found the same way a run finds it (README "The CLI").
 */
import { existsSync } from "node:fs";
import { resolveConfigFile } from "../config/locate.js";
import type { CommonOptions } from "./commands.js";
import { hostKey, hostsOf, idleSeconds, stopSocket, takeHostStore } from "./daemon-client.js";

/**
 * Runs `toolshell daemon ACTION` and returns the exit code: 0 done (status: running), 1 status:
 * not running, 2 usage error (no config, unknown action). Prints what it found.
 */
export async function runDaemonCommand(action: string, idle: string | undefined, options: CommonOptions, afterPid?: string): Promise<number> {
  const configFile = resolveConfigFile({ flag: options.config });
  if (!configFile || !existsSync(configFile)) {
    process.stderr.write(`toolshell: ${options.config ? `config file not found: ${options.config}` : `no toolshell.config.json or .mcp.json in ${process.cwd()}`}\n`);
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
      if (hosts.length === 0) {
        process.stdout.write(`not running (config ${key.config})\n`);
        return 1;
      }
      for (const { status: st } of hosts) {
        const shaped = [st.workspace && `workspace ${st.workspace}`, st.store && `store ${st.store}`, st.timeout && `timeout ${st.timeout} ms`].filter(Boolean);
        process.stdout.write(`running: pid ${st.pid}, config ${st.config}${shaped.map((s) => `, ${s}`).join("")}, since ${st.startedAt}, ${st.served} runs served, exits after ${st.idleSeconds} s idle\n`);
      }
      return 0;
    }
    if (action === "stop") {
      let stopped = 0;
      for (const { socket } of await hostsOf(key)) if (await stopSocket(socket)) stopped++;
      process.stdout.write(stopped === 0 ? "not running\n" : stopped === 1 ? "stopped\n" : `stopped ${stopped} hosts\n`);
      return 0;
    }
  } catch (e) {
    process.stderr.write(`toolshell: ${(e as Error).message}\n`);
    return 2;
  }
  process.stderr.write(`toolshell: unknown daemon action ${action} (status | stop)\n`);
  return 2;
}
