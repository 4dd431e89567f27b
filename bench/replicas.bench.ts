/**
 * Replicas benchmark (docs/deployment.md → Sizing): 100 sessions, each one shell call of 50
 * nested calls, all at once over the HTTP API of real `toolshell serve` processes, in three
 * set-ups side by side in one run, rounds interleaved:
 * - **SQLite**: one replica on a SQLite file;
 * - **PG ×1**: one replica on PostgreSQL;
 * - **PG ×2**: two replicas on one PostgreSQL, sessions split between them (as a load balancer would).
 * Printed per set-up: nested calls per second (median round), p99 of a nested call (its
 * `tool.nested_call` duration), CPU time per nested call counting every process — the replicas
 * and their children (MCP servers, none here: the nested call is a local tool), and every
 * PostgreSQL process (/proc/<pid>/stat of the postmaster and its children) — and the replicas'
 * RSS growth per session over the first round. Then the ratios: PG ×1 / SQLite (goal ≥ 0.7) and
 * PG ×2 / PG ×1 (goal > 1). Not counted: this process (the client).
 *
 * PostgreSQL is a throwaway cluster started here (initdb from /usr/lib/postgresql/<v>/bin, on
 * 127.0.0.1 and a free port, fsync off as in the tests), removed at the end.
 *
 * Run: `npm run build && node --import tsx bench/replicas.bench.ts` (`--sessions N --calls M --rounds R`).
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const CLI = path.join(here, "..", "dist/cli/main.js");
const TOOLS = path.join(here, "fixtures/replicas/agent/tools");
const TOKEN = "bench-token-0123456789abcdef";
const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const SESSIONS = arg("sessions", 100);
const CALLS = arg("calls", 50);
const ROUNDS = arg("rounds", 3);
const TICK = 100; // clock ticks per second of /proc/<pid>/stat (CLK_TCK on Linux x86-64)

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
};

// ── processes ───────────────────────────────────────────────────────────────

function children(pid: number): number[] {
  const out: number[] = [];
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === pid) out.push(Number(d));
    } catch {}
  }
  return out;
}

/** `pid` and all its descendants. */
function tree(pid: number): number[] {
  const all = [pid];
  for (let i = 0; i < all.length; i++) all.push(...children(all[i]));
  return all;
}

/** CPU seconds (user + system) of the processes. */
function cpuSeconds(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks += Number(f[11]) + Number(f[12]); // utime, stime (fields 14 and 15)
    } catch {}
  }
  return ticks / TICK;
}

function rssKiB(pids: number[]): number {
  let kib = 0;
  for (const pid of pids) {
    try {
      kib += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
    } catch {}
  }
  return kib;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

// ── PostgreSQL ──────────────────────────────────────────────────────────────

interface Cluster {
  url(db: string): string;
  postmaster(): number;
  createDb(name: string): void;
  stop(): void;
}

async function startPostgres(dir: string): Promise<Cluster> {
  const root = "/usr/lib/postgresql";
  const v = readdirSync(root).filter((x) => existsSync(path.join(root, x, "bin/initdb"))).sort((a, b) => Number(b) - Number(a))[0];
  if (!v) throw new Error("no PostgreSQL under /usr/lib/postgresql (apt-get install -y postgresql)");
  const bin = path.join(root, v, "bin");
  const asRoot = userInfo().uid === 0;
  const run = (program: string, args: string[]) => {
    const r = asRoot ? spawnSync("runuser", ["-u", "postgres", "--", path.join(bin, program), ...args], { encoding: "utf8", cwd: dir }) : spawnSync(path.join(bin, program), args, { encoding: "utf8", cwd: dir });
    if (r.status !== 0) throw new Error(`${program} failed: ${r.stderr || r.stdout}`);
    return r.stdout;
  };
  if (asRoot) chownSync(dir, Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" })), Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" })));
  const data = path.join(dir, "data");
  run("initdb", ["-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"]);
  const port = await freePort();
  run("pg_ctl", ["-D", data, "-w", "-l", path.join(dir, "log"), "-o", `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300`, "start"]);
  const url = (db: string) => `postgres://postgres@127.0.0.1:${port}/${db}`;
  return {
    url,
    postmaster: () => Number(readFileSync(path.join(data, "postmaster.pid"), "utf8").split("\n")[0]),
    createDb: (name) => void run("psql", ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "-qc", `CREATE DATABASE ${name}`]),
    stop: () => {
      try {
        run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
      } catch {}
    },
  };
}

