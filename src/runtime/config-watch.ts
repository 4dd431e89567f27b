/**
 * Watching a running host's config file and its local tool files: when the config changes
 * (debounced), it is loaded again and its servers and approval rules made those in force
 * (`ToolShell.setServers`, `ToolShell.reloadRules`); when a file in the tools folder changes, is
 * added or deleted, the local tools are loaded again (`ToolShell.reloadTools`). Each reload is
 * reported: what changed (a line on stderr), or why it was refused — a broken edit keeps the last
 * good config or tools (README "Changing servers while running").
 */
import { existsSync, watch, type FSWatcher } from "node:fs";
import path from "node:path";
import { loadConfig, type ToolshellConfig } from "../config/index.js";
import type { ToolShell } from "./toolshell.js";

/** A config file watch: the last error (empty after a good reload) and close. */
export interface ConfigWatch {
  /** Why the last reload was refused; empty when the file in force loaded cleanly. */
  errors(): string[];
  /** Resolves when the reloads started so far are done (tests, shutdown). */
  settled(): Promise<void>;
  close(): void;
}

/** Options of {@link watchConfigFile}. */
export interface ConfigWatchOptions {
  /** Wait after the last change (default 200 ms). */
  debounceMs?: number;
  env?: Record<string, string | undefined>;
  /** Receives each refused reload (default: one line on stderr). */
  onError?: (message: string) => void;
  /** Receives what each reload changed, in words (default: one line on stderr when something changed). */
  onReload?: (changed: string[]) => void;
  /**
   * Applies a reloaded config (default: its servers and approval rules to the shell). A host on a
   * store passes its own, which keeps the servers set through the API (server/shared-state.ts).
   * @returns what changed, in words.
   */
  apply?: (config: ToolshellConfig) => Promise<string[]>;
}

/**
 * Watches `file` (its folder, so an atomic rename is seen) and the shell's tools folder, and
 * applies them to `shell` (see the file comment).
 */
export function watchConfigFile(shell: ToolShell, file: string, options: ConfigWatchOptions = {}): ConfigWatch {
  const abs = path.resolve(file);
  let errors: string[] = [];
  let timer: NodeJS.Timeout | undefined;
  let toolsTimer: NodeJS.Timeout | undefined;
  let waiting = 0;
  let running: Promise<void> = Promise.resolve();
  const report = options.onError ?? ((m: string) => process.stderr.write(`toolshell: config ${abs} not reloaded, the last good one is kept: ${m}\n`));
  const told = options.onReload ?? ((changed: string[]) => void (changed.length && process.stderr.write(`toolshell: config ${abs} reloaded: ${changed.join(", ")} changed\n`)));
  const apply =
    options.apply ??
    (async (config: ToolshellConfig) => {
      const said = shell.reloadRules(config);
      const before = JSON.stringify(shell.config.servers);
      await shell.setServers(config.servers);
      if (JSON.stringify(shell.config.servers) !== before) said.push("servers");
      return said;
    });
  const fail = (err: unknown) => {
    const message = shell.redactor.text(err instanceof Error ? err.message : String(err));
    errors = [message];
    report(message);
  };
  const reload = async () => {
    try {
      const config = loadConfig({ config: abs, env: options.env });
      const changed = await apply(config);
      errors = [];
      told(changed);
    } catch (err) {
      fail(err);
    }
  };
  const reloadTools = async () => {
    try {
      const changed = await shell.reloadTools();
      errors = [];
      told(changed.map((n) => `tool ${n}`));
    } catch (err) {
      fail(err);
    }
  };
  const later = (which: "config" | "tools") => {
    const t = which === "config" ? timer : toolsTimer;
    if (t) clearTimeout(t);
    else waiting++;
    const next = setTimeout(() => {
      if (which === "config") timer = undefined;
      else toolsTimer = undefined;
      waiting--;
      running = running.then(which === "config" ? reload : reloadTools);
    }, options.debounceMs ?? 200);
    if (which === "config") timer = next;
    else toolsTimer = next;
  };
  const watcher: FSWatcher = watch(path.dirname(abs), (_event, name) => {
    if (name && path.basename(String(name)) !== path.basename(abs)) return;
    later("config");
  });
  watcher.on("error", (err) => report(err.message));
  const toolsDir = shell.config.toolsDir;
  let toolsWatcher: FSWatcher | undefined;
  if (toolsDir && existsSync(toolsDir)) {
    try {
      toolsWatcher = watch(toolsDir, () => later("tools"));
      toolsWatcher.on("error", (err) => report(err.message));
    } catch (err) {
      report(`the tools folder ${toolsDir} is not watched: ${(err as Error).message}`);
    }
  }
  return {
    errors: () => [...errors],
    settled: async () => {
      while (waiting > 0) await new Promise((r) => setTimeout(r, 20));
      await running;
    },
    close: () => {
      clearTimeout(timer);
      clearTimeout(toolsTimer);
      watcher.close();
      toolsWatcher?.close();
    },
  };
}
