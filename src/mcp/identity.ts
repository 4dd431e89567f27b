/**
 * The identity of an MCP server: what it runs (command, arguments, folder) or where it is (URL).
 * Approval answers for its tools are bound to it, so an answer given for one server never
 * covers a different server later configured under the same name (README "Approvals").
 */
import { createHash } from "node:crypto";
import type { ServerConfig } from "../config/index.js";

/** A short stable hash of what the server is: `stdio:` command, args and cwd, or the URL. Secrets (env, headers) are left out. */
export function serverIdentity(config: ServerConfig): string {
  const what = config.type === "stdio" ? JSON.stringify(["stdio", config.command, config.args, config.cwd]) : JSON.stringify([config.type, config.url]);
  return createHash("sha256").update(what).digest("hex").slice(0, 16);
}
