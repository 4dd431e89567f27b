/**
 * How long a server's `tools/list_changed` takes to reach the other replica (docs/deployment.md
 * "What is shared" → tool lists): two real `toolshell serve` replicas on one PostgreSQL, each
 * running its own copy of the shelf server (its tool list in a shared file). Each round adds a
 * tool through replica A and times, from A's answer, until replica B lists it (B polled every
 * 25 ms through `GET /v1/servers`). Prints each round and the range.
 *
 *   npm run build && TOOLSHELL_TEST_DATABASE_URL=postgres://… node --import tsx --test bench/list-changed.bench.ts
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { REPO_ROOT, tsxCommand } from "../test/fixtures/mcp/index.js";
import { api, deployment, until, type Replica } from "../test/replicas/helpers.js";

const SHELF = path.join(REPO_ROOT, "test/fixtures/replicas/shelf-server.ts");
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);

test("tools/list_changed across two replicas", async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), "toolshell-shelf-bench-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const d = await deployment(t, { mcpServers: { shelf: { ...tsxCommand(SHELF), env: { SHELF_FILE: path.join(dir, "shelf.txt") }, trust: true } } });
  const [a, b] = await Promise.all([d.start("A"), d.start("B")]);
  const count = async (r: Replica) => ((await api(r, "GET", "/v1/servers")).json.servers as Array<{ name: string; tools?: number }>).find((s) => s.name === "shelf")?.tools;
  await until(async () => ((await count(a)) === 1 && (await count(b)) === 1 ? true : undefined), "both replicas to list the shelf");
  await api(a, "POST", "/v1/sessions", { id: "bench" });
  const ms: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    await api(a, "POST", "/v1/sessions/bench/bash", { script: `tools shelf grow name=t${i}` });
    const t0 = performance.now();
    await until(async () => ((await count(b)) === i + 2 ? true : undefined), `replica B to list t${i}`, 2000, 25);
    ms.push(Math.round(performance.now() - t0));
    process.stdout.write(`round ${i + 1}: ${ms[i]} ms\n`);
  }
  const sorted = [...ms].sort((x, y) => x - y);
  process.stdout.write(`list_changed A → B: ${sorted[0]}–${sorted[sorted.length - 1]} ms, median ${sorted[Math.floor(sorted.length / 2)]} ms over ${ROUNDS} rounds\n`);
});
