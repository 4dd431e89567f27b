/**
 * Sessions benchmark: 100 sessions, each running one shell call of 50 nested calls,
 * all at once in one process. Printed per store kind — SQLite on disk, SQLite in memory, and no
 * store at all — each measured in its own child process so memory numbers do not mix:
 * - throughput: nested calls per second of wall time (median of 3 rounds);
 * - p99 latency of a nested call (its `tool.nested_call` duration) and of a whole shell call;
 * - peak RSS per session: (peak RSS during the first round − RSS before it) / 100;
 * - the ratio disk / memory of the wall time and of this process's CPU time (and of each
 *   against no store); on a shared machine the CPU ratio is the steadier one.
 *
 * Run: `node --import tsx bench/sessions.bench.ts` (add `--sessions N --calls M` to change sizes).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createToolShell, defineTool } from "../src/index.js";
import type { SessionEvent, ToolShell } from "../src/runtime/index.js";
import { openHost, type Host } from "../src/server/index.js";

type Mode = "disk" | "memory" | "none";
const MODES: Mode[] = ["disk", "memory", "none"];
const ROUNDS = 5;
const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const SESSIONS = arg("sessions", 100);
const CALLS = arg("calls", 50);

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};
const median = (xs: number[]) => pct(xs, 50);

function statSafe(p: string): number | undefined {
  try {
    return statSync(p).size;
  } catch {
    return undefined;
  }
}

/** One ToolShell of a mode, with the durations of its nested calls. */
interface Rig {
  mode: Mode;
  shell: ToolShell;
  host?: Host;
  durations: number[];
  dir: string;
}

async function rig(mode: Mode): Promise<Rig> {
  const durations: number[] = [];
  const onEvent = (e: SessionEvent) => {
    if (e.type === "tool.nested_call") durations.push((e as { duration_ms: number }).duration_ms);
  };
  const tools = {
    work: defineTool({
      description: "Does a little async work and returns it.",
      hints: { destructive: false, openWorld: false },
      inputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
      execute: async ({ n }) => {
        await new Promise((r) => setImmediate(r));
        return { n, ok: true };
      },
    }),
  };
  const dir = mkdtempSync(path.join(tmpdir(), "toolshell-bench-sessions-"));
  if (mode === "none") return { mode, shell: await createToolShell({ tools, onEvent, callLimit: CALLS + 5 }), durations, dir };
  const host = await openHost({ tools, onEvent, callLimit: CALLS + 5, store: mode === "disk" ? path.join(dir, "state.db") : ":memory:" });
  return { mode, shell: host.shell, host, durations, dir };
}

const SCRIPT = () => `for i in $(seq 1 ${CALLS}); do tools work n=$i > /dev/null; done\necho done > out.txt`;

/** Runs `n` sessions at once, each one shell call of CALLS nested calls. */
async function round(r: Rig, tag: string, n: number): Promise<{ wall: number; cpu: number; shellMs: number[] }> {
  const shellMs: number[] = [];
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const s = r.shell.session(`${tag}-${i}`);
      const t = performance.now();
      const res = await s.bash(SCRIPT());
      shellMs.push(performance.now() - t);
      if (res.exit_code !== 0) throw new Error(`session ${tag}-${i} failed: ${res.stderr}`);
    }),
  );
  const c = process.cpuUsage(c0);
  return { wall: performance.now() - t0, cpu: (c.user + c.system) / 1000, shellMs };
}

async function close(r: Rig): Promise<void> {
  if (r.host) await r.host.close();
  else await r.shell.close();
  rmSync(r.dir, { recursive: true, force: true });
}

