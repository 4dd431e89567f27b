/**
 * toolshell against its peers, side by side in one run (alternating rounds, medians):
 * - bashkit (`@everruns/bashkit`: a bash interpreter in native code, with a `tools` builtin
 *   registered here that makes the same MCP SDK call), MCPorter's runtime (`mcporter`
 *   `createRuntime().callTool`), and direct MCP SDK calls, all on their own warm connection to
 *   the same server process kind.
 *
 * Figures:
 * 1. 50 chained calls: `x=$(tools everything echo message=$i)` fifty times, then one `jq`.
 * 2. 200 files: a loop over 200 JSON files keeping those whose `.content` has a word, with
 *    `jq -r .content` per file and with `grep -q` per file.
 * 3. jq in a loop: `out=$(jq -c '.items|map(.id)' doc.json)` N times: toolshell's jq (jq 1.7.1 in
 *    WebAssembly), just-bash's own jq, bashkit's jq.
 * 4. pass-through: the cost a nested call adds over a direct SDK call, in ms, and the ratio on a
 *    tool that takes 5 ms (kit fixture `slow ms=5`) and on `echo`.
 * 5. memory per idle session at 1,000 sessions (each ran one command), in child processes.
 * 6. 50 chained `x=$(printf '%d' $((x+i)))`, no tools at all.
 * 7. the cost of one command, command by command (200 in a loop, less the empty loop).
 * Where it says so, "toolshell on bashkit" is toolshell with `TOOLSHELL_ENGINE=bashkit` (the
 * experimental engine, docs/shell.md).
 *
 * Run: `node --import tsx bench/peers.bench.ts` (or `npm run bench:peers`).
 */
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Bash as Bashkit } from "@everruns/bashkit";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { Client } from "@modelcontextprotocol/client";
import { Bash as JustBash, InMemoryFs } from "just-bash";
import { createRuntime } from "mcporter";
import { createToolShell } from "../src/index.js";
import { KIT_SERVER, NPM_SERVERS, tsxCommand } from "../test/fixtures/mcp/index.js";

const self = fileURLToPath(import.meta.url);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const f1 = (n: number) => n.toFixed(1);
const f2 = (n: number) => n.toFixed(2);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 11);

type Text = { content: Array<{ type: string; text?: string }> };
const textOf = (r: unknown) => ((r as Text).content ?? []).map((c) => c.text ?? "").join("");

const everything = { command: NPM_SERVERS.everything, args: ["stdio"] };
const kit = tsxCommand(KIT_SERVER);

async function sdkClient(server: { command: string; args: string[] }): Promise<Client> {
  const c = new Client({ name: "bench", version: "1" });
  await c.connect(new StdioClientTransport({ ...server, stderr: "ignore" }));
  return c;
}

/**
 * `tools SERVER TOOL key=value…` as a bashkit builtin: the same SDK call, a value made a number
 * where the tool's input schema says number (as toolshell does).
 */
async function bashkitTools(clients: Record<string, Client>) {
  const numeric = new Set<string>();
  for (const [server, c] of Object.entries(clients)) {
    for (const t of (await c.listTools()).tools) {
      for (const [k, v] of Object.entries((t.inputSchema.properties ?? {}) as Record<string, { type?: string }>)) {
        if (v.type === "number" || v.type === "integer") numeric.add(`${server}/${t.name}/${k}`);
      }
    }
  }
  return async (ctx: { argv: string[] }) => {
    const [server, tool, ...kv] = ctx.argv;
    const args: Record<string, unknown> = {};
    for (const a of kv) {
      const i = a.indexOf("=");
      const k = a.slice(0, i);
      args[k] = numeric.has(`${server}/${tool}/${k}`) ? Number(a.slice(i + 1)) : a.slice(i + 1);
    }
    return `${textOf(await clients[server].callTool({ name: tool, arguments: args }))}\n`;
  };
}

