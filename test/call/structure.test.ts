/**
 * The shape of the code, checked from its source: each rule of the call path is applied in one
 * place (the pipeline's steps), no module imports itself back through a cycle, and no file in
 * `src/` grows past 400 lines. See docs/architecture.md.
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
  assert.deepEqual(where(/redactor[!?]?\.output\(|\br\.output\(/), ["call/steps/redact.ts"]);
  // An event built (`type: "tool.nested_call",` or a conditional), not a type declared.
  assert.deepEqual(where(/type:\s*(?:[^,;\n]*\?\s*)?"tool\.nested_call"\s*[,:}]/), ["call/steps/event.ts"]);
  // Approval requests are raised one way (Policy.requestApproval): by the call pipeline and by the
  // preflight before a script starts, never by writing to a book directly.
  assert.deepEqual(where(/\brequestApproval\(/).filter((f) => !f.startsWith("policy/")), ["call/steps/policy.ts", "runtime/plan-command.ts"]);
  assert.deepEqual(where(/\)\.request\(\{|book\.request\(/).filter((f) => !f.startsWith("policy/")), []);
  // One conversion of any failure into a ToolCallError.
  assert.deepEqual(where(/export function (as|to)[A-Za-z]*CallError\(/), ["mcp/errors.ts", "tool/types.ts"]);
});

test("no circular imports between modules of src/ (type-only imports aside)", () => {
  const graph = new Map<string, string[]>();
  for (const f of files()) {
    const sf = ts.createSourceFile(f, readFileSync(f, "utf8"), ts.ScriptTarget.Latest, false, f.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
    const deps: string[] = [];
    for (const st of sf.statements) {
      let spec: ts.Expression | undefined;
      if (ts.isImportDeclaration(st) && !st.importClause?.isTypeOnly) {
        const named = st.importClause?.namedBindings;
        const allTypes = named && ts.isNamedImports(named) && !st.importClause?.name && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly);
        if (!allTypes) spec = st.moduleSpecifier;
      } else if (ts.isExportDeclaration(st) && !st.isTypeOnly && st.moduleSpecifier) spec = st.moduleSpecifier;
      if (spec && ts.isStringLiteral(spec) && spec.text.startsWith(".")) {
        const target = path.resolve(path.dirname(f), spec.text.replace(/\.js$/, ".ts"));
        deps.push(existsSync(target) ? target : target.replace(/\.ts$/, ".tsx"));
      }
    }
    graph.set(f, deps);
  }
  const cycles: string[] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (f: string): void => {
    if (state.get(f) === "done") return;
    if (state.get(f) === "open") {
      cycles.push([...stack.slice(stack.indexOf(f)), f].map(rel).join(" → "));
      return;
    }
    state.set(f, "open");
    stack.push(f);
    for (const d of graph.get(f) ?? []) visit(d);
    stack.pop();
    state.set(f, "done");
  };
  for (const f of graph.keys()) visit(f);
  assert.deepEqual(cycles, []);
});

test("no file in src/ is over 400 lines", () => {
  const big = files().filter((f) => readFileSync(f, "utf8").split("\n").length > 401).map(rel);
  assert.deepEqual(big, []);
});
