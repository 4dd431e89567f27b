/**
 * Foundation benchmarks, each measured side by side in one run:
 * 1. nested-call overhead: 1,000 `tools noop` vs 1,000 calls of a bare just-bash command calling
 *    the same function (goal: ratio ≤ 1.2, the whole call pipeline included);
 * 2. shell-call start: `session.bash('tools noop')` end to end, warm (goal: median ≤ 2 ms);
 * 3. MCP pass-through: 200 `tools everything echo` vs 200 direct SDK `callTool` on one
 *    connection (the old goal ≤ 1.10; README "Performance" now judges the added cost per call
 *    on a 5 ms tool, bench/peers.bench.ts);
 * 4. CLI cold start: `toolshell --no-daemon exec 'tools --help'` with three on-demand servers: no server
 *    process started; whole-process median (goal: ≤ 350 ms).
 *
 * Run: `npm run build && node --import tsx bench/foundation.bench.ts`
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { defineCommand } from "just-bash";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { Client } from "@modelcontextprotocol/client";
import { createToolShell, defineTool } from "../src/index.js";
import { defaultEngineCommands } from "../src/shell/index.js";
import { KIT_SERVER, NPM_SERVERS, tsxCommand } from "../test/fixtures/mcp/index.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (n: number, d = 2) => n.toFixed(d);

let calls = 0;
const work = () => {
  calls++;
  return "";
};

async function nestedCallOverhead(defenseInDepth: boolean): Promise<void> {
  const bare = defineCommand("barenoop", async () => ({ stdout: work(), stderr: "", exitCode: 0 }));
  const ts = await createToolShell({
    callLimit: 5000,
    tools: { noop: defineTool({ description: "Does nothing.", inputSchema: {}, hints: { readOnly: true }, execute: work }) },
    engineCommands: [...defaultEngineCommands(), bare],
    defenseInDepth,
  });
  const s = ts.session();
  const loop = (cmd: string) => `for i in $(seq 1 1000); do ${cmd}; done`;
  for (let i = 0; i < 5; i++) {
    await s.bash(loop("tools noop"));
    await s.bash(loop("barenoop"));
  }
  const viaTools: number[] = [];
  const viaBare: number[] = [];
  for (let i = 0; i < 21; i++) {
    let t = performance.now();
    const a = await s.bash(loop("tools noop"));
    viaTools.push(performance.now() - t);
    t = performance.now();
    const b = await s.bash(loop("barenoop"));
    viaBare.push(performance.now() - t);
    if (a.exit_code !== 0 || b.exit_code !== 0) throw new Error(`loop failed: ${a.stderr}${b.stderr}`);
  }
  const mt = median(viaTools);
  const mb = median(viaBare);
  // Rounds alternate, so each round's pair shares the machine's load: the median of the paired
  // ratios is steadier than the ratio of medians on a busy machine.
  const paired = median(viaTools.map((t, i) => t / viaBare[i]));
  console.log(
    `nested-call overhead${defenseInDepth ? " (defense-in-depth on)" : ""}: 1000 × tools noop ${fmt(mt, 1)} ms, 1000 × bare command ${fmt(mb, 1)} ms → ` +
      `ratio ${fmt(mt / mb)} (median of 21 paired rounds ${fmt(paired)}; goal ≤ 1.2); ${fmt((mt - mb) / 1000, 3)} ms added per call`,
  );
  await ts.close();
}

async function shellCallStart(): Promise<void> {
  const ts = await createToolShell({ tools: { noop: defineTool({ description: "Does nothing.", inputSchema: {}, hints: { readOnly: true }, execute: work }) } });
  const s = ts.session();
  for (let i = 0; i < 200; i++) await s.bash("tools noop");
  const times: number[] = [];
  for (let i = 0; i < 1000; i++) {
    const t = performance.now();
    await s.bash("tools noop");
    times.push(performance.now() - t);
  }
  const sorted = [...times].sort((a, b) => a - b);
  console.log(`shell-call start: session.bash('tools noop') warm, median ${fmt(median(times), 3)} ms, p90 ${fmt(sorted[Math.floor(sorted.length * 0.9)], 3)} ms over 1000 (goal median ≤ 2 ms)`);
  await ts.close();
}

async function mcpPassThrough(): Promise<void> {
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(new StdioClientTransport({ command: NPM_SERVERS.everything, args: ["stdio"], stderr: "ignore" }));
  // The same SDK call from a bare just-bash command: what the shell alone adds to an MCP call.
  const bare = defineCommand("bareecho", async () => {
    const r = (await client.callTool({ name: "echo", arguments: { message: "hi" } })) as { content: Array<{ text: string }> };
    return { stdout: r.content[0].text + "\n", stderr: "", exitCode: 0 };
  });
  const ts = await createToolShell({
    callLimit: 1000,
    engineCommands: [...defaultEngineCommands(), bare],
    config: { mcpServers: { everything: { command: NPM_SERVERS.everything, args: ["stdio"], trust: true } }, logDir: path.join(tmpdir(), "toolshell-bench-logs") },
  });
  const s = ts.session();
  const viaToolsScript = `for i in $(seq 1 200); do tools everything echo message=hi >/dev/null; done`;
  const viaBareScript = `for i in $(seq 1 200); do bareecho >/dev/null; done`;
  // The same loop around a builtin that makes no call: what the loop itself costs.
  const loopOnlyScript = `for i in $(seq 1 200); do true >/dev/null; done`;
  const direct = async () => {
    for (let i = 0; i < 200; i++) await client.callTool({ name: "echo", arguments: { message: "hi" } });
  };
  for (let i = 0; i < 3; i++) {
    await s.bash(viaToolsScript);
    await s.bash(viaBareScript);
    await s.bash(loopOnlyScript);
    await direct();
  }
  const viaTools: number[] = [];
  const viaBare: number[] = [];
  const loopOnly: number[] = [];
  const viaSdk: number[] = [];
  for (let i = 0; i < 15; i++) {
    let t = performance.now();
    const r = await s.bash(viaToolsScript);
    viaTools.push(performance.now() - t);
    if (r.exit_code !== 0) throw new Error(r.stderr);
    t = performance.now();
    await s.bash(viaBareScript);
    viaBare.push(performance.now() - t);
    t = performance.now();
    await s.bash(loopOnlyScript);
    loopOnly.push(performance.now() - t);
    t = performance.now();
    await direct();
    viaSdk.push(performance.now() - t);
  }
  const mt = median(viaTools);
  const mb = median(viaBare);
  const ml = median(loopOnly);
  const md = median(viaSdk);
  const paired = median(viaTools.map((t, i) => t / viaSdk[i]));
  console.log(
    `MCP pass-through: 200 × tools everything echo ${fmt(mt, 1)} ms, 200 × SDK callTool ${fmt(md, 1)} ms → ratio ${fmt(mt / md)} ` +
      `(median of 15 paired rounds ${fmt(paired)}; goal ≤ 1.10); the same SDK call from a bare just-bash command in the same loop ${fmt(mb, 1)} ms ` +
      `(${fmt(mb / md)}× direct) → toolshell's own share ${fmt(mt / mb)}; the loop around a builtin that makes no call (\`true\`) ${fmt(ml, 1)} ms`,
  );
  await client.close();
  await ts.close();
}

function cliColdStart(): void {
  const cli = path.join(root, "dist/cli/main.js");
  if (!existsSync(cli)) throw new Error("run `npm run build` first");
  const dir = mkdtempSync(path.join(tmpdir(), "toolshell-cold-"));
  const starts = path.join(dir, "starts.txt");
  writeFileSync(starts, "");
  const kit = tsxCommand(KIT_SERVER);
  const server = { ...kit, env: { FIXTURE_STARTS_FILE: starts }, load: "on_demand" };
  writeFileSync(path.join(dir, "toolshell.config.json"), JSON.stringify({ mcpServers: { one: server, two: server, three: server } }));
  const times: number[] = [];
  for (let i = 0; i < 12; i++) {
    const t = performance.now();
    const r = spawnSync(process.execPath, [cli, "--no-daemon", "exec", "tools --help"], { cwd: dir, encoding: "utf8" });
    times.push(performance.now() - t);
    if (r.status !== 0 || !r.stdout.includes("(not loaded)")) throw new Error(`cli failed: ${r.stderr}`);
  }
  const spawned = readFileSync(starts, "utf8").trim();
  const bare: number[] = [];
  for (let i = 0; i < 12; i++) {
    const t = performance.now();
    spawnSync(process.execPath, ["-e", ""]);
    bare.push(performance.now() - t);
  }
  console.log(`CLI cold start: toolshell exec 'tools --help' with 3 on-demand servers, median ${fmt(median(times), 0)} ms over 12 (goal ≤ 350 ms); bare \`node -e ""\` ${fmt(median(bare), 0)} ms; server processes started: ${spawned ? spawned.split("\n").length : 0}`);
}

console.log(`# foundation benchmarks — node ${process.version}, ${new Date().toISOString()}`);
await nestedCallOverhead(false);
await nestedCallOverhead(true);
await shellCallStart();
await mcpPassThrough();
cliColdStart();
void calls;
process.exit(0);
