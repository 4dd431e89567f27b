/** `cwd` applies to the command look-up too: `"command": "./start.sh", "cwd": "server"` runs `server/start.sh` (a real server process). */
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { parseServersConfig, type StdioServerConfig } from "../../src/config/index.js";
import { McpServerSource } from "../../src/mcp/index.js";
import { NPM_SERVERS } from "../fixtures/mcp/index.js";
import { hostRedactor, tempDir } from "./helpers.js";

test('"command": "./start.sh" with "cwd": "server" runs server/start.sh, as spawn with that cwd does', async (t) => {
  const dir = tempDir("toolshell-cwd-");
  mkdirSync(path.join(dir, "server"));
  const script = path.join(dir, "server", "start.sh");
  // The script proves where it ran: the memory file lands in its working directory.
  writeFileSync(script, `#!/bin/sh\nMEMORY_FILE_PATH="$PWD/memory.jsonl" exec "${NPM_SERVERS.memory}"\n`);
  chmodSync(script, 0o755);
  const [config] = parseServersConfig({ mcpServers: { mem: { command: "./start.sh", cwd: "server" } } }, { baseDir: dir }) as StdioServerConfig[];
  assert.equal(config.command, script);
  assert.equal(config.cwd, path.join(dir, "server"));
  const source = new McpServerSource(config, { logDir: path.join(dir, "logs"), redactor: hostRedactor(config) });
  t.after(() => source.close());
  await source.load();
  assert.ok(source.tools().some((x) => x.name === "read_graph"));
});
