/**
 * Watching a running host's config file and its local tool files: when the config changes
 * (debounced), it is loaded again and its servers and approval rules made those in force
 * (`ToolShell.setServers`, `ToolShell.reloadRules`); when a file in the tools folder changes, is
 * added or deleted, the local tools are loaded again (`ToolShell.reloadTools`). Each reload is
 * reported: what changed (a line on stderr), or why it was refused — a broken edit keeps the last
 * good config or tools (README "Changing servers while running"). A part of the config a running
 * host cannot take in (its API tokens and address, the store, the folders, limits, `keepVisible`,
 * the config's triggers: {@link NOT_RELOADED}) is reported when it differs from the file the
 * host started with: the host keeps the old value until it restarts (docs/security.md "A running
 * host acts on the settings in force").
 */
import { existsSync, watch, type FSWatcher } from "node:fs";
import path from "node:path";
import { loadConfig, type ToolshellConfig } from "../config/index.js";
import type { ToolShell } from "./toolshell.js";

/**
 * The config's parts a running host reads once, at start: changing them in the file takes effect
 * at the next start only. Everything else (`approval`, the servers, the tool files) reloads.
 */
export const NOT_RELOADED = ["server", "store", "storePool", "toolsDir", "skillsDir", "logDir", "callLimit", "timeoutMs", "maxOutputBytes", "maxSessionFileBytes", "keepVisible", "manageScripts", "rateUnlabeledTools", "triggers"] as const;

/** The config file's keys as written, for a report (`toolsDir` is written `tools`). */
const WRITTEN: Partial<Record<(typeof NOT_RELOADED)[number], string>> = { toolsDir: "tools", skillsDir: "skills" };

/** The parts of {@link NOT_RELOADED} that differ between `started` and `next`, as the file names them. */
export function notReloaded(started: ToolshellConfig, next: ToolshellConfig): string[] {
  return NOT_RELOADED.filter((k) => JSON.stringify(started[k] ?? null) !== JSON.stringify(next[k] ?? null)).map((k) => WRITTEN[k] ?? k);
}

/** A config file watch: the last error (empty after a good reload) and close. */
export interface ConfigWatch {
  /** Why the last reload was refused; empty when the file in force loaded cleanly. */
  errors(): string[];
  /** The config's parts changed in the file that the host cannot take in until it restarts. */
  notReloaded(): string[];
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
   * Receives the parts of the config changed in the file that need a restart (default: one line
   * on stderr naming them), after each reload where they differ from the file the host started with.
   */
  onNotReloaded?: (parts: string[]) => void;
  /**
   * Where the default receivers above say their line (default: stderr, `toolshell: LINE`); `serve`
   * also puts it in its log with the event's name (`config.reloaded`, `config.not_reloaded`,
   * `config.needs_restart`).
   */
  say?: (level: "info" | "warn", event: string, line: string) => void;
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
  const say = options.say ?? ((_level: string, _event: string, line: string) => void process.stderr.write(`toolshell: ${line}\n`));
  const report = options.onError ?? ((m: string) => say("warn", "config.not_reloaded", `config ${abs} not reloaded, the last good one is kept: ${m}`));
  const told = options.onReload ?? ((changed: string[]) => void (changed.length && say("info", "config.reloaded", `config ${abs} reloaded: ${changed.join(", ")} changed`)));
  const needsRestart =
    options.onNotReloaded ??
    ((parts: string[]) => say("warn", "config.needs_restart", `config ${abs}: ${parts.join(", ")} changed but cannot be reloaded by a running host; the old ${parts.length > 1 ? "values stay" : "value stays"} in force until it restarts`));
  // The file as the host started with it (not shell.config: options given in code or flags are over it).
  let started: ToolshellConfig | undefined;
  try {
    started = loadConfig({ config: abs, env: options.env });
  } catch {
    started = undefined;
  }
  let pendingParts: string[] = [];
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
      if (!started) started = config;
      pendingParts = notReloaded(started, config);
      if (pendingParts.length) needsRestart(pendingParts);
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
    notReloaded: () => [...pendingParts],
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
