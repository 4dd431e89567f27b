#!/usr/bin/env node
// Second step of `npm run build` (after tsc): puts the patched shell engine into dist/ so the
// installed package runs the engine the tests ran, whatever the consumer's node_modules holds.
// See "How the package carries the engine" in patches/README.md.
//
// 1. checks node_modules/just-bash is patched with these edits (its toolshellEngineId);
// 2. bundles it with esbuild into dist/engine/just-bash.js (+ chunks/), its pure-JavaScript
//    dependencies inlined, licence texts in dist/engine/LICENSES.txt;
// 3. copies just-bash's worker files next to the chunks that start them;
// 4. points dist/shell/just-bash.js (the one door to the engine) at the bundle;
// 5. copies just-bash's type declarations to dist/engine/types/ and points toolshell's own
//    declarations there, so the package needs no just-bash installed (its optional native
//    codecs would be compiled on install; README "In your own project").
import { build } from "esbuild";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { engineId } from "./just-bash-edits.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dist = path.join(root, "dist");
const out = path.join(dist, "engine");
const require = createRequire(path.join(root, "package.json"));
const fail = (msg) => {
  console.error(`bundle-engine: ${msg}`);
  process.exit(1);
};

// just-bash's dependencies that stay outside the bundle: WebAssembly or native code that
// locates files next to itself. sql.js (the sqlite3 command) is a dependency of toolshell;
// the others serve commands toolshell does not enable (js-exec) or optional codecs.
const EXTERNAL = ["sql.js", "quickjs-emscripten", "@mongodb-js/zstd", "node-liblzma"];
const WORKERS = ["worker.js", "js-exec-worker.js", "sqlite3-worker.js"];

// 1. the engine in node_modules is the one src/shell/just-bash.ts expects
const jbDir = path.resolve(path.dirname(require.resolve("just-bash")), "..", "..");
const jbBundle = path.join(jbDir, "dist", "bundle", "index.js");
const expected = /export const ENGINE_ID = "([^"]+)";/.exec(readFileSync(path.join(root, "src/shell/just-bash.ts"), "utf8"))?.[1];
if (expected !== engineId) fail(`src/shell/just-bash.ts has ENGINE_ID ${expected}, patches/just-bash-edits.mjs makes ${engineId}`);
if (!readFileSync(jbBundle, "utf8").includes(`toolshellEngineId = ${JSON.stringify(engineId)}`)) {
  fail(`${jbBundle} is not patched with ${engineId}: run \`npx patch-package\` (npm ci runs it)`);
}

// 2. bundle
rmSync(out, { recursive: true, force: true });
const result = await build({
  entryPoints: { "just-bash": jbBundle },
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  outdir: out,
  chunkNames: "chunks/[name]-[hash]",
  external: EXTERNAL,
  minifyWhitespace: true,
  legalComments: "none",
  metafile: true,
  logLevel: "warning",
  banner: {
    js: `// just-bash ${JSON.parse(readFileSync(path.join(jbDir, "package.json"), "utf8")).version} (Apache-2.0, see LICENSES.txt) with toolshell's edits (${engineId}).\nimport{createRequire as __tsCreateRequire}from"node:module";const require=__tsCreateRequire(import.meta.url);`,
  },
});

// Licence texts of just-bash and of every package inlined into the bundle.
const packages = new Set([jbDir]);
for (const input of Object.keys(result.metafile.inputs)) {
  const m = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
  if (m) packages.add(path.resolve(root, m[1]));
}
let licences = "Licences of the code bundled in this folder (toolshell's build, patches/bundle-engine.mjs).\n";
for (const dir of [...packages].sort()) {
  const pkg = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8"));
  const file = readdirSync(dir).find((f) => /^(licen[cs]e|copying)(\.|$)/i.test(f));
  licences += `\n${"=".repeat(72)}\n${pkg.name}@${pkg.version} (${pkg.license ?? "see text"})\n${"=".repeat(72)}\n`;
  licences += file ? readFileSync(path.join(dir, file), "utf8") : `No licence file in the package; package.json says: ${pkg.license}\n`;
}
writeFileSync(path.join(out, "LICENSES.txt"), licences);

