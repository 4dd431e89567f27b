/**
 * `toolshell check` on real servers: a stdio server whose tools break the rules on purpose
 * (lint-server.ts), the kit fixture's failing start, a clean config (the demo), and the CLI's
 * exit code (0 whatever it finds, a broken config file included), and ratings read from a
 * PostgreSQL store on a real server (test/fixtures/postgres.ts).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { checkToolShell, type Finding } from "../../src/check/index.js";
import { createToolShell, defineTool, type ToolShell } from "../../src/index.js";
import { MemoryRatingCache, ratingKey } from "../../src/policy/index.js";
import { openStore } from "../../src/store/index.js";
import { KIT_SERVER, tsxCommand } from "../fixtures/mcp/index.js";
import { freshDatabase } from "../fixtures/postgres.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");
const LINT_SERVER = path.join(here, "lint-server.ts");

const shells: ToolShell[] = [];
after(async () => {
  await Promise.all(shells.map((s) => s.close()));
});

function lintConfig(extra: Record<string, unknown> = {}): { dir: string; config: Record<string, unknown> } {
  const dir = mkdtempSync(path.join(tmpdir(), "ts-check-"));
  return {
    dir,
    config: {
      mcpServers: {
        lint: { ...tsxCommand(LINT_SERVER), load: "on_demand" },
        broken: tsxCommand(KIT_SERVER, ["fail-start"]),
      },
      keepVisible: ["lint big", "nope"],
      approval: { tools: { "lint gone": "always" } },
      logDir: path.join(dir, "logs"),
      ...extra,
    },
  };
}

async function check(config: Record<string, unknown>, dir: string, options: Parameters<typeof checkToolShell>[1] = {}, tools = {}): Promise<Finding[]> {
  const shell = await createToolShell({ config, baseDir: dir, tools });
  shells.push(shell);
  return checkToolShell(shell, options);
}

const ids = (fs: Finding[]) => fs.map((f) => `${f.rule_id}@${f.location}`);

test("every rule fires on the server built to break them, with severity, category and location", async () => {
  const { dir, config } = lintConfig();
  const findings = await check(config, dir, {}, { search_tools: defineTool({ description: "Find tools by keyword.", inputSchema: {}, hints: { readOnly: true }, execute: () => "" }) });
  for (const f of findings) {
    assert.ok(["warning", "info", "suggestion"].includes(f.severity), f.rule_id);
    assert.ok(["structure", "completeness", "effectiveness", "safety", "cost"].includes(f.category), f.rule_id);
    assert.ok(f.message.length > 10 && f.location.length > 0, f.rule_id);
  }
  const got = ids(findings);
  for (const want of [
    "capabilities.superseded@tools lint tool-search",
    "capabilities.superseded@tools search-tools",
    "tools.no_description@tools lint nodesc",
    "tools.duplicate_name@tools lint get-item",
    "tools.schema_too_large@tools lint big",
    "tools.unrated@tools lint tool-search",
    "servers.failed_to_start@mcpServers.broken",
    "config.keep_visible_unknown@keepVisible[1]",
    "config.approval_unknown@approval.tools.lint gone",
    "context.size@keepVisible",
  ]) {
    assert.ok(got.includes(want), `missing ${want} in:\n${got.join("\n")}`);
  }
  const f = (id: string) => findings.find((x) => x.rule_id === id)!;
  assert.deepEqual([f("capabilities.superseded").severity, f("capabilities.superseded").category], ["suggestion", "structure"]);
  assert.deepEqual([f("tools.no_description").severity, f("tools.no_description").category], ["warning", "completeness"]);
  assert.deepEqual([f("tools.schema_too_large").severity, f("tools.schema_too_large").category], ["warning", "cost"]);
  assert.deepEqual([f("tools.unrated").severity, f("tools.unrated").category], ["info", "safety"]);
  assert.match(f("servers.failed_to_start").message, /FIXTURE_TOKEN is missing|exited|start/);
  assert.equal(got.includes("tools.unrated@tools lint get-item"), false, "annotated tools are not reported as unrated");
  assert.equal(got.includes("config.keep_visible_unknown@keepVisible[0]"), false, "a kept tool that exists is not reported");
  // Warnings come first.
  const firstInfo = findings.findIndex((x) => x.severity === "info");
  assert.ok(findings.slice(firstInfo).every((x) => x.severity === "info"));
});

test("tools.unrated: a warning when ratings are off; nothing once a rating is cached; the size limit is a parameter", async () => {
  const off = lintConfig({ rateUnlabeledTools: false });
  const noRatings = await check(off.config, off.dir);
  const unrated = noRatings.filter((x) => x.rule_id === "tools.unrated");
  assert.ok(unrated.length >= 2);
  assert.ok(unrated.every((x) => x.severity === "warning"));

  const on = lintConfig();
  const shell = await createToolShell({ config: on.config, baseDir: on.dir });
  shells.push(shell);
  await shell.sources.find((s) => s.name === "lint")!.load();
  const cache = new MemoryRatingCache();
  for (const t of shell.sources.find((s) => s.name === "lint")!.tools()) await cache.add({ key: ratingKey(t), probability: 0.2, rated_at: new Date().toISOString(), by: "test" });
  const rated = await checkToolShell(shell, { ratingCache: cache, schemaTokenLimit: 100_000 });
  assert.equal(rated.some((x) => x.rule_id === "tools.unrated"), false);
  assert.equal(rated.some((x) => x.rule_id === "tools.schema_too_large"), false);
});

test("the demo config has no warnings; --no-load leaves on-demand servers alone and says so", async () => {
  const demo = path.join(root, "examples/toolshell.config.json");
  const shell = await createToolShell({ config: demo });
  shells.push(shell);
  const findings = await checkToolShell(shell, { load: false });
  assert.deepEqual(findings.filter((x) => x.severity === "warning"), []);
  assert.ok(ids(findings).includes("servers.not_checked@mcpServers.everything"));
  assert.equal(shell.sources.find((s) => s.name === "everything")!.state(), "not_loaded");
});

function cli(args: string[], cwd: string, env: Record<string, string> = {}) {
  const cmd = tsxCommand(path.join(root, "src/cli/main.ts"), args);
  const r = spawnSync(cmd.command, cmd.args, { cwd, encoding: "utf8", timeout: 90_000, env: { ...process.env, ...env } });
  return { stdout: r.stdout, stderr: r.stderr, code: r.status };
}

test("the CLI: findings as text or JSON, exit 0 whatever it finds — a config that does not load is a finding too", () => {
  const { dir, config } = lintConfig();
  writeFileSync(path.join(dir, "toolshell.config.json"), JSON.stringify(config));
  const text = cli(["check"], dir);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /^warning +completeness +servers\.failed_to_start +mcpServers\.broken: /m);
  assert.match(text.stdout, /\d+ findings?: \d+ warnings?, \d+ suggestions?, \d+ info\. Advisory only/);
  const json = cli(["check", "--json"], dir);
  assert.equal(json.code, 0);
  const findings = JSON.parse(json.stdout) as Finding[];
  assert.ok(findings.some((f) => f.rule_id === "capabilities.superseded"));

  writeFileSync(path.join(dir, "toolshell.config.json"), JSON.stringify({ mcpServers: {}, callLimt: 3 }));
  const bad = cli(["check", "--json"], dir);
  assert.equal(bad.code, 0);
  const [only] = JSON.parse(bad.stdout) as Finding[];
  assert.equal(only.rule_id, "config.invalid");
  // The file is the finding's location; the message does not name it again.
  assert.match(only.message, /^callLimt: unknown key; did you mean "callLimit"\?/);
  assert.equal(path.resolve(dir, only.location), path.join(dir, "toolshell.config.json"));
  const named = cli(["check", "--config", path.join(dir, "toolshell.config.json")], dir);
  assert.equal(named.code, 0);
  assert.equal(named.stdout.split(path.join(dir, "toolshell.config.json")).length, 2, named.stdout);
  writeFileSync(path.join(dir, "broken.json"), "{");
  const broken = JSON.parse(cli(["check", "--json", "--config", path.join(dir, "broken.json")], dir).stdout) as Finding[];
  assert.match(broken[0].message, /^not valid JSON/);
});

test("the CLI reads ratings from a postgres:// store; a store it cannot open is a finding that never shows the password", async (t) => {
  const url = new URL(await freshDatabase(t));
  url.password = "pw-not-shown"; // the throwaway cluster trusts local sign-ins: any password works
  const { dir, config } = lintConfig();
  writeFileSync(path.join(dir, "toolshell.config.json"), JSON.stringify({ ...config, store: "${DATABASE_URL}" }));
  const findings = (env: Record<string, string>) => {
    const r = cli(["check", "--json"], dir, env);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(!r.stdout.includes("pw-not-shown") && !r.stdout.includes("s3cret"), r.stdout);
    return JSON.parse(r.stdout) as Finding[];
  };
  const unrated = (fs: Finding[]) => fs.filter((f) => f.rule_id === "tools.unrated").map((f) => f.location);
  const before = findings({ DATABASE_URL: url.toString() });
  assert.ok(unrated(before).includes("tools lint tool-search"), ids(before).join("\n"));
  assert.equal(before.some((f) => f.rule_id === "store.unavailable"), false);

  // A server on the same database rated the lint server's tools.
  const shell = await createToolShell({ config, baseDir: dir });
  shells.push(shell);
  const lint = shell.sources.find((s) => s.name === "lint")!;
  await lint.load();
  const store = await openStore(url.toString());
  for (const tool of lint.tools()) await store.ratings.add({ key: ratingKey(tool), probability: 0.2, rated_at: new Date().toISOString(), by: "test" });
  await store.close();
  assert.deepEqual(unrated(findings({ DATABASE_URL: url.toString() })), []);

  // Nothing listens on port 1: the store is a finding, the rest of the check goes on.
  const down = findings({ DATABASE_URL: "postgres://me:s3cret@127.0.0.1:1/db" });
  const f = down.find((x) => x.rule_id === "store.unavailable");
  assert.deepEqual([f?.severity, f?.category, f?.location], ["warning", "completeness", "store"]);
  assert.match(f!.message, /^could not open the PostgreSQL store at postgres:\/\/me@127\.0\.0\.1:1\/db: .*; ratings were not read/);
  assert.ok(unrated(down).includes("tools lint tool-search"));
});

test("tools.not_loaded: each tool file of the folder that did not load is a warning naming the file and why; the files that load are not", (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), "ts-check-tools-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(path.join(dir, "tools"));
  writeFileSync(path.join(dir, "tools", "cut_off.mjs"), 'export default { description: "x", execute( ');
  writeFileSync(path.join(dir, "tools", "plain_object.mjs"), 'export default { description: "not made with defineTool", execute: () => 1 };');
  writeFileSync(path.join(dir, "tools", "missing_import.mjs"), 'import "./no-such-file.mjs";\nexport default 1;');
  writeFileSync(path.join(dir, "tools", "fine.mjs"), `import { defineTool } from ${JSON.stringify(pathToFileURL(path.join(root, "src/index.ts")).href)};\nexport default defineTool({ description: "Answers ok, always.", inputSchema: { type: "object" }, hints: { readOnly: true }, execute: () => "ok" });`);
  writeFileSync(path.join(dir, "toolshell.config.json"), JSON.stringify({ tools: "tools" }));
  const json = cli(["check", "--json"], dir);
  assert.equal(json.code, 0, json.stderr);
  const notLoaded = (JSON.parse(json.stdout) as Finding[]).filter((f) => f.rule_id === "tools.not_loaded");
  assert.deepEqual(notLoaded.map((f) => [f.severity, f.category, f.location]).sort(), [["warning", "completeness", "tools cut-off"], ["warning", "completeness", "tools missing-import"], ["warning", "completeness", "tools plain-object"]]);
  const why = Object.fromEntries(notLoaded.map((f) => [f.location, f.message]));
  assert.match(why["tools cut-off"], /cut_off\.mjs: failed to load: /);
  assert.match(why["tools plain-object"], /plain_object\.mjs: the default export must be a tool made with defineTool\(\)/);
  assert.match(why["tools missing-import"], /missing_import\.mjs: failed to load: .*no-such-file/);
});