// ── replicas ────────────────────────────────────────────────────────────────

interface Replica {
  url: string;
  child: ChildProcess;
}

async function startReplica(config: string, cwd: string): Promise<Replica> {
  const child = spawn(process.execPath, [CLI, "serve", "--port", "0", "--no-triggers", "--config", config], { cwd, stdio: ["ignore", "ignore", "pipe"] });
  let err = "";
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on("data", (c: Buffer) => {
      err += c.toString();
      const m = /serving (http:\/\/127\.0\.0\.1:\d+)/.exec(err);
      if (m) resolve(m[1]);
    });
    child.once("exit", (code) => reject(new Error(`toolshell serve exited (${code}):\n${err}`)));
  });
  return { url, child };
}

async function call(r: Replica, method: string, p: string, body?: unknown): Promise<any> {
  const res = await fetch(r.url + p, { method, headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = await res.json();
  if (res.status >= 400) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** One set-up: its replicas, and the processes whose CPU it is charged. */
interface Setup {
  name: string;
  replicas: Replica[];
  pids(): number[];
  /** The PostgreSQL processes among them (none for SQLite). */
  dbPids(): number[];
  calls: number[];
  wall: number[];
  cpu: number[];
  dbCpu: number[];
  rssPerSession?: number;
}

const SCRIPT = `for i in $(seq 1 ${CALLS}); do tools work n=$i > /dev/null; done\necho done > out.txt`;

async function round(s: Setup, tag: string, n: number): Promise<void> {
  const ids = Array.from({ length: n }, (_, i) => `${tag}-${i}`);
  // Sessions are created first (not timed), each on the replica that will run it.
  await Promise.all(ids.map((id, i) => call(s.replicas[i % s.replicas.length], "POST", "/v1/sessions", { id })));
  const pids = s.pids();
  const rss0 = rssKiB(s.replicas.flatMap((r) => tree(r.child.pid!)));
  let rssPeak = rss0;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssKiB(s.replicas.flatMap((r) => tree(r.child.pid!))))), 50);
  const dbPids = s.dbPids();
  const cpu0 = cpuSeconds(pids);
  const db0 = cpuSeconds(dbPids);
  const t0 = performance.now();
  await Promise.all(
    ids.map(async (id, i) => {
      const res = await call(s.replicas[i % s.replicas.length], "POST", `/v1/sessions/${id}/bash`, { script: SCRIPT, timeout_ms: 600_000 });
      if (res.exit_code !== 0) throw new Error(`${s.name} ${id}: ${res.stderr}`);
    }),
  );
  const wall = performance.now() - t0;
  const cpu = cpuSeconds([...new Set([...pids, ...s.pids()])]) - cpu0;
  const dbCpu = cpuSeconds([...new Set([...dbPids, ...s.dbPids()])]) - db0;
  clearInterval(sampler);
  if (tag.endsWith("r0")) s.rssPerSession = (rssPeak - rss0) / n;
  if (tag.startsWith("warm")) return;
  s.wall.push(wall);
  s.cpu.push(cpu);
  s.dbCpu.push(dbCpu);
  // The nested calls' durations, from the events (not timed).
  for (let i = 0; i < ids.length; i++) {
    const ev = await call(s.replicas[i % s.replicas.length], "GET", `/v1/sessions/${ids[i]}/events?limit=10000`);
    for (const e of ev.events) if (e.type === "tool.nested_call") s.calls.push(e.duration_ms);
  }
}

