import assert from "node:assert/strict";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { always, defineTool, loadToolsDir, LocalToolSource, never, normalizeSchema, once, readSkill } from "../../src/tool/index.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const fixtures = path.join(here, "../fixtures");

test("defineTool refuses a definition without description, schema or execute", () => {
  assert.throws(() => defineTool({ description: "", inputSchema: z.object({}), execute: () => 1 }), /description/);
  assert.throws(() => defineTool({ description: "x", inputSchema: undefined as never, execute: () => 1 }), /inputSchema/);
  assert.throws(() => defineTool({ description: "x", inputSchema: z.object({}), execute: undefined as never }), /execute/);
  assert.throws(() => defineTool({ name: "bad name!", description: "x", inputSchema: z.object({}), execute: () => 1 }), /invalid tool name/);
});

test("approval helpers and predicates become policies", () => {
  assert.deepEqual(defineTool({ description: "x", inputSchema: {}, approval: always(), execute: () => 1 }).approval, { kind: "always" });
  assert.deepEqual(defineTool({ description: "x", inputSchema: {}, needsApproval: once(), execute: () => 1 }).approval, { kind: "once" });
  assert.deepEqual(defineTool({ description: "x", inputSchema: {}, approval: never(), execute: () => 1 }).approval, { kind: "never" });
  const pred = defineTool({ description: "x", inputSchema: {}, needsApproval: () => true, execute: () => 1 }).approval;
  assert.equal(pred?.kind, "predicate");
});

test("Zod, Standard Schema and plain JSON Schema all give a JSON Schema and a validator", async () => {
  const zod = await normalizeSchema(z.object({ city: z.string().min(1), days: z.number().int().optional() }));
  assert.equal((zod.jsonSchema.properties as Record<string, { type: string }>).days.type, "integer");
  assert.equal("minimum" in (zod.jsonSchema.properties as Record<string, object>).days, false, "safe-integer noise is dropped");
  assert.deepEqual(await zod.validate({ city: "Oslo" }), { ok: true, value: { city: "Oslo" } });
  const bad = await zod.validate({ city: "" });
  assert.equal(bad.ok, false);

  const json = await normalizeSchema({ type: "object", properties: { n: { type: "integer" } }, required: ["n"] });
  assert.equal((await json.validate({ n: 2 })).ok, true);
  const missing = await json.validate({});
  assert.equal(missing.ok, false);
  assert.match(!missing.ok ? missing.errors.join() : "", /missing required field "n"/);

  // A hand-written Standard Schema with a JSON Schema (the Standard JSON Schema interface).
  const custom = {
    "~standard": {
      version: 1 as const,
      vendor: "custom",
      validate: (v: unknown) => (typeof (v as { q?: unknown })?.q === "string" ? { value: v } : { issues: [{ message: "q must be text", path: ["q"] }] }),
      jsonSchema: { input: () => ({ type: "object", properties: { q: { type: "string" } } }) },
    },
  };
  const std = await normalizeSchema(custom);
  assert.deepEqual(std.jsonSchema, { type: "object", properties: { q: { type: "string" } } });
  const wrong = await std.validate({ q: 1 });
  assert.deepEqual(wrong, { ok: false, errors: ["q: q must be text"] });

  // A Standard Schema that cannot give a JSON Schema is refused with a clear message.
  await assert.rejects(normalizeSchema({ "~standard": { version: 1, vendor: "nojson", validate: () => ({ value: 1 }) } }), /cannot give a JSON Schema/);
});

test("a Standard Schema that validates asynchronously works through the tools command", async () => {
  // Most validators answer synchronously and the nested-call path skips the await for them;
  // one that returns a promise must still be awaited, for valid and invalid input alike.
  const asyncSchema = {
    "~standard": {
      version: 1 as const,
      vendor: "custom-async",
      validate: async (v: unknown) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        const q = (v as { q?: unknown })?.q;
        return typeof q === "string" && q.length >= 3 ? { value: { q: q.toUpperCase() } } : { issues: [{ message: "q needs 3 letters", path: ["q"] }] };
      },
      jsonSchema: { input: () => ({ type: "object", properties: { q: { type: "string" } } }) },
    },
  };
  const { createToolShell } = await import("../../src/index.js");
  const ts = await createToolShell({
    tools: { shout: defineTool({ description: "Shouts.", inputSchema: asyncSchema, hints: { readOnly: true }, execute: (input) => String(input.q) }) },
  });
  try {
    const s = ts.session();
    const good = await s.bash("tools shout q=hello");
    assert.equal(good.exit_code, 0, good.stderr);
    assert.equal(good.stdout, "HELLO\n");
    const bad = await s.bash("tools shout q=hi");
    assert.equal(bad.exit_code, 1);
    assert.equal(JSON.parse(bad.stderr).error.code, "invalid_input");
    assert.match(bad.stderr, /q needs 3 letters/);
  } finally {
    await ts.close();
  }
});

