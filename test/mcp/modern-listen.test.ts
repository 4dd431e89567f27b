/**
 * On the 2026-07-28 era, change notifications arrive through `subscriptions/listen`: a real
 * 2026-only server built on the SDK's v2 line (test/fixtures/mcp/modern-server.ts) that adds a
 * tool is followed without a restart, over stdio and Streamable HTTP, as the 2025 era's
 * unsolicited `notifications/tools/list_changed` is (test/mcp/kit.test.ts).
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { tsxCommand } from "../fixtures/mcp/index.js";
import { call, closeAll, sourceFor } from "./helpers.js";

const MODERN_SERVER = path.join(path.dirname(fileURLToPath(import.meta.url)), "../fixtures/mcp/modern-server.ts");
const stops: Array<() => void> = [];
after(async () => {
  await closeAll();
  for (const stop of stops) stop();
});

async function httpUrl(): Promise<string> {
  const cmd = tsxCommand(MODERN_SERVER, ["--http"]);
  const child = spawn(cmd.command, cmd.args, { stdio: ["ignore", "pipe", "inherit"] });
  stops.push(() => child.kill());
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`modern server exited ${code}`)));
    child.stdout.on("data", (d: Buffer) => {
      const m = /listening (\S+)/.exec(String(d));
      if (m) resolve(m[1]);
    });
  });
}

for (const transport of ["stdio", "http"] as const) {
  test(`${transport}: a 2026 server's tool list change reaches the catalog through subscriptions/listen`, async () => {
    const source = sourceFor(`l-${transport}`, transport === "stdio" ? tsxCommand(MODERN_SERVER) : { url: await httpUrl() });
    await source.load();
    // The log file is written asynchronously: wait for the line.
    const listening = /MCP 2026-07-28[\s\S]*listening for tool list changes \(subscriptions\/listen\)/;
    for (let i = 0; i < 200 && !listening.test(readFileSync(source.logFile, "utf8")); i++) await new Promise((r) => setTimeout(r, 50));
    assert.match(readFileSync(source.logFile, "utf8"), listening);
    assert.equal(source.tools().some((t) => t.name === "late"), false);
    const changed = new Promise<string[]>((resolve) => source.onToolsChanged((tools) => resolve(tools.map((t) => t.name))));
    assert.equal((await call(source, "add_tool", { name: "late" })).text, "added late");
    assert.ok((await changed).includes("late"));
    assert.equal((await call(source, "late")).text, "late");
  });
}
