/**
 * The default reading of MCP annotations (README "Approvals"): a configured server's declared
 * annotations are taken (`readOnlyHint: true` → read_only; `destructiveHint: false` and
 * `openWorldHint: false` → a change that runs without asking in normal mode), while destructive
 * tools still stop; `approval.trustAnnotations: false` or a server's `"trust": false` opts into
 * the stricter reading, and a server's `"trust": true` wins over `trustAnnotations: false`.
 * Against the reference memory server, over stdio, with no `trust` written.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { createToolShell } from "../../src/index.js";
import { NPM_SERVERS } from "../fixtures/mcp/index.js";
import { tempDir } from "../fixtures/temp.js";

const entity = (name: string) => `{"entities":[{"name":"${name}","entityType":"t","observations":[]}]}`;

const memory = (dir: string, extra: Record<string, unknown> = {}) => ({ command: NPM_SERVERS.memory, env: { MEMORY_FILE_PATH: path.join(dir, "memory.jsonl") }, ...extra });

test("a new user's first hour: writes to the memory server run without asking, delete-entities still stops", async (t) => {
  const dir = tempDir(t, "toolshell-defaults-");
  const shell = await createToolShell({ baseDir: dir, config: { mcpServers: { memory: memory(dir) } } });
  t.after(() => shell.close());
  const session = shell.session("user-42");

  const plan = await session.bash(`tools plan <<'EOF'
tools memory read-graph
tools memory create-entities '${entity("x")}'
tools memory delete-entities entityNames='["x"]'
EOF`);
  assert.equal(plan.exit_code, 0, plan.stderr);
  assert.deepEqual(
    JSON.parse(plan.stdout).calls.map((c: { risk: string; why?: string }) => [c.risk, c.why]),
    [["read_only", undefined], ["changes", undefined], ["needs_approval", "destructive"]],
  );

  const writes = await session.bash(`tools memory create-entities '${entity("Oslo")}' >/dev/null && tools memory read-graph | jq -r '.entities[].name'`);
  assert.equal(writes.exit_code, 0, writes.stderr);
  assert.equal(writes.stdout, "Oslo\n");
  assert.equal((await session.pendingApprovals()).length, 0, "no write asked");

  const stopped = await session.bash(`tools memory delete-entities entityNames='["Oslo"]'`);
  assert.equal(stopped.exit_code, 1);
  assert.equal(stopped.tools?.stopped?.reason, "needs_approval");
  assert.equal(stopped.tools?.stopped?.why, "destructive");
  await session.answer(stopped.tools!.stopped!.request_id!, "allow");
  const again = await session.bash(`tools memory delete-entities entityNames='["Oslo"]' && tools memory read-graph | jq -c '.entities'`);
  assert.equal(again.stdout.trim().split("\n").at(-1), "[]", again.stderr);
});

test("approval.trustAnnotations: false takes no claim that lowers caution; a server's trust: true still wins", async (t) => {
  const dir = tempDir(t, "toolshell-defaults-");
  const strict = await createToolShell({ baseDir: dir, config: { mcpServers: { memory: memory(dir) }, approval: { trustAnnotations: false } } });
  t.after(() => strict.close());
  const plan = await strict.session().bash(`echo 'tools memory read-graph' | tools plan`);
  assert.equal(JSON.parse(plan.stdout).calls[0].risk, "changes", "read-only claim not taken");
  const s = await strict.session().bash(`tools memory create-entities '${entity("a")}'`);
  assert.equal(s.tools?.stopped?.why, "rated_changes", "destructive: false dropped, so the tool is rated");

  const dir2 = tempDir(t, "toolshell-defaults-");
  const trusted = await createToolShell({ baseDir: dir2, config: { mcpServers: { memory: memory(dir2, { trust: true }) }, approval: { trustAnnotations: false } } });
  t.after(() => trusted.close());
  const ok = await trusted.session().bash(`tools memory create-entities '${entity("b")}' >/dev/null && echo ok`);
  assert.equal(ok.stdout, "ok\n", ok.stderr);
});

test("a server's trust: false opts into the stricter reading while the others keep the default", async (t) => {
  const dir = tempDir(t, "toolshell-defaults-");
  const shell = await createToolShell({
    baseDir: dir,
    config: { mcpServers: { strict: memory(dir, { trust: false }), plain: { ...memory(dir), env: { MEMORY_FILE_PATH: path.join(dir, "plain.jsonl") } } } },
  });
  t.after(() => shell.close());
  const r = await shell.session().bash(`tools plan <<'EOF'
tools strict read-graph
tools plain read-graph
tools plain create-entities '${entity("c")}'
EOF`);
  assert.deepEqual(
    JSON.parse(r.stdout).calls.map((c: { risk: string }) => c.risk),
    ["changes", "read_only", "changes"],
  );
});

test("toolshell check agrees: it names the claims the stricter reading does not take, and nothing by default", async (t) => {
  const { checkToolShell } = await import("../../src/check/index.js");
  const dir = tempDir(t, "toolshell-defaults-");
  const strict = await createToolShell({ baseDir: dir, config: { mcpServers: { memory: memory(dir, { trust: false }) } } });
  t.after(() => strict.close());
  const found = (await checkToolShell(strict)).filter((f) => f.rule_id === "servers.annotations_not_taken");
  assert.equal(found.length, 1);
  assert.equal(found[0]!.location, "mcpServers.memory");
  assert.match(found[0]!.message, /^server memory is read with the stricter reading .*: the claims of \d+ of its tools that lower caution .* are not taken/);

  const dir2 = tempDir(t, "toolshell-defaults-");
  const plain = await createToolShell({ baseDir: dir2, config: { mcpServers: { memory: memory(dir2) } } });
  t.after(() => plain.close());
  assert.deepEqual((await checkToolShell(plain)).filter((f) => f.rule_id === "servers.annotations_not_taken"), []);
});
