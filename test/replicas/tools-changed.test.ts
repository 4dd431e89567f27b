/**
 * A server's `tools/list_changed` reaches one replica (the one whose connection got it); every
 * replica's catalog follows (docs/deployment.md "What is shared" → tool lists): two real
 * `toolshell serve` replicas on one real PostgreSQL, each running its own copy of a stdio server
 * whose tool list lives in a shared file (test/fixtures/replicas/shelf-server.ts).
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { REPO_ROOT, tsxCommand } from "../fixtures/mcp/index.js";
import { api, deployment, until } from "./helpers.js";

const SHELF = path.join(REPO_ROOT, "test/fixtures/replicas/shelf-server.ts");

test("a tool added on one replica's server connection is listed and callable on the other replica", async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), "toolshell-shelf-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const d = await deployment(t, { mcpServers: { shelf: { ...tsxCommand(SHELF), env: { SHELF_FILE: path.join(dir, "shelf.txt") }, trust: true } } });
  const [a, b] = await Promise.all([d.start("A"), d.start("B")]);
  const count = async (r: typeof a) => ((await api(r, "GET", "/v1/servers")).json.servers as Array<{ name: string; tools?: number }>).find((s) => s.name === "shelf")?.tools;
  await until(async () => ((await count(a)) === 1 && (await count(b)) === 1 ? true : undefined), "both replicas to list the shelf's one tool");
  for (const r of [a, b]) assert.equal((await api(r, "POST", "/v1/sessions", { id: `s-${r.name}` })).status, 201);

  const grown = await api(a, "POST", "/v1/sessions/s-A/bash", { script: "tools shelf grow name=extra" });
  assert.match(grown.json.stdout, /grew extra/, JSON.stringify(grown.json));
  // A was told by its own connection; B lists its copy again because A recorded the change.
  await until(async () => ((await count(a)) === 2 ? true : undefined), "replica A to list the added tool");
  await until(async () => ((await count(b)) === 2 ? true : undefined), "replica B to list the tool added through A");
  const onB = await api(b, "POST", "/v1/sessions/s-B/bash", { script: "tools shelf extra" });
  assert.equal(onB.json.exit_code, 0, JSON.stringify(onB.json));
  assert.match(onB.json.stdout, /extra/);
});
