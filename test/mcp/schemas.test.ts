/**
 * Schemas as generators write them (pydantic `$defs`, zod-to-json-schema's root `$ref`, `allOf`,
 * nullable unions): help shows every field's real type and `key=value` follows the resolved type,
 * against a real stdio server (wild-server.ts).
 */
import assert from "node:assert/strict";
import path from "node:path";
import { after, before, test } from "node:test";
import { createToolShell, type ToolShell } from "../../src/index.js";
import { WILD_SERVER, tsxCommand } from "../fixtures/mcp/index.js";
import { tempDir } from "./helpers.js";

let ts: ToolShell;
before(async () => {
  const dir = tempDir("toolshell-schemas-");
  ts = await createToolShell({ baseDir: dir, config: { mcpServers: { wild: tsxCommand(WILD_SERVER) }, logDir: path.join(dir, "logs"), approval: { mode: "off" } } });
});
after(() => ts.close());

const run = async (script: string) => ts.session().bash(script);

test("help signatures show fields behind $ref, allOf and a root $ref with their real types", async () => {
  const pyd = await run("tools wild pydantic-search --help");
  assert.match(pyd.stdout, /pydantic-search\(\{ status: "1" \| "2" \| "open", filter\?: \{ owner: string, stars\?: integer \} \| null, limit\?: integer \| null \}\)/);
  const zod = await run("tools wild zod-root --help");
  assert.match(zod.stdout, /zod-root\(\{ code: string, count\?: integer, verbose\?: boolean \}\)/);
  const all = await run("tools wild all-of --help");
  assert.match(all.stdout, /all-of\(\{ label: string, size: number \}\)/);
  const nul = await run("tools wild one-of-null --help");
  assert.match(nul.stdout, /one-of-null\(\{ note\?: string \| null, level\?: "10" \| "20" \| null \}\)/);
  const search = await run("tools search all of");
  assert.match(search.stdout, /tools wild all-of label=<string> size=<number>/);
});

test("key=value typing follows the resolved type: a string enum behind a $ref stays a string", async () => {
  const r = await run(`tools wild pydantic-search status=1 limit=5 'filter={"owner":"ann"}' && tools wild one-of-null level=10 note=null && tools wild zod-root code=007 count=3 --verbose`);
  assert.equal(r.exit_code, 0, r.stderr);
  assert.deepEqual(r.stdout.trim().split("\n").map((l) => JSON.parse(l)), [
    { status: "1", limit: 5, filter: { owner: "ann" } },
    { level: "10", note: null },
    { code: "007", count: 3, verbose: true },
  ]);
});

test("fields are known through $ref and allOf; a field no part names is refused with the signature", async () => {
  const ok = await run("tools wild all-of label=x size=2");
  assert.equal(ok.exit_code, 0, ok.stderr);
  assert.deepEqual(JSON.parse(ok.stdout), { label: "x", size: 2 });
  const bad = await run("tools wild zod-root code=x colour=red");
  assert.equal(bad.exit_code, 1);
  const error = JSON.parse(bad.stderr.trim().split("\n").pop()!).error;
  assert.equal(error.code, "invalid_input");
  assert.match(error.message, /unknown field "colour".*zod-root\(\{ code: string/);
  const wrong = await run("tools wild pydantic-search status=closed");
  assert.equal(wrong.exit_code, 1);
  assert.equal(JSON.parse(wrong.stderr.trim().split("\n").pop()!).error.code, "invalid_input");
});
