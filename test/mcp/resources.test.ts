/**
 * Resources and prompts as read-only tools of their server: listed, read (text as is, binary
 * saved under tool-images/), prompts fetched as JSON; in help and search, counted against the
 * call limit, judged read-only. Against a real stdio server (feature-server.ts).
 */
import assert from "node:assert/strict";
import path from "node:path";
import { after, before, test } from "node:test";
import { createToolShell, type ToolShell } from "../../src/index.js";
import { FEATURE_SERVER, tsxCommand } from "../fixtures/mcp/index.js";
import { TINY_PNG } from "../fixtures/mcp/constants.js";
import { tempDir } from "./helpers.js";

let ts: ToolShell;
let dir: string;
before(async () => {
  dir = tempDir("toolshell-resources-");
  // Approvals on: read-only calls must run without asking anyone.
  ts = await createToolShell({ baseDir: dir, config: { mcpServers: { feature: tsxCommand(FEATURE_SERVER) }, logDir: path.join(dir, "logs") } });
});
after(() => ts.close());

test("resources lists resources and templates; read-resource prints text as is", async () => {
  const s = ts.session();
  const list = await s.bash("tools feature resources");
  assert.equal(list.exit_code, 0, list.stderr);
  const value = JSON.parse(list.stdout);
  assert.deepEqual(value.resources.map((r: { uri: string }) => r.uri).sort(), ["docs://readme", "img://logo"]);
  assert.equal(value.resourceTemplates[0].uriTemplate, "notes://{id}");
  const read = await s.bash("tools feature read-resource uri=docs://readme && tools feature read-resource uri=notes://7");
  assert.equal(read.exit_code, 0, read.stderr);
  assert.equal(read.stdout, "# Readme\nline two\nnote 7\n");
});

test("a binary resource is saved under tool-images/", async () => {
  const s = ts.session();
  const r = await s.bash("tools feature read-resource uri=img://logo");
  assert.equal(r.exit_code, 0, r.stderr);
  const saved = /saved to (\S+)/.exec(r.stderr)?.[1];
  assert.ok(saved, r.stderr);
  const back = await s.bash(`base64 -w0 ${saved}`);
  assert.equal(back.stdout.trim(), TINY_PNG, back.stderr);
});

test("prompts and get-prompt give JSON; arguments as key=value", async () => {
  const s = ts.session();
  const list = await s.bash("tools feature prompts | jq -r '.prompts[0].name, .prompts[0].arguments[0].name'");
  assert.equal(list.stdout, "review\nlanguage\n", list.stderr);
  const got = await s.bash("tools feature get-prompt name=review language=rust");
  assert.equal(got.exit_code, 0, got.stderr);
  assert.deepEqual(JSON.parse(got.stdout).messages, [{ role: "user", content: { type: "text", text: "Review this rust code." } }]);
});

test("they appear in help and search, run without approval (read-only) and count against the call limit", async () => {
  const s = ts.session();
  const help = await s.bash("tools feature --help");
  for (const name of ["resources", "read-resource", "prompts", "get-prompt"]) assert.match(help.stdout, new RegExp(`^  ${name} `, "m"));
  const search = await s.bash("tools search resource");
  assert.match(search.stdout, /tools feature read-resource uri=<string>/);
  const r = await s.bash("tools feature resources >/dev/null && tools feature prompts >/dev/null");
  assert.equal(r.exit_code, 0, r.stderr);
  const limited = await s.bash("for i in $(seq 60); do tools feature prompts >/dev/null || break; done");
  assert.equal(limited.tools?.stopped?.reason, "call_limit", JSON.stringify(limited));
  assert.equal(limited.tools?.read_only_calls, 50);
});
