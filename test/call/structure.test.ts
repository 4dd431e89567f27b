/**
 * The shape of the code, checked from its source: each rule of the call path is applied in one
 * place (the pipeline's steps), no module imports itself back through a cycle, no two folders of
 * `src/` depend on each other, and no file in `src/` grows past 400 lines. See docs/architecture.md.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../src");

function files(dir = SRC): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = path.join(dir, n);
    return statSync(p).isDirectory() ? files(p) : /\.tsx?$/.test(p) ? [p] : [];
  });
}

const rel = (p: string) => path.relative(SRC, p);

/** Files under src/ whose code (comments removed) matches `re`. */
function where(re: RegExp): string[] {
  return files().filter((f) => {
    const code = readFileSync(f, "utf8").replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
    return re.test(code);
  }).map(rel);
}

test("the policy judge, the redaction of call results and the call event are each applied in one place", () => {
  assert.deepEqual(where(/\.judge\(/), ["call/steps/policy.ts"]);
  // A result is redacted by `redactOutput` (on the main thread, or in a worker past 1 MiB: the
  // only callers of the redactor's `output`), applied by the pipeline's redact step alone.
  assert.deepEqual(where(/redactor[!?]?\.output\(|\br\.output\(/), ["call/redact/off-thread.ts", "call/redact/worker.ts"]);
  assert.deepEqual(where(/\bredactOutput\(/).filter((f) => f !== "call/redact/off-thread.ts"), ["call/steps/redact.ts"]);
  // An event built (`type: "tool.nested_call",` or a conditional), not a type declared.
  assert.deepEqual(where(/type:\s*(?:[^,;\n]*\?\s*)?"tool\.nested_call"\s*[,:}]/), ["call/steps/event.ts"]);
  // Approval requests are raised one way: `raiseRequest` (Policy.requestApproval and the
  // `approval.requested` event), used by the call pipeline and by the preflight before a script
  // starts, never by writing to a book directly.
  assert.deepEqual(where(/\brequestApproval\(/).filter((f) => !f.startsWith("policy/")), ["call/steps/policy.ts"]);
  assert.deepEqual(where(/type:\s*"approval\.requested",/), ["call/steps/policy.ts"]);
  assert.deepEqual(where(/\braiseRequest\(/), ["call/steps/policy.ts", "runtime/plan-command.ts"]);
  assert.deepEqual(where(/\)\.request\(\{|book\.request\(/).filter((f) => !f.startsWith("policy/")), []);
  // One conversion of any failure into a ToolCallError.
  assert.deepEqual(where(/export function (as|to)[A-Za-z]*CallError\(/), ["mcp/errors.ts", "tool/types.ts"]);
});

/** One import of a file of src/: where it points, and whether it brings in types only. */
interface Import {
  target: string;
  typeOnly: boolean;
}

/**
 * Every relative import of every file of src/: static imports and re-exports, `import("…")` calls
 * and `import("…")` types. Type-only ones (`import type`, all names `type`, type positions) are
 * marked so.
 */
function imports(): Map<string, Import[]> {
  const graph = new Map<string, Import[]>();
  for (const f of files()) {
    const sf = ts.createSourceFile(f, readFileSync(f, "utf8"), ts.ScriptTarget.Latest, false, f.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
    const found: Import[] = [];
    const add = (spec: ts.Node | undefined, typeOnly: boolean): void => {
      if (!spec || !ts.isStringLiteral(spec) || !spec.text.startsWith(".")) return;
      const target = path.resolve(path.dirname(f), spec.text.replace(/\.js$/, ".ts"));
      found.push({ target: existsSync(target) ? target : target.replace(/\.ts$/, ".tsx"), typeOnly });
    };
    const walk = (n: ts.Node): void => {
      if (ts.isImportDeclaration(n)) {
        const named = n.importClause?.namedBindings;
        const allTypes = !!named && ts.isNamedImports(named) && !n.importClause?.name && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly);
        add(n.moduleSpecifier, !!n.importClause?.isTypeOnly || allTypes);
      } else if (ts.isExportDeclaration(n)) {
        const named = n.exportClause;
        const allTypes = !!named && ts.isNamedExports(named) && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly);
        add(n.moduleSpecifier, n.isTypeOnly || allTypes);
      } else if (ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.ImportKeyword) {
        add(n.arguments[0], false);
      } else if (ts.isImportTypeNode(n) && ts.isLiteralTypeNode(n.argument)) {
        add(n.argument.literal, true);
      }
      ts.forEachChild(n, walk);
    };
    walk(sf);
    graph.set(f, found);
  }
  return graph;
}

/** The cycles of a graph, each written `a → b → a`. */
function cycles(graph: Map<string, string[]>): string[] {
  const found: string[] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (n: string): void => {
    if (state.get(n) === "done") return;
    if (state.get(n) === "open") {
      found.push([...stack.slice(stack.indexOf(n)), n].join(" → "));
      return;
    }
    state.set(n, "open");
    stack.push(n);
    for (const d of graph.get(n) ?? []) visit(d);
    stack.pop();
    state.set(n, "done");
  };
  for (const n of graph.keys()) visit(n);
  return found;
}

test("no circular imports between modules of src/ (type-only imports aside: they vanish at run time)", () => {
  const graph = new Map([...imports()].map(([f, deps]) => [rel(f), deps.filter((d) => !d.typeOnly).map((d) => rel(d.target))]));
  assert.deepEqual(cycles(graph), []);
});

test("no two folders of src/ import each other, even through type-only imports", () => {
  // A folder is a top-level folder of src/ (`call`, `runtime`, …), subfolders included; files at
  // the root of src/ are the folder ".". Within a folder, files may depend on each other freely.
  const folderOf = (f: string) => (rel(f).includes(path.sep) ? rel(f).split(path.sep)[0] : ".");
  const graph = new Map<string, string[]>();
  const why = new Map<string, string>();
  for (const [f, deps] of imports()) {
    const from = folderOf(f);
    for (const d of deps) {
      const to = folderOf(d.target);
      if (to === from) continue;
      graph.set(from, [...new Set([...(graph.get(from) ?? []), to])]);
      if (!why.has(`${from} ${to}`)) why.set(`${from} ${to}`, `${rel(f)} imports ${rel(d.target)}`);
    }
  }
  const found = cycles(graph).map((c) => {
    const steps = c.split(" → ");
    return `${c} (${steps.slice(1).map((to, i) => why.get(`${steps[i]} ${to}`)).join("; ")})`;
  });
  assert.deepEqual(found, []);
});

test("no file in src/ is over 400 lines", () => {
  const big = files().filter((f) => readFileSync(f, "utf8").split("\n").length > 401).map(rel);
  assert.deepEqual(big, []);
});
