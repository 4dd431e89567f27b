/**
 * The installed package is the tested package: `npm pack`, then `npm install <tarball>` into an
 * empty ESM project, then `createToolShell` and a script with jq, `trap … EXIT`, `"$@"` and
 * nested calls — with every install script switched off (toolshell needs none), again after
 * the consumer's `npm ci` and after it installs a fresh just-bash of its own. The consumer's
 * TypeScript checks the package's types without `skipLibCheck`, and an installed toolshell
 * whose engine is not the one it was built with refuses to start (src/shell/just-bash.ts).
 *
 * The project is made as a user makes one (`npm init -y`, which npm 11 writes as CommonJS), the
 * README's library example runs there as the README says to save it, nothing in node_modules
 * compiles or has an install script (just-bash, whose optional codecs do, is bundled, not a
 * dependency), no file points at sources the package does not ship (source maps), and the
 * consumer's TypeScript checks `toolshell/ai` and the shipped examples/ai-sdk-loop.ts.
 *
 * Needs `dist/` (`npm run test:package` builds it; `npm test` builds before its tests).
 * npm installs from its cache where it can (`--offline`), else from the registry.
 */
import assert from "node:assert/strict";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { docBlock, makeConsumer, npmInstall, root, run } from "./consumer.js";

const CONSUMER = `
import { createToolShell, defineTool } from "toolshell";

const shell = await createToolShell({
  config: { mcpServers: {} },
  tools: {
    greet: defineTool({
      description: "Greet someone.",
      inputSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
      hints: { readOnly: true },
      execute: async ({ name }) => ({ greeting: "hello " + name }),
    }),
  },
});
try {
  const r = await shell.session("first-hour").bash(\`
trap 'echo "cleanup done"' EXIT
call() { "$@"; }
call tools greet name=world | jq -r .greeting
inner=$(tools greet name=inner | jq -r .greeting)
tools greet name="$inner" | jq -c '{g: .greeting, n: (.greeting | length)}'
\`);
  process.stdout.write(JSON.stringify({ stdout: r.stdout, stderr: r.stderr, exit_code: r.exit_code }));
} finally {
  await shell.close();
}
`;

const TYPES = `
import { createToolShell, defineTool, type ToolShell } from "toolshell";
import { openHost } from "toolshell/server";
import * as gateway from "toolshell/gateway";
import { z } from "zod";

const weather = defineTool({
  description: "Weather for a city.",
  inputSchema: z.object({ city: z.string() }),
  // city is a string here (not unknown): the schema's type reaches execute under exactOptionalPropertyTypes too.
  execute: async ({ city }) => ({ city: city.toUpperCase(), sky: "sunny" }),
});
const tool = defineTool({
  description: "Add two numbers.",
  inputSchema: { type: "object", properties: { a: { type: "number" } } },
  execute: async () => ({ sum: 1 }),
});
export async function start(): Promise<ToolShell> {
  return createToolShell({ config: { mcpServers: {} }, tools: { add: tool, weather } });
}
export const host: typeof openHost = openHost;
export const surface = gateway;
`;

const AI_TYPES = `
import { createToolShell } from "toolshell";
import { createToolshellTools } from "toolshell/ai";
import { agentTurn } from "./ai-sdk-loop.js";

export async function turn(): Promise<unknown> {
  const shell = await createToolShell({ config: { mcpServers: {} } });
  const session = shell.session("typed");
  const tools = await createToolshellTools({ shell, session });
  // The bash tool is always there and typed: no check needed, under noUncheckedIndexedAccess too.
  const description: string | undefined = typeof tools.bash.description === "string" ? tools.bash.description : undefined;
  return { tools, agentTurn, description };
}
`;

