/**
 * jq per-call cost inside a shell loop:
 *   node --import tsx bench/jq.bench.ts [calls=1000] [memoryCalls=10000]
 * 1,000 calls of `jq -c '.items|map(.id)'` on a 50-item document in a `for` loop, once with
 * our jq (real jq 1.7.1, wasm in a worker) and once with just-bash's own jq, in the same
 * process. Prints the median per call (timed around the command itself), the loop's wall
 * time per call (shell overhead included) and the ratio ours / just-bash's. Then runs
 * `memoryCalls` more calls and prints the process memory before and after. Goal: ≤ 1 ms (bashkit's
 * jq and just-bash's in a loop are side by side in peers.bench.ts).
 */
import { Bash, defineCommand, InMemoryFs, type Command } from "just-bash";
import { createJqCommand, sharedJqEngine } from "../src/shell/commands/index.js";

const CALLS = Number(process.argv[2] ?? 1000);
const MEMORY_CALLS = Number(process.argv[3] ?? 10_000);
const DOC = JSON.stringify({ items: Array.from({ length: 50 }, (_, i) => ({ id: i, name: `item-${i}`, tags: ["a", "b"] })) });
const EXPECTED = JSON.stringify(Array.from({ length: 50 }, (_, i) => i));

/** A `jq` that records how long each call of `inner` takes (ms). */
function timed(inner: (args: string[], ctx: Parameters<Command["execute"]>[1]) => Promise<Awaited<ReturnType<Command["execute"]>>>, samples: number[]): Command {
  return defineCommand("jq", async (args, ctx) => {
    const t = performance.now();
    const r = await inner(args, ctx);
    samples.push(performance.now() - t);
    return r;
  });
}

async function shellWith(jq: Command | null): Promise<Bash> {
  const fs = new InMemoryFs();
  const bash = new Bash({ fs, cwd: "/home/user", customCommands: jq ? [jq] : [], executionLimits: { maxExecutionTimeMs: 600_000, maxCommandCount: 1_000_000, maxLoopIterations: 1_000_000 } });
  await fs.mkdir("/home/user", { recursive: true });
  await fs.writeFile("/home/user/doc.json", DOC);
  return bash;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;

async function loop(bash: Bash, n: number): Promise<{ wallPerCall: number; last: string }> {
  const t = performance.now();
  const r = await bash.exec(`for i in $(seq ${n}); do out=$(jq -c '.items|map(.id)' doc.json); done; echo "$out"`);
  if (r.exitCode !== 0) throw new Error(`loop failed: ${r.stderr}`);
  return { wallPerCall: (performance.now() - t) / n, last: r.stdout.trim() };
}

const oursCmd = createJqCommand();
const ours: number[] = [];
const theirs: number[] = [];
const oursShell = await shellWith(timed((a, c) => oursCmd.execute(a, c), ours));
const theirShell = await shellWith(
  timed((a, c) => (c.origCommand ? c.origCommand(a) : Promise.resolve({ stdout: "", stderr: "no jq", exitCode: 127 })), theirs),
);

// warm-up: worker start, wasm compile, first instance
await loop(oursShell, 20);
await loop(theirShell, 20);
ours.length = 0;
theirs.length = 0;

const a = await loop(oursShell, CALLS);
const b = await loop(theirShell, CALLS);
if (a.last !== EXPECTED) throw new Error(`our jq printed ${a.last}`);
if (b.last !== EXPECTED) console.log(`note: just-bash's jq printed ${b.last}`);

const mo = median(ours);
const mt = median(theirs);
console.log(`jq -c '.items|map(.id)' on 50 items, ${CALLS} calls in a shell loop`);
console.log(`  ours (jq 1.7.1 wasm, worker): median ${mo.toFixed(3)} ms/call, loop ${a.wallPerCall.toFixed(3)} ms/call`);
console.log(`  just-bash's jq (TypeScript):  median ${mt.toFixed(3)} ms/call, loop ${b.wallPerCall.toFixed(3)} ms/call`);
console.log(`  ratio ours/just-bash: median ${(mo / mt).toFixed(2)}x, loop ${(a.wallPerCall / b.wallPerCall).toFixed(2)}x`);
console.log(`  goal ≤ 1 ms/call (the command's median): ${mo <= 1 ? "met" : "NOT met"}`);

if (MEMORY_CALLS > 0) {
  global.gc?.();
  const before = process.memoryUsage();
  const chunk = 1000;
  for (let done = 0; done < MEMORY_CALLS; done += chunk) await loop(oursShell, Math.min(chunk, MEMORY_CALLS - done));
  global.gc?.();
  const after = process.memoryUsage();
  const probe = await sharedJqEngine().run({
    argv: ["jq", "-n", "1"],
    cwd: "/",
    files: [],
    stdin: null,
    env: [],
    useEnv: false,
    maxOutput: 1024,
    timeoutMs: 10_000,
  });
  console.log(`memory over ${MEMORY_CALLS} more calls: rss ${mb(before.rss)} -> ${mb(after.rss)}, JS heap ${mb(before.heapUsed)} -> ${mb(after.heapUsed)}, wasm heap now ${mb(probe.heapBytes ?? 0)}`);
}
await sharedJqEngine().close();
