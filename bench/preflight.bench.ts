/**
 * Pre-start check benchmark: the time from `session.bash(script)` to the stop before the start,
 * for scripts of 100, 1,000 and 10,000 lines of literal gated calls (each its own input), on a
 * host with a SQLite store on disk (approval requests are persisted). Printed per length, median
 * of 3 rounds:
 * - parse: just-bash's own parse of the script (the peer: the engine parses it again to run it);
 * - read: the preflight's reading (parse + walk, script-reader.ts);
 * - pre-start: the whole check (reading, resolving, judging, raising the requests);
 * - per 1,000 lines: pre-start / (lines / 1,000);
 * - added per 1,000 lines: (pre-start − the previous length's) / (lines added / 1,000) — flat
 *   when the cost is linear (the first length carries the fixed cost of asking its 50 questions);
 * - pre-start / parse: the ratio to the parser's own cost;
 * - longest stall: the longest gap between two ticks of a 1 ms timer during the pre-start (how
 *   long the event loop was kept from other sessions, the HTTP API, triggers).
 *
 * Run: `node --import tsx bench/preflight.bench.ts` (or `npm run bench preflight`).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parse } from "just-bash";
import { z } from "zod";
import { always, defineTool } from "../src/index.js";
import { readScript } from "../src/policy/script-reader.js";
import { Turns } from "../src/policy/turns.js";
import { openHost } from "../src/server/index.js";

const LENGTHS = [100, 1_000, 10_000];
const ROUNDS = 5;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const gated = (n: number) => Array.from({ length: n }, (_, i) => `tools del --id ${i}`).join("\n");

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), "toolshell-bench-preflight-"));
  const host = await openHost({
    config: {},
    baseDir: dir,
    store: path.join(dir, "state.db"),
    tools: { del: defineTool({ description: "Deletes a record.", inputSchema: z.object({ id: z.number() }), approval: always(), execute: () => "1" }) },
  });
  // Warm up the parser, the reader and the store.
  await host.shell.session().bash(gated(100));
  const rows: string[][] = [["lines", "chars", "parse ms", "read ms", "pre-start ms", "per 1,000 lines", "added per 1,000", "pre-start / parse", "longest stall ms"]];
  let previous: { n: number; ms: number } | undefined;
  for (const n of LENGTHS) {
    const script = gated(n);
    const parseMs: number[] = [];
    const readMs: number[] = [];
    const preMs: number[] = [];
    const stalls: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      let t = performance.now();
      parse(script);
      parseMs.push(performance.now() - t);
      t = performance.now();
      await readScript(script, new Turns());
      readMs.push(performance.now() - t);
      let last = performance.now();
      let stall = 0;
      const timer = setInterval(() => {
        const now = performance.now();
        stall = Math.max(stall, now - last);
        last = now;
      }, 1);
      t = performance.now();
      const r = await host.shell.session().bash(script);
      preMs.push(performance.now() - t);
      clearInterval(timer);
      stall = Math.max(stall, performance.now() - last);
      stalls.push(stall);
      if (r.tools?.stopped?.before_start !== true) throw new Error(`expected a stop before the start, got ${r.stderr}`);
    }
    const pre = median(preMs);
    rows.push([
      n.toLocaleString("en-US"),
      script.length.toLocaleString("en-US"),
      median(parseMs).toFixed(1),
      median(readMs).toFixed(1),
      pre.toFixed(1),
      (pre / (n / 1000)).toFixed(1),
      previous ? ((pre - previous.ms) / ((n - previous.n) / 1000)).toFixed(1) : "—",
      (pre / median(parseMs)).toFixed(1),
      median(stalls).toFixed(1),
    ]);
    previous = { n, ms: pre };
  }
  await host.close();
  rmSync(dir, { recursive: true, force: true });
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  for (const r of rows) console.log(r.map((c, i) => c.padStart(widths[i])).join("  "));
  console.log(`node ${process.version}, ${process.platform}/${process.arch}, median of ${ROUNDS} rounds`);
}

await main();