/** Runs each side once per round, in turn, after `warm` untimed rounds; medians in ms. */
async function sideBySide(sides: Record<string, () => Promise<void>>, rounds = ROUNDS, warm = 2): Promise<Record<string, number>> {
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(sides).map((k) => [k, []]));
  for (let r = 0; r < warm + rounds; r++) {
    for (const [name, run] of Object.entries(sides)) {
      const t = performance.now();
      await run();
      if (r >= warm) times[name].push(performance.now() - t);
    }
  }
  return Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
}

function table(title: string, base: string, res: Record<string, number>, unit = "ms"): void {
  console.log(title);
  for (const [k, v] of Object.entries(res)) console.log(`  ${k.padEnd(34)} ${f1(v).padStart(8)} ${unit}   ${f2(v / res[base])}× ${base}`);
}

const CHAINED = `x=start
for i in $(seq 1 50); do x=$(tools everything echo message="$i"); done
echo "$x" | jq -R -c '{last: .}'`;
const CHAINED_OUT = '{"last":"Echo: 50"}\n';

const MAKE_FILES = `mkdir -p /data
for i in $(seq 1 200); do
  if (( i % 2 )); then w=needle; else w=hay; fi
  echo "{\\"name\\":\\"f$i\\",\\"content\\":\\"line $i has $w in it\\"}" > /data/f$i.json
done`;
const FILES_JQ = `n=0; for f in /data/*.json; do if jq -r .content "$f" | grep -q needle; then n=$((n+1)); fi; done; echo $n`;
const FILES_GREP = `n=0; for f in /data/*.json; do if grep -q needle "$f"; then n=$((n+1)); fi; done; echo $n`;

const SUBST = `x=0; for i in $(seq 1 50); do x=$(printf '%d' $((x+i))); done; echo $x`;
const PER_COMMAND: Record<string, string> = {
  "true": "true",
  "echo hi >/dev/null": "echo hi >/dev/null",
  "x=$(echo hi)": "x=$(echo hi)",
  "grep -q needle /data/f1.json": "grep -q needle /data/f1.json",
  "jq -r .content /data/f1.json": "jq -r .content /data/f1.json >/dev/null",
  "x=$(jq -r .content /data/f1.json)": "x=$(jq -r .content /data/f1.json)",
};

const DOC = JSON.stringify({ items: Array.from({ length: 50 }, (_, i) => ({ id: i, name: `item-${i}`, tags: ["a", "b"] })) });
const JQ_CALLS = 200;
const JQ_LOOP = `for i in $(seq 1 ${JQ_CALLS}); do out=$(jq -c '.items|map(.id)' /data/doc.json); done; echo "$out"`;

