/**
 * A server's data at the protocol's edges, over stdio and Streamable HTTP against real servers
 * (edge-server.ts): tools whose definitions the SDK refuses stay callable one by one, JSON Schema
 * 2020-12 is the default dialect, a lookahead `pattern` is checked in the part RE2 can run,
 * unknown `format`s print nothing, paging that loops ends with an error, and a server that
 * restarted (HTTP 404 for the old session) gets a new session and the call once more.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { after, before, test } from "node:test";
import { createToolShell, type ToolShell } from "../../src/index.js";
import { EDGE_SERVER, startRestartableServer, tsxCommand, type RestartableServer } from "../fixtures/mcp/index.js";
import { edgeServer } from "../fixtures/mcp/edge-server.js";
import { tempDir } from "./helpers.js";

let ts: ToolShell;
let http: RestartableServer;
const printed: string[] = [];
const spied = ["log", "warn", "error", "info"] as const;
const originals = spied.map((k) => console[k]);

before(async () => {
  for (const k of spied) console[k] = (...args: unknown[]) => void printed.push(args.map(String).join(" "));
  http = await startRestartableServer(edgeServer);
  const dir = tempDir("toolshell-edges-");
  ts = await createToolShell({
    baseDir: dir,
    config: { mcpServers: { edge: tsxCommand(EDGE_SERVER), web: { type: "http", url: http.url } }, logDir: path.join(dir, "logs"), approval: { mode: "off" } },
  });
});
after(async () => {
  spied.forEach((k, i) => (console[k] = originals[i]));
  await ts.close();
  await http.close();
});

const run = (script: string) => ts.session().bash(script);
const errorOf = (stderr: string) => JSON.parse(stderr.trim().split("\n").pop()!).error as { code: string; message: string };
const echoed = (stdout: string) => JSON.parse(stdout) as { tool: string; arguments: Record<string, unknown> };

for (const server of ["edge", "web"]) {
  test(`${server}: a schema without $schema is read as JSON Schema 2020-12 (prefixItems)`, async () => {
    const ok = await run(`tools ${server} tuple 'point=[1,2]'`);
    assert.equal(ok.exit_code, 0, ok.stderr);
    assert.deepEqual(echoed(ok.stdout).arguments, { point: [1, 2] });
    const bad = await run(`tools ${server} tuple 'point=[1,"x"]'`);
    assert.equal(bad.exit_code, 1);
    assert.equal(errorOf(bad.stderr).code, "invalid_input");
  });

  test(`${server}: a tool the SDK's Tool shape refuses stays callable with the check that can be made; the others are unaffected`, async () => {
    const echo = await run(`tools ${server} echo text=hi`);
    assert.equal(echo.exit_code, 0, echo.stderr);
    const only = await run(`tools ${server} only-schema`);
    assert.equal(only.exit_code, 0, only.stderr);
    assert.equal(echoed(only.stdout).tool, "only_schema");
    const help = await run(`tools ${server} only-schema --help`);
    assert.match(help.stdout, /toolshell: its input schema has no type "object"/);
    const anyOf = await run(`tools ${server} any-of id=7`);
    assert.equal(anyOf.exit_code, 0, anyOf.stderr);
    assert.deepEqual(echoed(anyOf.stdout).arguments, { id: 7 });
    const neither = await run(`tools ${server} any-of colour=red`);
    assert.equal(neither.exit_code, 1);
    assert.equal(errorOf(neither.stderr).code, "invalid_input");
    const hints = await run(`tools ${server} bad-hints && tools ${server} bad-hints --help`);
    assert.equal(hints.exit_code, 0, hints.stderr);
    assert.match(hints.stdout, /its "annotations" is not as MCP defines it and is ignored/);
    const list = await run(`tools ${server} --help`);
    assert.match(list.stdout, /echo/);
    assert.match(list.stdout, /any-of/);
  });

  test(`${server}: a lookahead pattern is checked without its lookaheads, never "matches nothing"`, async () => {
    const ok = await run(`tools ${server} email to=ann@example.org`);
    assert.equal(ok.exit_code, 0, ok.stderr);
    const bad = await run(`tools ${server} email to=not-an-address`);
    assert.equal(bad.exit_code, 1);
    assert.equal(errorOf(bad.stderr).code, "invalid_input");
    const help = await run(`tools ${server} email --help`);
    assert.match(help.stdout, /pattern .* is checked without its lookaround/);
  });

  test(`${server}: unknown formats are not checked and print nothing; known ones are checked`, async () => {
    const ok = await run(`tools ${server} formats size=18446744073709551615 at=2024-01-01T00:00:00Z day=2024-02-03`);
    assert.equal(ok.exit_code, 0, ok.stderr);
    const bad = await run(`tools ${server} formats day=someday`);
    assert.equal(bad.exit_code, 1);
    assert.equal(errorOf(bad.stderr).code, "invalid_input");
    const help = await run(`tools ${server} formats --help`);
    assert.match(help.stdout, /format "uint64" is not checked/);
    assert.deepEqual(printed.filter((p) => /format/i.test(p)), []);
  });

  test(`${server}: a resources/list or prompts/list whose cursors loop ends with an error naming the loop`, async () => {
    for (const list of ["resources", "prompts"]) {
      const r = await run(`tools ${server} ${list}`);
      assert.equal(r.exit_code, 1, r.stdout);
      assert.match(errorOf(r.stderr).message, new RegExp(`${list}/list repeated the cursor`));
    }
  });
}

test("an HTTP server that restarted (404 for the old session) gets a new session and the call once more", async () => {
  const first = await run("tools web echo text=before");
  assert.equal(first.exit_code, 0, first.stderr);
  const before = http.sessions();
  http.restart();
  const again = await run("tools web echo text=after");
  assert.equal(again.exit_code, 0, again.stderr);
  assert.deepEqual(echoed(again.stdout).arguments, { text: "after" });
  assert.equal(http.sessions(), before + 1);
  const next = await run("tools web echo text=later");
  assert.equal(next.exit_code, 0, next.stderr);
  assert.equal(http.sessions(), before + 1, "the new session is kept");
});
