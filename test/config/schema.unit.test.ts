/**
 * The config file's JSON Schema is generated from the zod schema: the committed file is current
 * and a valid draft-07 schema, and it accepts and refuses what the zod schema does. Real configs
 * pass; a bad value is refused at load with an error naming the file and the key.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { configJsonSchemaText, configSchema, readConfigFile } from "../../src/config/index.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const require = createRequire(import.meta.url);
const SCHEMA = path.join(root, "schema/toolshell.config.schema.json");

test("schema/toolshell.config.schema.json is generated from the zod schema, up to date, and a valid draft-07 schema", () => {
  assert.equal(readFileSync(SCHEMA, "utf8"), configJsonSchemaText(), "run: npm run schema");
  const Ajv = require("ajv").default;
  const ajv = new Ajv({ strict: false });
  assert.equal(ajv.validateSchema(JSON.parse(readFileSync(SCHEMA, "utf8"))), true, JSON.stringify(ajv.errors));
});

test("the JSON Schema and the zod schema agree on what a file may say", () => {
  const Ajv = require("ajv").default;
  const addFormats = require("ajv-formats").default;
  const ajv = new Ajv({ strict: false });
  addFormats(ajv);
  const validate = ajv.compile(JSON.parse(readFileSync(SCHEMA, "utf8")));
  const good: unknown[] = [
    {},
    { mcpServers: { a: { command: "x", args: ["1", 2, true], env: { N: 3 }, load: "on-demand", trust: false, alwaysAllow: [] } } },
    { servers: { b: { type: "http", url: "https://example.com/mcp", headers: { A: "b" }, oauth: { clientId: "id", scope: "read", callbackPort: 8123 } } }, inputs: [] },
    { mcpServers: { c: { url: "http://127.0.0.1/mcp", oauth: false } }, globalShortcut: "Ctrl+Space" },
    { approval: { mode: "protective", tools: { "a x": "always" } }, server: { port: 0, tokens: ["0123456789abcdef"] }, triggers: [{ name: "t", webhook: true, script: "s" }] },
  ];
  const bad: unknown[] = [
    [],
    { mcpServers: [] },
    { mcpServers: { "my server": { command: "x" } } },
    { mcpServers: { a: {} } },
    { mcpServers: { a: { command: "x", load: "lazy" } } },
    { mcpServers: { a: { url: "ftp://example.com" } } },
    { mcpServers: { a: { url: "https://example.com", oauth: { callbackPort: 70000 } } } },
    { mcpServers: { a: { url: "https://example.com", oauth: { clientID: "x" } } } },
    { mcpServers: { a: { url: "https://example.com", oauth: true } } },
    { callLimit: 0 },
    { keepVisible: [""] },
    { approval: { mode: "sometimes" } },
    { approval: { tool: {} } },
    { server: { port: 70000 } },
    { server: { extra: 1 } },
    { triggers: [{ name: "t" }] },
  ];
  for (const c of good) {
    assert.equal(validate(c), true, `JSON Schema refuses ${JSON.stringify(c)}: ${JSON.stringify(validate.errors)}`);
    assert.equal(configSchema.safeParse(c).success, true, `zod refuses ${JSON.stringify(c)}`);
  }
  for (const c of bad) {
    assert.equal(validate(c), false, `JSON Schema accepts ${JSON.stringify(c)}`);
    assert.equal(configSchema.safeParse(c).success, false, `zod accepts ${JSON.stringify(c)}`);
  }
});

function load(config: unknown, t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(path.join(tmpdir(), "ts-schema-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, "toolshell.config.json");
  // A configured tools folder must exist (the demo names agent/tools).
  mkdirSync(path.join(dir, "agent", "tools"), { recursive: true });
  writeFileSync(file, JSON.stringify(config));
  try {
    readConfigFile(file, { PATH: process.env.PATH });
    return "ok";
  } catch (err) {
    return (err as Error).message.replaceAll(file, "FILE");
  }
}

test("real configs pass: the demo, a VS Code mcp.json, every documented key", (t) => {
  const demo = JSON.parse(readFileSync(path.join(root, "examples/toolshell.config.json"), "utf8"));
  assert.equal(load(demo, t), "ok");
  assert.equal(load({ servers: { gh: { type: "http", url: "https://api.example/mcp", headers: { Authorization: "Bearer x" } } }, inputs: [{ id: "tok", type: "promptString" }] }, t), "ok");
  assert.equal(
    load(
      {
        $schema: "./schema/toolshell.config.schema.json",
        mcpServers: {
          m: { command: "node", args: ["x.js", 3, true], env: { A: "1", B: 2 }, load: "on-demand", trust: true, connectTimeoutMs: 5000, unknownExtra: { kept: true } },
          r: { url: "https://example.com/mcp", oauth: { clientId: "toolshell", clientSecret: "s3cret-value", scope: "read write", callbackPort: 33418 } },
          q: { url: "https://example.com/other", oauth: false },
        },
        callLimit: 20,
        timeoutMs: 5000,
        keepVisible: ["m read_graph", "web_fetch"],
        manageScripts: true,
        rateUnlabeledTools: false,
        approval: { mode: "protective", tools: { "m delete": "always" }, servers: { m: "never" }, trustAnnotations: false },
        store: ":memory:",
        logDir: "logs",
        server: { host: "127.0.0.1", port: 0, tokens: ["0123456789abcdef"], maxBodyBytes: 2048, wakeAgent: { url: "https://agent.example/wake" } },
        triggers: [{ name: "nightly", schedule: "0 3 * * *", timezone: "Europe/Berlin", script: "triage-prs" }],
      },
      t,
    ),
    "ok",
  );
});

test("a bad value is refused at load naming the file and the key", (t) => {
  assert.equal(load({ keepVisible: ["ok", ""] }, t), "FILE: keepVisible[1]: must not be empty");
  assert.equal(load({ approval: { mode: "normal", tool: {} } }, t), 'FILE: approval.tool: unknown key; did you mean "tools"? (known: mode, tools, servers, trustAnnotations)');
  assert.equal(load({ inputs: {} }, t), "FILE: inputs: expected an array");
  assert.match(load({ callLimt: 3 }, t), /^FILE: callLimt: unknown key; did you mean "callLimit"\? \(known: /);
  assert.match(load({ mcpServer: {} }, t), /^FILE: mcpServer: unknown key; did you mean "mcpServers"\? \(known: /);
  assert.match(load({ keep_visible: [] }, t), /^FILE: keep_visible: unknown key; did you mean "keepVisible"\?/);
  assert.equal(load({ callLimit: 0 }, t), "FILE: callLimit: expected a whole number from 1 to 10000");
  assert.equal(load({ callLimit: 2.5 }, t), "FILE: callLimit: expected a whole number from 1 to 10000");
  assert.equal(load({ manageScripts: "yes" }, t), "FILE: manageScripts: expected true or false");
  assert.equal(load({ approval: { mode: "sometimes" } }, t), "FILE: approval.mode: expected normal, protective or off");
  assert.equal(load({ approval: { servers: { m: "ask" } } }, t), "FILE: approval.servers.m: expected always, never or block");
  assert.equal(load({ store: "" }, t), 'FILE: store: expected a file path, ":memory:" or a postgres:// URL');
  assert.equal(load({ server: { port: 70000 } }, t), "FILE: server.port: expected a port number from 0 to 65535");
  assert.equal(load({ server: { tokens: ["short"] } }, t), "FILE: server.tokens[0]: a token is shorter than 16 characters");
  assert.match(load({ server: { prot: 1 } }, t), /^FILE: server\.prot: unknown key; did you mean "port"\?/);
  assert.equal(load({ server: { wakeAgent: { url: "mailto:x@y" } } }, t), "FILE: server.wakeAgent.url: must be http:// or https://");
  assert.equal(load({ triggers: [{ name: "t", script: "s" }] }, t), 'FILE: triggers[0]: say "schedule": "<cron>" or "webhook": true (or "kind")');
  assert.equal(load({ triggers: [{ name: "t", schedule: "", script: "s" }] }, t), 'FILE: triggers[0].schedule: expected a cron expression such as "0 3 * * *"');
  assert.match(load({ triggers: [{ name: "t", schedule: "61 * * * *", script: "s" }] }, t), /^FILE: triggers\[0\]\.schedule: /);
  assert.equal(load({ triggers: [{ name: "t", webhook: true, script: "s" }, { name: "t", webhook: true, script: "u" }] }, t), "FILE: triggers: two triggers are named t");
  assert.equal(load({ triggers: [{ name: "t", webhook: true, script: "s", input: "x" }] }, t), 'FILE: triggers[0].input: expected an object (strings may be templates such as "{{payload.ref}}")');
  assert.equal(load({ tools: "nope" }, t).replace(/: \/.*$/, ": PATH"), "FILE: tools: no such folder: PATH");
  assert.equal(load({ skills: "/etc/hostname" }, t), "FILE: skills: not a folder: /etc/hostname");
});

test("every mistake of a file is told at once, one line each", (t) => {
  const lines = load({ callLimt: 3, manageScripts: "yes", mcpServers: { a: { command: "x", arg: [] }, b: { url: "nope" } } }, t).split("\n");
  assert.equal(lines.length, 4, lines.join("\n"));
  assert.match(lines[0], /^FILE: callLimt: unknown key; did you mean "callLimit"\?/);
  assert.match(lines[1], /^FILE: mcpServers\.a\.arg: unknown key; did you mean "args"\?/);
  assert.equal(lines[2], 'FILE: mcpServers.b.url: "nope" is not a URL');
  assert.equal(lines[3], "FILE: manageScripts: expected true or false");
});

test("a value that breaks two rules saying the same thing is one line of the error; control: two different problems are two lines", (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), "toolshell-config-lines-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, "toolshell.config.json");
  const message = (text: string) => {
    writeFileSync(file, text);
    try {
      readConfigFile(file);
    } catch (err) {
      return (err as Error).message;
    }
    return "";
  };
  assert.equal(message('{"timeoutMs":1e308}'), `${file}: timeoutMs: expected a whole number from 100 to 86400000`);
  assert.equal(message('{"timeoutMs":1e308,"callLimit":-1}').split("\n").length, 2);
});