test("a validator's promise from another realm, or a bare thenable, is awaited; an empty result is no success", async () => {
  const vm = await import("node:vm");
  const otherRealm = vm.runInNewContext("(v) => Promise.resolve(v)") as (v: unknown) => PromiseLike<unknown>;
  const thenable = (v: unknown) => ({ then: (resolve: (x: unknown) => void) => resolve(v) });
  const verdict = (value: unknown) => ((value as { amount?: number }).amount! <= 100 ? { value } : { issues: [{ message: "amount must be at most 100", path: ["amount"] }] });
  for (const wrap of [otherRealm, thenable, (v: unknown) => v]) {
    const std = await normalizeSchema({
      "~standard": { version: 1 as const, vendor: "custom", validate: (value: unknown) => wrap(verdict(value)) as never, jsonSchema: { input: () => ({ type: "object" }) } },
    });
    assert.deepEqual(await std.validate({ amount: 1000 }), { ok: false, errors: ["amount: amount must be at most 100"] });
    assert.deepEqual(await std.validate({ amount: 5 }), { ok: true, value: { amount: 5 } });
  }
  const empty = await normalizeSchema({ "~standard": { version: 1 as const, vendor: "custom", validate: () => ({}) as never, jsonSchema: { input: () => ({ type: "object" }) } } });
  assert.equal((await empty.validate({ amount: 5 })).ok, false);
});

test("uniqueItems compares items as JSON values and handles large arrays of objects", async () => {
  const { jsonSchemaValidator } = await import("../../src/tool/index.js");
  for (const $schema of [undefined, "https://json-schema.org/draft/2020-12/schema"]) {
    const check = jsonSchemaValidator({ ...($schema ? { $schema } : {}), type: "object", properties: { a: { type: "array", uniqueItems: true } } });
    const dup = check({ a: [{ x: 1, y: [2] }, { y: [2], x: 1 }] });
    assert.deepEqual(dup, { ok: false, errors: ["a: must NOT have duplicate items (items ## 0 and 1 are identical)"] }, "key order does not make two objects different");
    assert.equal(check({ a: [1, "1", [1], { 1: 1 }, null, false] }).ok, true, "values of different types are different");
    // ajv's own keyword compared every pair: 40,000 objects blocked the process for seconds.
    const many = Array.from({ length: 40000 }, (_, i) => ({ i, s: `item ${i}` }));
    assert.equal(check({ a: many }).ok, true);
    const last = check({ a: [...many, { s: "item 7", i: 7 }] });
    assert.deepEqual(last, { ok: false, errors: ["a: must NOT have duplicate items (items ## 7 and 40000 are identical)"] });
    assert.equal(check({ a: [1, 1] }).ok, false);
  }
  const off = jsonSchemaValidator({ type: "array", uniqueItems: false });
  assert.equal(off([1, 1]).ok, true, "uniqueItems: false allows duplicates");
});

test("a recursive oneOf schema refuses a deep invalid input at once (validation stops at the first error)", async () => {
  const { jsonSchemaValidator } = await import("../../src/tool/index.js");
  const block = (t: string) => ({ type: "object", properties: { type: { const: t }, children: { type: "array", items: { $ref: "#/definitions/block" } } }, required: ["type"] });
  const check = jsonSchemaValidator({
    type: "object",
    properties: { blocks: { type: "array", items: { $ref: "#/definitions/block" } } },
    required: ["blocks"],
    definitions: { block: { oneOf: [block("paragraph"), block("heading"), block("list")] } },
  });
  // With every error collected, ajv walked all three variants at every level (3^depth) and a
  // 12-level tree exhausted the heap.
  let tree: Record<string, unknown> = { type: 5 };
  for (let i = 0; i < 40; i++) tree = { type: "paragraph", children: [tree] };
  const result = check({ blocks: [tree] });
  assert.equal(result.ok, false);
  assert.match(!result.ok ? result.errors.join("; ") : "", /must be equal to constant|must match exactly one schema/);
  assert.equal(check({ blocks: [{ type: "heading", children: [{ type: "list" }] }] }).ok, true);
});