async function main(): Promise<void> {
  if (!existsSync(CLI)) throw new Error("run `npm run build` first");
  const dir = mkdtempSync(path.join(tmpdir(), "toolshell-bench-replicas-"));
  // A folder of its own: the postgres user must reach it (mkdtemp folders are private).
  const pgDir = mkdtempSync(path.join(tmpdir(), "toolshell-bench-pg-"));
  const pg = await startPostgres(pgDir);
  const all: ChildProcess[] = [];
  try {
    pg.createDb("one");
    pg.createDb("two");
    const config = (name: string, store: string) => {
      const file = path.join(dir, `${name}.config.json`);
      writeFileSync(file, JSON.stringify({ store, tools: TOOLS, callLimit: CALLS + 5, server: { tokens: [TOKEN] } }));
      return file;
    };
    const pgPids = () => tree(pg.postmaster());
    const sqlite = await startReplica(config("sqlite", path.join(dir, "state.db")), dir);
    const one = await startReplica(config("one", pg.url("one")), dir);
    const twoConfig = config("two", pg.url("two"));
    const two = [await startReplica(twoConfig, dir), await startReplica(twoConfig, dir)];
    all.push(sqlite.child, one.child, ...two.map((r) => r.child));
    const mine = (rs: Replica[]) => rs.flatMap((r) => tree(r.child.pid!));
    const setups: Setup[] = [
      { name: "SQLite", replicas: [sqlite], pids: () => mine([sqlite]), dbPids: () => [], calls: [], wall: [], cpu: [], dbCpu: [] },
      { name: "PG ×1", replicas: [one], pids: () => [...mine([one]), ...pgPids()], dbPids: pgPids, calls: [], wall: [], cpu: [], dbCpu: [] },
      { name: "PG ×2", replicas: two, pids: () => [...mine(two), ...pgPids()], dbPids: pgPids, calls: [], wall: [], cpu: [], dbCpu: [] },
    ];
    for (const s of setups) await round(s, `warm-${s.name.replace(/\W/g, "")}`, 10);
    for (let k = 0; k < ROUNDS; k++) {
      // Rotate the order each round, so load changes hit all alike.
      for (let j = 0; j < setups.length; j++) {
        const s = setups[(j + k) % setups.length];
        await round(s, `${s.name.replace(/\W/g, "")}-r${k}`, SESSIONS);
      }
    }
    const total = SESSIONS * CALLS;
    const rate = (s: Setup) => total / (pct(s.wall, 50) / 1000);
    console.log(`${SESSIONS} sessions × ${CALLS} nested calls, all at once over HTTP; median of ${ROUNDS} interleaved rounds (node ${process.version})`);
    console.log("set-up    calls/s   nested p99 ms   CPU µs/call (all processes)   of it PostgreSQL   replica RSS/session");
    for (const s of setups) {
      const cpuPerCall = (pct(s.cpu, 50) / total) * 1e6;
      const dbPerCall = (pct(s.dbCpu, 50) / total) * 1e6;
      console.log(
        `${s.name.padEnd(8)} ${rate(s).toFixed(0).padStart(8)}   ${pct(s.calls, 99).toFixed(2).padStart(13)}   ${cpuPerCall.toFixed(0).padStart(27)}   ${dbPerCall.toFixed(0).padStart(16)}   ${(s.rssPerSession ?? 0).toFixed(0).padStart(15)} KiB`,
      );
    }
    const [lite, p1, p2] = setups;
    console.log(`ratio PG ×1 / SQLite calls/s: ${(rate(p1) / rate(lite)).toFixed(2)} (goal ≥ 0.70)`);
    console.log(`ratio PG ×2 / PG ×1 calls/s: ${(rate(p2) / rate(p1)).toFixed(2)} (goal > 1)`);
    console.log(`ratio CPU per call PG ×1 / SQLite: ${(pct(p1.cpu, 50) / pct(lite.cpu, 50)).toFixed(2)}; PG ×2 / PG ×1: ${(pct(p2.cpu, 50) / pct(p1.cpu, 50)).toFixed(2)}`);
    console.log("(calls/s moves with other load on the machine; CPU per call much less. Not counted: this client process.)");
  } finally {
    for (const c of all) c.kill("SIGTERM");
    await Promise.all(all.map((c) => (c.exitCode !== null ? undefined : new Promise((r) => c.once("exit", r)))));
    pg.stop();
    rmSync(dir, { recursive: true, force: true });
    rmSync(pgDir, { recursive: true, force: true });
  }
}

await main();
