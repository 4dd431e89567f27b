/**
 * The CLI with three eager servers (everything, memory, filesystem), whole-process times side by
 * side in alternating rounds (medians):
 * - `toolshell exec 'tools everything echo message=hi'` on the warm host (goal: ≤ 2× `node -e 0`);
 * - the same as a first run (no host yet: it starts one) and with `--no-daemon` (every run
 *   starts the servers, as before the warm host); goal: the first run no slower than that;
 * - MCPorter's CLI on its keep-alive daemon: `mcporter call everything.echo message=hi`;
 * - a bare `node -e 0`.
 *
 * Run: `npm run build && node --import tsx bench/cli.bench.ts`
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { NPM_SERVERS } from "../test/fixtures/mcp/index.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const cli = path.join(root, "dist/cli/main.js");
const mcporter = path.join(root, "node_modules/mcporter/dist/cli.js");
if (!existsSync(cli)) throw new Error("run `npm run build` first");
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 11);

const dir = mkdtempSync(path.join(tmpdir(), "toolshell-cli-bench-"));
const env = { ...process.env, TOOLSHELL_DAEMON_DIR: path.join(dir, "sockets") };
const servers = {
  everything: { command: NPM_SERVERS.everything, args: ["stdio"] },
  memory: { command: NPM_SERVERS.memory, env: { MEMORY_FILE_PATH: path.join(dir, "memory.jsonl") } },
  filesystem: { command: NPM_SERVERS.filesystem, args: [dir] },
};
writeFileSync(path.join(dir, "toolshell.config.json"), JSON.stringify({ mcpServers: servers }));
writeFileSync(path.join(dir, "mcporter.json"), JSON.stringify({ mcpServers: Object.fromEntries(Object.entries(servers).map(([k, v]) => [k, { ...v, lifecycle: "keep-alive" }])) }));

function timed(args: string[], want?: string): number {
  const t = performance.now();
  const r = spawnSync(process.execPath, args, { cwd: dir, env, encoding: "utf8", timeout: 120_000 });
  const ms = performance.now() - t;
  if (r.status !== 0 || (want !== undefined && !r.stdout.includes(want))) throw new Error(`${args.join(" ")}: ${r.status} ${r.stdout} ${r.stderr}`);
  return ms;
}

const ECHO = ["exec", "tools everything echo message=hi"];
const MCPORTER = [mcporter, "--config", path.join(dir, "mcporter.json"), "call", "everything.echo", "message=hi"];
const sides: Record<string, () => number> = {
  "node -e 0": () => timed(["-e", "0"]),
  "toolshell exec, warm host": () => timed([cli, ...ECHO], "Echo: hi"),
  "mcporter call, keep-alive daemon": () => timed(MCPORTER, "Echo: hi"),
};
const cold: Record<string, () => number> = {
  "toolshell exec, first run (starts the host)": () => {
    timed([cli, "daemon", "stop"]);
    return timed([cli, ...ECHO], "Echo: hi");
  },
  "toolshell --no-daemon exec": () => timed([cli, "--no-daemon", ...ECHO], "Echo: hi"),
};

try {
  console.log(`# CLI — node ${process.version}, ${new Date().toISOString()}, three eager servers, medians of alternating rounds`);
  timed([cli, ...ECHO]);
  timed(MCPORTER);
  const warm: Record<string, number[]> = Object.fromEntries(Object.keys(sides).map((k) => [k, []]));
  for (let r = 0; r < ROUNDS + 1; r++) {
    for (const [k, run] of Object.entries(sides)) {
      const ms = run();
      if (r > 0) warm[k].push(ms);
    }
  }
  const coldT: Record<string, number[]> = Object.fromEntries(Object.keys(cold).map((k) => [k, []]));
  for (let r = 0; r < Math.max(3, Math.floor(ROUNDS / 3)); r++) for (const [k, run] of Object.entries(cold)) coldT[k].push(run());
  const base = median(warm["node -e 0"]);
  for (const [k, v] of [...Object.entries(warm), ...Object.entries(coldT)]) {
    console.log(`  ${k.padEnd(46)} ${median(v).toFixed(0).padStart(6)} ms   ${(median(v) / base).toFixed(2)}× node -e 0`);
  }
  const w = median(warm["toolshell exec, warm host"]);
  const first = median(coldT["toolshell exec, first run (starts the host)"]);
  const inproc = median(coldT["toolshell --no-daemon exec"]);
  console.log(`  warm host ${(w / base).toFixed(2)}× node -e 0 (goal ≤ 2×): ${w <= 2 * base ? "met" : "NOT met"}; ${(w / median(warm["mcporter call, keep-alive daemon"])).toFixed(2)}× mcporter's`);
  console.log(`  first run ${(first / inproc).toFixed(2)}× --no-daemon (goal: no slower): ${first <= inproc * 1.05 ? "met" : "NOT met"}`);
} finally {
  spawnSync(process.execPath, [cli, "daemon", "stop"], { cwd: dir, env });
  spawnSync(process.execPath, [mcporter, "--config", path.join(dir, "mcporter.json"), "daemon", "stop"], { cwd: dir, env });
  rmSync(dir, { recursive: true, force: true });
}