test("loading agent/tools: slug names, jiti for .ts, execute never runs", async () => {
  const defs = await loadToolsDir(path.join(here, "../../examples/agent/tools"));
  assert.deepEqual(Object.keys(defs).sort(), ["triage", "word_stats"]);
  const source = await LocalToolSource.from(defs);
  assert.deepEqual(source.tools().map((t) => t.name).sort(), ["triage", "word_stats"]);

  const marker = path.join(mkdtempSync(path.join(tmpdir(), "ts-marker-")), "ran.txt");
  const side = await loadToolsDir(path.join(fixtures, "tools-side-effect"));
  assert.ok(side.counter);
  assert.equal(existsSync(marker), false, "loading never runs execute");

  // A file that is not a tool stands in as a tool that answers why (it stops no other tool).
  const bad = await loadToolsDir(path.join(fixtures, "tools-bad"));
  await assert.rejects(async () => bad.not_a_tool.execute({}, {} as never), /not_a_tool\.ts: the default export must be a tool made with defineTool/);
  assert.deepEqual(await loadToolsDir(path.join(fixtures, "no-such-folder")), {});
});

test("duplicate names after - and _ folding are refused", async () => {
  const d = defineTool({ description: "x", inputSchema: {}, execute: () => 1 });
  await assert.rejects(LocalToolSource.from({ get_page: d, "get-page": d }), /same command/);
});

test("skills: front matter, body, files, and no path escapes", async () => {
  const skill = await readSkill(path.join(fixtures, "skills"), "report");
  assert.equal(skill.metadata.name, "report");
  assert.equal(skill.metadata.description, "Writes a weekly report");
  assert.match(skill.body, /templates\/week\.md/);
  assert.deepEqual(skill.files, ["templates/week.md"]);
  assert.equal(await skill.readFile("templates/week.md"), "# Week {{n}}\n");
  await assert.rejects(skill.readFile("../../tools-bad/not_a_tool.ts"), /outside the skill/);
  await assert.rejects(readSkill(path.join(fixtures, "skills"), "../skills"), /invalid skill id/);
  await assert.rejects(readSkill(path.join(fixtures, "skills"), "missing"), /no skill missing/);
});

test("schema patterns run in linear time (RE2): a backtracking pattern cannot stall the process", async () => {
  const { jsonSchemaValidator } = await import("../../src/tool/index.js");
  const v = jsonSchemaValidator({ type: "object", properties: { x: { type: "string", pattern: "^(a+)+$" }, y: { type: "string", pattern: "^[A-Z]{2}$" } } });
  // With a backtracking engine this input takes minutes; the test runner's timeout would fail it.
  assert.deepEqual(v({ x: "a".repeat(40) + "!" }), { ok: false, errors: ['x: must match pattern "^(a+)+$"'] });
  assert.deepEqual(v({ x: "aaa", y: "AB" }), { ok: true, value: { x: "aaa", y: "AB" } }, "each pattern is its own");
  assert.equal(v({ y: "abc" }).ok, false);
  // Lookaround has no linear-time form: the rest of the pattern is checked (never "matches
  // nothing"), and the notes say what is not.
  const { compileJsonSchema } = await import("../../src/tool/schema.js");
  const look = compileJsonSchema({ type: "object", properties: { cmd: { type: "string", pattern: "^(?!rm)[a-z]+$" } } });
  assert.equal(look.check({ cmd: "ls" }).ok, true);
  assert.equal(look.check({ cmd: "LS" }).ok, false);
  assert.match(look.notes.join("\n"), /pattern "\^\(\?!rm\)\[a-z\]\+\$" is checked without its lookaround/);
  const backref = compileJsonSchema({ type: "object", properties: { tag: { type: "string", pattern: "^<(\\w+)>.*</\\1>$" } } });
  assert.equal(backref.check({ tag: "<b>x</b>" }).ok, true);
  assert.equal(backref.check({ tag: "b>x</b>" }).ok, false);
});