// 3. workers are started by path, relative to the file that starts them
const walk = (dir) => readdirSync(dir).flatMap((f) => (statSync(path.join(dir, f)).isDirectory() ? walk(path.join(dir, f)) : [path.join(dir, f)]));
const outputs = walk(out).filter((f) => f.endsWith(".js"));
for (const worker of WORKERS) {
  const users = outputs.filter((f) => readFileSync(f, "utf8").includes(worker));
  if (users.length === 0) fail(`no bundled file refers to ${worker}: just-bash changed its layout`);
  for (const dir of new Set(users.map((f) => path.dirname(f)))) copyFileSync(path.join(jbDir, "dist", "bundle", "chunks", worker), path.join(dir, worker));
}

// 4. the door
const door = path.join(dist, "shell", "just-bash.js");
const text = readFileSync(door, "utf8");
const n = text.split('"just-bash"').length - 1;
if (n < 3) fail(`${door}: expected the import, the re-export and the specifier of "just-bash", found ${n}`);
writeFileSync(door, text.replaceAll('"just-bash"', '"../engine/just-bash.js"'));
for (const f of walk(dist).filter((f) => f.endsWith(".js") && !f.startsWith(out))) {
  if (/(from|import\()\s*"just-bash"/.test(readFileSync(f, "utf8"))) fail(`${f} imports just-bash directly: import it from src/shell/just-bash.ts`);
}

// 5. the types: just-bash's declarations (not its tests' helpers); a type from a package the
//    consumer does not have (tar's modern-tar, the network code's undici) becomes `unknown` or
//    `any`; toolshell's API uses none of them.
const types = path.join(out, "types");
const jbTypes = path.join(jbDir, "dist");
let declarations = 0;
for (const f of walk(jbTypes).filter((f) => f.endsWith(".d.ts") && !f.includes(`${path.sep}bundle${path.sep}`))) {
  let text = readFileSync(f, "utf8");
  if (/from "vitest"/.test(text) || /\.test\.d\.ts$/.test(f)) continue;
  text = text.replace(/^import \{([^}]*)\} from "(?!node:|\.)([^"]+)";$/gm, (_line, names, pkg) =>
    names
      .split(",")
      .map((n) => n.replace(/\btype\b/, "").trim())
      .filter(Boolean)
      .map((n) => `/** From ${pkg}, which the package does not install. */\ntype ${n} = unknown;`)
      .join("\n"),
  );
  // `typeof import("undici")` (the network code's): `any`, so `Pick<…>` around it still checks.
  text = text.replace(/typeof import\("(?!node:|\.)[^"]+"\)(\.[A-Za-z_$][\w$]*)*/g, "any");
  const to = path.join(types, path.relative(jbTypes, f));
  mkdirSync(path.dirname(to), { recursive: true });
  writeFileSync(to, text);
  declarations++;
}
if (!existsSync(path.join(types, "index.d.ts"))) fail(`no index.d.ts in ${jbTypes}: just-bash changed its layout`);
for (const f of walk(dist).filter((f) => f.endsWith(".d.ts") && !f.startsWith(out))) {
  const text = readFileSync(f, "utf8");
  if (!text.includes('"just-bash"')) continue;
  let rel = path.relative(path.dirname(f), path.join(types, "index.js")).split(path.sep).join("/");
  if (!rel.startsWith(".")) rel = `./${rel}`;
  writeFileSync(f, text.replaceAll('from "just-bash"', `from "${rel}"`));
}

if (!existsSync(path.join(out, "just-bash.js"))) fail("esbuild wrote no dist/engine/just-bash.js");
console.log(`bundle-engine: ${engineId} → dist/engine/ (${outputs.length} files, ${declarations} type declarations)`);