async function main(): Promise<void> {
  console.log(`# peers — node ${process.version}, ${new Date().toISOString()}, ${ROUNDS} alternating rounds, medians`);
  const sdk = { everything: await sdkClient(everything), kit: await sdkClient(kit) };
  const forBashkit = { everything: await sdkClient(everything), kit: await sdkClient(kit) };
  const ts = await createToolShell({
    callLimit: 1000,
    timeoutMs: 600_000,
    config: { mcpServers: { everything: { ...everything, trust: true }, kit: { ...kit, trust: true } }, logDir: path.join(tmpdir(), "toolshell-bench-logs") },
  });
  const s = ts.session();
  // The same toolshell on the experimental bashkit engine (the engine is chosen per session).
  process.env.TOOLSHELL_ENGINE = "bashkit";
  const sk = ts.session("on-bashkit");
  delete process.env.TOOLSHELL_ENGINE;
  const bk = new Bashkit({ customBuiltins: { tools: await bashkitTools(forBashkit) }, maxCommands: 10_000_000, maxLoopIterations: 10_000_000, maxTotalLoopIterations: 100_000_000 });
  const porter = await createRuntime({ servers: [{ name: "everything", command: { kind: "stdio", command: everything.command, args: everything.args, cwd: tmpdir() } }] } as Parameters<typeof createRuntime>[0]);
  const check = (who: string, got: string, want: string) => {
    if (got !== want) throw new Error(`${who} printed ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
  };

  // 1. 50 chained calls
  const chained = await sideBySide({
    toolshell: async () => check("toolshell", (await s.bash(CHAINED)).stdout, CHAINED_OUT),
    bashkit: async () => check("bashkit", (await bk.execute(CHAINED)).stdout, CHAINED_OUT),
    "toolshell on bashkit": async () => check("toolshell on bashkit", (await sk.bash(CHAINED)).stdout, CHAINED_OUT),
    "MCPorter runtime (JS)": async () => {
      let x = "start";
      for (let i = 1; i <= 50; i++) x = textOf(await porter.callTool("everything", "echo", { args: { message: String(i) } }));
      check("mcporter", `${JSON.stringify({ last: x })}\n`, CHAINED_OUT);
    },
    "direct SDK (JS)": async () => {
      let x = "start";
      for (let i = 1; i <= 50; i++) x = textOf(await sdk.everything.callTool({ name: "echo", arguments: { message: String(i) } }));
      check("sdk", `${JSON.stringify({ last: x })}\n`, CHAINED_OUT);
    },
  });
  table("1. 50 chained calls with $( … ) and one jq, warm connection (goal: toolshell ≤ 1.5× bashkit)", "bashkit", chained);

  // 2. 200 files
  for (const r of [await s.bash(MAKE_FILES), await bk.execute(MAKE_FILES), await sk.bash(MAKE_FILES)]) {
    if (((r as { exit_code?: number }).exit_code ?? (r as { exitCode?: number }).exitCode) !== 0) throw new Error(`setup failed: ${r.stderr}`);
  }
  const files = await sideBySide({
    "toolshell, jq per file": async () => check("toolshell", (await s.bash(FILES_JQ)).stdout, "100\n"),
    "bashkit, jq per file": async () => check("bashkit", (await bk.execute(FILES_JQ)).stdout, "100\n"),
    "toolshell, grep per file": async () => check("toolshell", (await s.bash(FILES_GREP)).stdout, "100\n"),
    "bashkit, grep per file": async () => check("bashkit", (await bk.execute(FILES_GREP)).stdout, "100\n"),
    "toolshell on bashkit, jq per file": async () => check("toolshell on bashkit", (await sk.bash(FILES_JQ)).stdout, "100\n"),
    "toolshell on bashkit, grep per file": async () => check("toolshell on bashkit", (await sk.bash(FILES_GREP)).stdout, "100\n"),
  }, Math.max(3, Math.floor(ROUNDS / 2)), 1);
  table("2. 200 files, keep those with a word (goals: toolshell ≤ 2× bashkit with jq, ≤ 5× with grep)", "bashkit, jq per file", files);
  console.log(`  ratio toolshell/bashkit: with jq ${f2(files["toolshell, jq per file"] / files["bashkit, jq per file"])}×, with grep ${f2(files["toolshell, grep per file"] / files["bashkit, grep per file"])}×`);

  // 6. substitutions, no tools
  const subst = await sideBySide({
    toolshell: async () => check("toolshell", (await s.bash(SUBST)).stdout, "1275\n"),
    bashkit: async () => check("bashkit", (await bk.execute(SUBST)).stdout, "1275\n"),
    "toolshell on bashkit": async () => check("toolshell on bashkit", (await sk.bash(SUBST)).stdout, "1275\n"),
  });
  table("6. 50 chained $( printf … $((x+i)) ), no tools (goal: toolshell ≤ 5× bashkit)", "bashkit", subst);

  // 7. command by command: 200 of one command in a loop, less the empty loop, per command
  const per: Record<string, Record<string, number>> = {};
  for (const [name, cmd] of Object.entries(PER_COMMAND)) {
    const body = (c: string) => `for i in $(seq 1 200); do ${c}; done`;
    const r = await sideBySide({
      toolshell: async () => void (await s.bash(body(cmd))),
      "toolshell, empty loop": async () => void (await s.bash(body(":"))),
      bashkit: async () => void (await bk.execute(body(cmd))),
      "bashkit, empty loop": async () => void (await bk.execute(body(":"))),
    }, Math.max(3, Math.floor(ROUNDS / 2)), 1);
    per[name] = { toolshell: (r.toolshell - r["toolshell, empty loop"]) / 0.2, bashkit: (r.bashkit - r["bashkit, empty loop"]) / 0.2, loopToolshell: r["toolshell, empty loop"] / 0.2, loopBashkit: r["bashkit, empty loop"] / 0.2 };
  }
  console.log("7. one command, command by command (µs per command: 200 in a loop, less the empty loop)");
  for (const [name, v] of Object.entries(per)) console.log(`  ${name.padEnd(34)} toolshell ${v.toolshell.toFixed(0).padStart(6)} µs   bashkit ${v.bashkit.toFixed(0).padStart(6)} µs   ${f2(v.toolshell / v.bashkit)}×`);
  const anyLoop = Object.values(per)[0];
  console.log(`  ${"(the loop itself, per turn)".padEnd(34)} toolshell ${anyLoop.loopToolshell.toFixed(0).padStart(6)} µs   bashkit ${anyLoop.loopBashkit.toFixed(0).padStart(6)} µs`);

  // 3. jq in a loop
  const jb = new JustBash({ fs: new InMemoryFs(), executionLimits: { maxCommandCount: 10_000_000, maxLoopIterations: 10_000_000, maxExecutionTimeMs: 600_000 } });
  const putDoc = `mkdir -p /data; echo '${DOC}' > /data/doc.json`;
  await s.bash(putDoc);
  await bk.execute(putDoc);
  await sk.bash(putDoc);
  await jb.exec(putDoc);
  const want = `${JSON.stringify(Array.from({ length: 50 }, (_, i) => i))}\n`;
  const jq = await sideBySide({
    "toolshell (jq 1.7.1, wasm)": async () => check("toolshell jq", (await s.bash(JQ_LOOP)).stdout, want),
    "bashkit's jq": async () => check("bashkit jq", (await bk.execute(JQ_LOOP)).stdout, want),
    "toolshell on bashkit (jq 1.7.1 builtin)": async () => check("toolshell on bashkit jq", (await sk.bash(JQ_LOOP)).stdout, want),
    "just-bash's own jq": async () => {
      await jb.exec(JQ_LOOP);
    },
  }, Math.max(3, Math.floor(ROUNDS / 2)), 1);
  for (const k of Object.keys(jq)) jq[k] /= JQ_CALLS;
  table(`3. jq -c '.items|map(.id)' in a shell loop, per call (loop included; goal: toolshell ≤ bashkit's jq)`, "bashkit's jq", jq);

  // 4. pass-through
  const N = 100;
  const loop = (cmd: string) => `for i in $(seq 1 ${N}); do ${cmd} >/dev/null; done`;
  const direct = (tool: string, args: Record<string, unknown>) => async () => {
    for (let i = 0; i < N; i++) await sdk.kit.callTool({ name: tool, arguments: args });
  };
  const viaSdkEverything = async () => {
    for (let i = 0; i < N; i++) await sdk.everything.callTool({ name: "echo", arguments: { message: "hi" } });
  };
  const pass = await sideBySide({
    "toolshell: tools kit slow ms=5": async () => void (await s.bash(loop("tools kit slow ms=5"))),
    "bashkit: tools kit slow ms=5": async () => void (await bk.execute(loop("tools kit slow ms=5"))),
    "direct SDK: slow ms=5": direct("slow", { ms: 5 }),
    "toolshell on bashkit: tools kit slow ms=5": async () => void (await sk.bash(loop("tools kit slow ms=5"))),
    "toolshell: tools everything echo": async () => void (await s.bash(loop("tools everything echo message=hi"))),
    "bashkit: tools everything echo": async () => void (await bk.execute(loop("tools everything echo message=hi"))),
    "direct SDK: echo": viaSdkEverything,
  });
  for (const k of Object.keys(pass)) pass[k] /= N;
  console.log(`4. pass-through, ${N} nested calls per round, per call (goal: ≤ 1.10× direct on the 5 ms tool)`);
  for (const [tool, key] of [["slow ms=5", "slow ms=5"], ["echo", "echo"]] as const) {
    const d = pass[`direct SDK: ${key}`];
    const tsv = pass[`toolshell: tools ${tool === "echo" ? "everything echo" : "kit slow ms=5"}`];
    const bkv = pass[`bashkit: tools ${tool === "echo" ? "everything echo" : "kit slow ms=5"}`];
    console.log(
      `  ${tool.padEnd(10)} direct ${f2(d)} ms; toolshell ${f2(tsv)} ms (+${f2(tsv - d)} ms, ${f2(tsv / d)}×); bashkit ${f2(bkv)} ms (+${f2(bkv - d)} ms, ${f2(bkv / d)}×)`,
    );
  }
  const onKit = pass["toolshell on bashkit: tools kit slow ms=5"];
  console.log(`  toolshell on bashkit, slow ms=5: ${f2(onKit)} ms (+${f2(onKit - pass["direct SDK: slow ms=5"])} ms, ${f2(onKit / pass["direct SDK: slow ms=5"])}×)`);

  await ts.close();
  await porter.close();
  for (const c of [...Object.values(sdk), ...Object.values(forBashkit)]) await c.close();

  // 5. memory per idle session, each side in a fresh process
  const mem: Record<string, number> = {};
  for (const who of ["toolshell", "bashkit", "toolshell-on-bashkit"]) {
    const r = spawnSync(process.execPath, ["--expose-gc", "--import", "tsx", self, "--memory", who], { encoding: "utf8" });
    if (r.status !== 0) throw new Error(`memory child failed: ${r.stderr}`);
    mem[who] = Number(r.stdout.trim());
  }
  console.log(`5. memory per idle session at ${SESSIONS} sessions (RSS growth / sessions; goal: toolshell ≤ 2× bashkit)`);
  console.log(`  toolshell ${f1(mem.toolshell)} KiB, bashkit ${f1(mem.bashkit)} KiB → ${f2(mem.toolshell / mem.bashkit)}×; toolshell on bashkit ${f1(mem["toolshell-on-bashkit"])} KiB`);
}

const SESSIONS = 1000;

/** Child: the RSS 1,000 sessions add (each ran `true` once), KiB per session, printed alone. */
async function memoryChild(who: string): Promise<void> {
  const gc = () => {
    for (let i = 0; i < 3; i++) global.gc?.();
  };
  const keep: unknown[] = [];
  let run: (i: number) => Promise<void>;
  if (who === "toolshell-on-bashkit") process.env.TOOLSHELL_ENGINE = "bashkit";
  if (who === "toolshell" || who === "toolshell-on-bashkit") {
    const ts = await createToolShell({});
    await ts.session("warm").bash("true");
    run = async (i) => {
      const s = ts.session(`s${i}`);
      await s.bash("true");
      keep.push(s);
    };
  } else {
    await new Bashkit().execute("true");
    run = async () => {
      const b = new Bashkit();
      await b.execute("true");
      keep.push(b);
    };
  }
  gc();
  const before = process.memoryUsage().rss;
  for (let i = 0; i < SESSIONS; i++) await run(i);
  gc();
  const after = process.memoryUsage().rss;
  console.log(((after - before) / 1024 / SESSIONS).toFixed(1));
  process.exit(0);
}

const at = process.argv.indexOf("--memory");
if (at > 0) await memoryChild(process.argv[at + 1]);
else {
  await main();
  process.exit(0);
}