/** The README's library example (the block after "## Use it from code"), printing its first result. */
function readmeExample(): string {
  return docBlock("README.md", /## Use it from code/, "js") + "\nconsole.log(JSON.stringify(r));\n";
}

/** Every installed package that would compile or run a script on install. */
function installScripts(nodeModules: string): string[] {
  const found: string[] = [];
  const look = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const d = path.join(dir, name);
      if (name.startsWith(".") || !statSync(d).isDirectory()) continue;
      if (name.startsWith("@")) {
        look(d);
        continue;
      }
      const pj = path.join(d, "package.json");
      if (existsSync(pj)) {
        const m = JSON.parse(readFileSync(pj, "utf8")) as { name?: string; scripts?: Record<string, string>; gypfile?: boolean };
        const hooks = ["preinstall", "install", "postinstall"].filter((h) => m.scripts?.[h]);
        if (hooks.length || m.gypfile || existsSync(path.join(d, "binding.gyp"))) found.push(`${m.name ?? name} (${hooks.join(", ") || "binding.gyp"})`);
      }
      if (existsSync(path.join(d, "node_modules"))) look(path.join(d, "node_modules"));
    }
  };
  look(nodeModules);
  return found;
}

test("the packed package works in an empty ESM project with no install script, after npm ci and other installs", { timeout: 30 * 60_000 }, async (t) => {
  const { proj, files } = makeConsumer(t, (proj) => writeFileSync(path.join(proj, "first-hour.mjs"), CONSUMER));
  assert.ok(files.includes("dist/engine/just-bash.js") && files.includes("dist/engine/LICENSES.txt"), "the tarball carries the bundled engine and its licences");
  assert.ok(!files.some((f) => f.startsWith("src/") || f.startsWith("test/")), "no sources or tests in the tarball");
  assert.ok(!files.some((f) => f.endsWith(".map")), "no source maps: they name src/*.ts files the package does not ship");
  assert.ok(files.includes("examples/ai-sdk-loop.ts"), "docs/agents.md's loop is in the package");

  const nm = path.join(proj, "node_modules");
  assert.deepEqual(installScripts(nm), [], "nothing installed compiles or runs an install script");
  assert.ok(!existsSync(path.join(nm, "just-bash")) && !existsSync(path.join(nm, "node-liblzma")), "the engine is bundled: just-bash and its native codecs are not installed");
  const mapped = (dir: string): string[] =>
    readdirSync(dir).flatMap((f) => {
      const p = path.join(dir, f);
      if (statSync(p).isDirectory()) return mapped(p);
      return /\.(js|d\.ts)$/.test(f) && readFileSync(p, "utf8").includes("sourceMappingURL") ? [p] : [];
    });
  assert.deepEqual(mapped(path.join(nm, "toolshell", "dist")), [], "no file points a stack trace at a source map");

  // the README's example, saved as the README says, in that project
  writeFileSync(path.join(proj, "toolshell.config.json"), "{}\n");
  writeFileSync(path.join(proj, "example.mjs"), readmeExample());
  const example = run(process.execPath, ["example.mjs"], proj);
  assert.equal(example.status, 0, example.stderr);
  assert.deepEqual(JSON.parse(example.stdout), { stdout: "Sunny\n", stderr: "", exit_code: 0, success: true, tool_call_id: "call_bash_1" });

  // In that CommonJS project, a `.js` tool file written with `import` loads, as does one written
  // with `require` (README "A folder of tools"), with no Node warning; and a CommonJS script
  // requires toolshell (Node 20.19 and later load its ES modules through require).
  mkdirSync(path.join(proj, "agent", "tools"), { recursive: true });
  writeFileSync(path.join(proj, "agent", "tools", "hello.js"), 'import { defineTool } from "toolshell";\nexport default defineTool({ description: "Say hello.", inputSchema: { type: "object", properties: { name: { type: "string" } } }, execute: async ({ name }) => ({ hello: name }) });\n');
  writeFileSync(path.join(proj, "agent", "tools", "bye.js"), 'const { defineTool } = require("toolshell");\nmodule.exports = defineTool({ description: "Say bye.", inputSchema: { type: "object" }, execute: async () => ({ bye: true }) });\n');
  writeFileSync(path.join(proj, "required.cjs"), 'const { createToolShell } = require("toolshell");\ncreateToolShell({ config: "toolshell.config.json" }).then(async (s) => { const r = await s.session("cjs").bash("tools hello name=a; tools bye"); await s.close(); process.stdout.write(r.stdout + r.stderr); });\n');
  const required = run(process.execPath, ["required.cjs"], proj);
  assert.equal(required.status, 0, required.stderr);
  assert.equal(required.stdout, '{"hello":"a"}\n{"bye":true}\n');
  assert.equal(required.stderr, "", "no Node warning about module types");
  rmSync(path.join(proj, "agent"), { recursive: true });

  const manifest = JSON.parse(readFileSync(path.join(proj, "node_modules", "toolshell", "package.json"), "utf8")) as { scripts?: Record<string, string> };
  for (const hook of ["preinstall", "install", "postinstall", "prepare"]) assert.equal(manifest.scripts?.[hook], undefined, `toolshell declares no ${hook} script`);
  assert.ok(!existsSync(path.join(proj, "node_modules", "ai")), "`ai` is an optional peer: not installed for a user who never imports toolshell/ai");

  const expected = { stdout: "hello world\n" + '{"g":"hello hello inner","n":17}\n' + "cleanup done\n", stderr: "", exit_code: 0 };
  const firstHour = () => {
    const r = run(process.execPath, ["first-hour.mjs"], proj);
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), expected);
  };
  firstHour();

  // npm ci (from the lock the install wrote) replaces node_modules: nothing of toolshell's is undone
  npmInstall(["ci"], proj);
  firstHour();
  // a just-bash of the consumer's own, fresh from the registry, is not the engine that runs
  npmInstall(["install", "just-bash@3.4.2"], proj);
  firstHour();

  // the consumer's TypeScript checks toolshell's types, skipLibCheck off, with the strictest
  // settings `tsc --init` writes (exactOptionalPropertyTypes): a Zod tool and the README's example
  writeFileSync(path.join(proj, "types.ts"), TYPES);
  writeFileSync(path.join(proj, "example.mts"), readmeExample());
  writeFileSync(
    path.join(proj, "tsconfig.json"),
    JSON.stringify({ compilerOptions: { strict: true, exactOptionalPropertyTypes: true, module: "nodenext", moduleResolution: "nodenext", target: "es2022", noEmit: true, skipLibCheck: false, types: ["node"] }, files: ["types.ts", "example.mts"] }),
  );
  const tsc = run(process.execPath, [path.join(root, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.json"], proj);
  assert.equal(tsc.status, 0, `tsc in the consumer:\n${tsc.stdout}${tsc.stderr}`);

  // toolshell/ai and the shipped loop type-check with nothing but `ai` added (no @types/json-schema);
  // not under exactOptionalPropertyTypes: with skipLibCheck off, `ai`'s own declarations fail it
  npmInstall(["install", "ai@7"], proj);
  copyFileSync(path.join(nm, "toolshell", "examples", "ai-sdk-loop.ts"), path.join(proj, "ai-sdk-loop.ts"));
  writeFileSync(path.join(proj, "ai-types.ts"), AI_TYPES);
  writeFileSync(
    path.join(proj, "tsconfig.json"),
    JSON.stringify({ compilerOptions: { strict: true, noUncheckedIndexedAccess: true, module: "nodenext", moduleResolution: "nodenext", target: "es2022", noEmit: true, skipLibCheck: false, types: ["node"] }, files: ["ai-types.ts", "ai-sdk-loop.ts"] }),
  );
  const aiTsc = run(process.execPath, [path.join(root, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.json"], proj);
  assert.equal(aiTsc.status, 0, `tsc of toolshell/ai in the consumer:\n${aiTsc.stdout}${aiTsc.stderr}`);

  // an engine that is not the one toolshell was built with: refused, with the reason
  const enginePath = path.join(proj, "node_modules", "toolshell", "dist", "engine", "just-bash.js");
  const engine = readFileSync(enginePath, "utf8");
  const tampered = engine.replace(/toolshellEngineId\s*=\s*"just-bash@3\.4\.2\+toolshell\.[0-9a-f]+"/, 'toolshellEngineId="just-bash@3.4.2+toolshell.000000000000"');
  assert.notEqual(tampered, engine, "the bundled engine carries its id");
  writeFileSync(enginePath, tampered);
  const refused = run(process.execPath, ["first-hour.mjs"], proj);
  assert.notEqual(refused.status, 0);
  assert.match(refused.stderr, /toolshell: refusing to start: the shell engine loaded from \S+dist\/engine\/just-bash\.js is the engine just-bash@3\.4\.2\+toolshell\.000000000000, but this toolshell was built with just-bash@3\.4\.2\+toolshell\.[0-9a-f]{12}/);
});