/** Child "timing": the three modes in one process, rounds interleaved so load changes hit all alike. */
type Timing = { wallMs: number[]; cpuMs: number[]; nestedP99Ms: number; shellP99Ms: number; dbBytes?: number };
async function timing(): Promise<Record<Mode, Timing>> {
  const rigs = await Promise.all(MODES.map(rig));
  for (const r of rigs) await round(r, "warm", 10);
  for (const r of rigs) r.durations.length = 0;
  const wall: Record<Mode, number[]> = { disk: [], memory: [], none: [] };
  const cpu: Record<Mode, number[]> = { disk: [], memory: [], none: [] };
  const shell: Record<Mode, number[]> = { disk: [], memory: [], none: [] };
  for (let k = 0; k < ROUNDS; k++) {
    // Rotate the order each round.
    for (let j = 0; j < rigs.length; j++) {
      const r = rigs[(j + k) % rigs.length];
      const { wall: w, cpu: c, shellMs } = await round(r, `r${k}`, SESSIONS);
      wall[r.mode].push(w);
      cpu[r.mode].push(c);
      shell[r.mode].push(...shellMs);
    }
  }
  const out = {} as Record<Mode, Timing>;
  for (const r of rigs) {
    if (r.durations.length !== ROUNDS * SESSIONS * CALLS) throw new Error(`${r.mode}: expected ${ROUNDS * SESSIONS * CALLS} nested-call events, saw ${r.durations.length}`);
    const db = path.join(r.dir, "state.db");
    out[r.mode] = {
      wallMs: wall[r.mode],
      cpuMs: cpu[r.mode],
      nestedP99Ms: pct(r.durations, 99),
      shellP99Ms: pct(shell[r.mode], 99),
      ...(r.mode === "disk" ? { dbBytes: (statSafe(db) ?? 0) + (statSafe(db + "-wal") ?? 0) } : {}),
    };
  }
  for (const r of rigs) await close(r);
  return out;
}

/** Child "rss:<mode>": the peak RSS one round of SESSIONS sessions adds, per session. */
async function rss(mode: Mode): Promise<number> {
  const r = await rig(mode);
  await round(r, "warm", 10);
  global.gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  await round(r, "r", SESSIONS);
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  await close(r);
  return (peak - before) / 1024 / SESSIONS;
}

function runChild(what: string): unknown {
  const self = fileURLToPath(import.meta.url);
  const r = spawnSync(process.execPath, ["--expose-gc", "--import", "tsx", self, "--child", what, "--sessions", String(SESSIONS), "--calls", String(CALLS)], { encoding: "utf8", maxBuffer: 1 << 24 });
  if (r.status !== 0) {
    process.stderr.write(r.stderr);
    process.exit(1);
  }
  return JSON.parse(r.stdout.trim().split("\n").pop()!);
}

const ci = process.argv.indexOf("--child");
if (ci > 0) {
  const what = process.argv[ci + 1];
  const result = what === "timing" ? await timing() : await rss(what.replace(/^rss:/, "") as Mode);
  process.stdout.write(JSON.stringify(result) + "\n");
} else {
  const t = runChild("timing") as Awaited<ReturnType<typeof timing>>;
  const mem = Object.fromEntries(MODES.map((m) => [m, runChild(`rss:${m}`) as number])) as Record<Mode, number>;
  console.log(`${SESSIONS} sessions × ${CALLS} nested calls, all at once, one process; median of ${ROUNDS} interleaved rounds (node ${process.version})`);
  console.log("store            calls/s   wall ms   CPU ms   nested p99 ms   shell-call p99 ms   peak RSS/session");
  for (const mode of MODES) {
    const r = t[mode];
    const name = mode === "disk" ? "SQLite on disk" : mode === "memory" ? "SQLite :memory:" : "no store";
    const w = median(r.wallMs);
    console.log(
      `${name.padEnd(16)} ${((SESSIONS * CALLS) / (w / 1000)).toFixed(0).padStart(7)}   ${w.toFixed(0).padStart(7)}   ${median(r.cpuMs).toFixed(0).padStart(6)}   ${r.nestedP99Ms.toFixed(2).padStart(13)}   ${r.shellP99Ms.toFixed(0).padStart(17)}   ${mem[mode].toFixed(0).padStart(11)} KiB`,
    );
  }
  const wall = (m: Mode) => median(t[m].wallMs);
  const cpuOf = (m: Mode) => median(t[m].cpuMs);
  console.log(`ratio disk / memory: wall ${(wall("disk") / wall("memory")).toFixed(2)}, CPU ${(cpuOf("disk") / cpuOf("memory")).toFixed(2)}`);
  console.log(`ratio to no store: disk wall ${(wall("disk") / wall("none")).toFixed(2)} CPU ${(cpuOf("disk") / cpuOf("none")).toFixed(2)}; memory wall ${(wall("memory") / wall("none")).toFixed(2)} CPU ${(cpuOf("memory") / cpuOf("none")).toFixed(2)}`);
  console.log("(wall time moves with other load on the machine; CPU time of this process much less)");
  if (t.disk.dbBytes) console.log(`store file after ${ROUNDS * SESSIONS + 10} sessions: ${(t.disk.dbBytes / 1024 / 1024).toFixed(1)} MiB (with WAL)`);
}
