/**
 * The MCP SDK's own console lines (`[mcp-sdk] …` warnings: a refresh token refused, a stored
 * credential without its issuer stamp, a tool excluded for its `x-mcp-header`) go to the log
 * file of the server they are about, never to the console: a script's output and the terminal
 * hold only what the script and toolshell say (README "MCP servers": server output goes to a
 * log file). The SDK has no option for them, so `console.warn` is filtered while toolshell's
 * work for a server runs ({@link withServerLog}); outside that work the filter passes every line
 * on, so an application that uses the SDK itself keeps its own warnings.
 */
import { contextSlot } from "../async/context.js";
import { format } from "node:util";
import type { ServerLog } from "./log.js";

/** How every console line of the SDK's v2 line starts. */
const SDK_PREFIX = "[mcp-sdk]";

const current = contextSlot<ServerLog>("toolshell.server-log");
let installed = false;

function install(): void {
  if (installed) return;
  installed = true;
  const warn = console.warn;
  console.warn = function (this: Console, ...args: unknown[]) {
    const log = current.get();
    if (log && typeof args[0] === "string" && args[0].startsWith(SDK_PREFIX)) return log.line(`sdk: ${format(...args).slice(SDK_PREFIX.length).trim()}`);
    return warn.apply(this, args);
  } as typeof console.warn;
}

/** Runs `fn` (SDK work for one server) with the SDK's console lines written to that server's `log`. */
export function withServerLog<T>(log: ServerLog, fn: () => T): T {
  install();
  return current.run(log, fn);
}
