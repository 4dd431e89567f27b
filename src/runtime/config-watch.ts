/**
 * Watching a running host's config file: when it changes (debounced), the file is loaded again
 * and the servers made those of the file (`ToolShell.setServers`). A broken edit is reported (a
 * line on stderr, and `errors()`), and the last good config is kept (README "Changing servers
 * while running").
 */
import { watch, type FSWatcher } from "node:fs";
import path from "node:path";
import { loadConfig } from "../config/index.js";
import type { ToolShell } from "./toolshell.js";

/** A config file watch: the last error (empty after a good reload) and close. */
export interface ConfigWatch {
  /** Why the last reload was refused; empty when the file in force loaded cleanly. */
  errors(): string[];
  /** Resolves when the reloads started so far are done (tests, shutdown). */
  settled(): Promise<void>;
  close(): void;
}

/**
 * Watches `file` (its folder, so an atomic rename is seen) and applies its servers to `shell`.
 * @param options.debounceMs wait after the last change (default 200); `onError` receives each
 *   refused reload (default: one line on stderr).
 */
export function watchConfigFile(shell: ToolShell, file: string, options: { debounceMs?: number; env?: Record<string, string | undefined>; onError?: (message: string) => void } = {}): ConfigWatch {
  const abs = path.resolve(file);
  let errors: string[] = [];
  let timer: NodeJS.Timeout | undefined;
  let waiting = false;
  let running: Promise<void> = Promise.resolve();
  const report = options.onError ?? ((m: string) => process.stderr.write(`toolshell: config ${abs} not reloaded, the last good one is kept: ${m}\n`));
  const reload = async () => {
    try {
      const config = loadConfig({ config: abs, env: options.env });
      await shell.setServers(config.servers);
      errors = [];
    } catch (err) {
      const message = shell.redactor.text(err instanceof Error ? err.message : String(err));
      errors = [message];
      report(message);
    }
  };
  const watcher: FSWatcher = watch(path.dirname(abs), (_event, name) => {
    if (name && path.basename(String(name)) !== path.basename(abs)) return;
    clearTimeout(timer);
    waiting = true;
    timer = setTimeout(() => {
      waiting = false;
      running = running.then(reload);
    }, options.debounceMs ?? 200);
  });
  watcher.on("error", (err) => report(err.message));
  return {
    errors: () => [...errors],
    settled: async () => {
      while (waiting) await new Promise((r) => setTimeout(r, 20));
      await running;
    },
    close: () => {
      clearTimeout(timer);
      watcher.close();
    },
  };
}
