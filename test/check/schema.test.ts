/**
 * The config file's JSON Schema: it is a valid draft-07 schema (ajv's meta-schema), the
 * generated validator matches it, real configs pass, and a bad value is refused at load with an
 * error naming the file and the key (the older checks keep their own messages).
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { readConfigFile } from "../../src/runtime/index.js";
import { generateValidator, GENERATED, SCHEMA } from "../../schema/generate-validator.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const require = createRequire(import.meta.url);

test("the schema is a valid draft-07 schema and the generated validator is up to date", () => {
  const Ajv = require("ajv").default;
  const ajv = new Ajv({ strict: false });
  const schema = JSON.parse(readFileSync(SCHEMA, "utf8"));
  assert.equal(ajv.validateSchema(schema), true, JSON.stringify(ajv.errors));
  assert.equal(readFileSync(GENERATED, "utf8"), generateValidator(), "run: node --import tsx schema/generate-validator.ts");
});

function load(config: unknown): string {
  const dir = mkdtempSync(path.join(tmpdir(), "ts-schema-"));
  const file = path.join(dir, "toolshell.config.json");
  // A configured tools folder must exist (the demo names agent/tools).
  mkdirSync(path.join(dir, "agent", "tools"), { recursive: true });
  writeFileSync(file, JSON.stringify(config));
  try {
    readConfigFile(file, { PATH: process.env.PATH });
    return "ok";
  } catch (err) {
    return (err as Error).message.replace(file, "FILE");
  }
}

test("real configs pass: the demo, a VS Code mcp.json, every documented key", () => {
  const demo = JSON.parse(readFileSync(path.join(root, "examples/toolshell.config.json"), "utf8"));
  assert.equal(load(demo), "ok");
  assert.equal(load({ servers: { gh: { type: "http", url: "https://api.example/mcp", headers: { Authorization: "Bearer x" } } }, inputs: [{ id: "tok", type: "promptString" }] }), "ok");
  assert.equal(
    load({
      $schema: "./schema/toolshell.config.schema.json",
      mcpServers: { m: { command: "node", args: ["x.js", 3, true], env: { A: "1", B: 2 }, load: "on-demand", trust: true, connectTimeoutMs: 5000, unknownExtra: { kept: true } } },
      callLimit: 20,
      timeoutMs: 5000,
      keepVisible: ["m read_graph", "web_fetch"],
      manageScripts: true,
      rateUnlabeledTools: false,
      approval: { mode: "protective", tools: { "m delete": "always" }, servers: { m: "never" }, trustAnnotations: false },
      store: ":memory:",
      logDir: "logs",
    }),
    "ok",
  );
});

test("a bad value is refused at load naming the file and the key; the older checks keep their messages", () => {
  assert.equal(load({ keepVisible: ["ok", ""] }), "FILE: keepVisible[1]: must not be empty (schema/toolshell.config.schema.json)");
  assert.equal(load({ approval: { mode: "normal", tool: {} } }), "FILE: approval.tool: unknown key (schema/toolshell.config.schema.json)");
  assert.equal(load({ inputs: {} }), "FILE: inputs: expected an array (schema/toolshell.config.schema.json)");
  assert.match(load({ callLimt: 3 }), /^FILE: callLimt: unknown key; did you mean "callLimit"\? \(known: /);
  assert.match(load({ mcpServer: {} }), /^FILE: mcpServer: unknown key; did you mean "mcpServers"\? \(known: /);
  assert.match(load({ zzzzzz: 1 }), /^FILE: zzzzzz: unknown key \(known: /);
  assert.equal(load({ callLimit: 0 }), "FILE: callLimit: expected a whole number from 1 to 10000");
  assert.equal(load({ manageScripts: "yes" }), "FILE: manageScripts: expected true or false");
});
