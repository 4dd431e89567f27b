/**
 * The token of `toolshell mcp --http` when the config sets none. An HTTP gateway on this machine
 * is a door every local user and process can knock on: without a token any of them could run
 * scripts and answer its approvals. So, as the MCP Inspector's proxy does, the gateway never
 * serves without one: when `server.tokens` / `TOOLSHELL_API_TOKEN(S)` give none, it makes a
 * random token once and keeps it in `.toolshell/mcp-http.token` beside the config (0600 in a
 * 0700 folder), the same one at every start, so a client is configured once.
 *
 * See docs/agents.md → With an MCP client; docs/security.md → Who acts for whom.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { isPrivateFile, MIN_TOKEN_LENGTH, writePrivateFile } from "../config/index.js";

/** Where the generated token of the gateway for a config in `baseDir` is kept. */
export function gatewayTokenFile(baseDir: string): string {
  return path.join(baseDir, ".toolshell", "mcp-http.token");
}

/**
 * The kept gateway token of `baseDir`, made (32 random bytes, base64url) when there is none.
 * A file another user could have written or can read is not trusted: a new token replaces it.
 * @throws Error when the file cannot be written.
 */
export function gatewayToken(baseDir: string): { token: string; file: string; created: boolean } {
  const file = gatewayTokenFile(baseDir);
  if (isPrivateFile(file)) {
    try {
      const kept = readFileSync(file, "utf8").trim();
      if (kept.length >= MIN_TOKEN_LENGTH && /^[\x21-\x7e]+$/.test(kept)) return { token: kept, file, created: false };
    } catch {}
  }
  const token = randomBytes(32).toString("base64url");
  writePrivateFile(file, token + "\n");
  return { token, file, created: true };
}
