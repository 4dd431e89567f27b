/**
 * McpServerSource against the low-level Server fixture: 300 tools paged by nextCursor, output
 * schema checks, an input schema ajv cannot compile, mixed and resource-only results.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { McpServerSource } from "../../src/mcp/index.js";
import { ToolCallError } from "../../src/tool/types.js";
import { readFileSync } from "node:fs";
import { NUMBERED_TOOLS, PAGE_SIZE, RAW_SERVER, RAW_SPECIAL_TOOLS, RAW_TWIN_LEFT_OUT, tsxCommand } from "../fixtures/mcp/index.js";
import { call, closeAll, rejection, sourceFor, tool } from "./helpers.js";

let source: McpServerSource;
before(async () => {
  source = sourceFor("raw", tsxCommand(RAW_SERVER));
  await source.load();
});
after(closeAll);

test("every tool is listed across nextCursor pages", () => {
  const names = source.tools().map((t) => t.name);
  assert.ok(NUMBERED_TOOLS + RAW_SPECIAL_TOOLS.length > 2 * PAGE_SIZE, "the fixture spans at least three pages");
  assert.equal(names.length, NUMBERED_TOOLS + RAW_SPECIAL_TOOLS.length);
  assert.equal(new Set(names).size, names.length);
  for (let i = 1; i <= NUMBERED_TOOLS; i++) assert.ok(names.includes(`tool_${String(i).padStart(3, "0")}`), `tool_${i}`);
  for (const name of RAW_SPECIAL_TOOLS) assert.ok(names.includes(name), name);
});

test("two tools whose names differ only in - and _ share no command: the later one is left out and logged", async () => {
  const names = source.tools().map((t) => t.name);
  assert.ok(names.includes("twin_name"));
  assert.ok(!names.includes(RAW_TWIN_LEFT_OUT), "one command, one tool: an answer about it covers exactly that tool");
  // The log is written through a stream: wait for the line to land.
  let log = "";
  for (let i = 0; i < 100 && !log.includes("left out"); i++) {
    log = readFileSync(source.logFile, "utf8");
    if (!log.includes("left out")) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.match(log, /tool "twin-name" left out: "tools raw twin-name" already calls "twin_name"/);
});

test("tools from the first and last pages are callable", async () => {
  assert.equal((await call(source, "tool_001")).text, "tool_001");
  assert.equal((await call(source, "tool_300")).text, "tool_300");
});

test("structured content that breaks the output schema is tool_error (tool on the first page), and the server goes on", async () => {
  const error = await rejection(() => call(source, "bad_output"));
  assert.ok(error instanceof ToolCallError);
  assert.equal(error.code, "tool_error");
  assert.match(error.message, /"bad_output".*output schema.*count/);
  assert.equal((await call(source, "tool_002")).text, "tool_002");
});

test("a tool with an output schema that returns no structured content is tool_error", async () => {
  const error = await rejection(() => call(source, "no_structured"));
  assert.ok(error instanceof ToolCallError);
  assert.equal(error.code, "tool_error");
  assert.match(error.message, /no structured content/);
});

test("valid structured content is JSON output; the output schema is kept", async () => {
  const out = await call(source, "structured");
  assert.equal(out.kind, "json");
  assert.deepEqual(out.value, { count: 7 });
  assert.deepEqual(tool(source, "structured").outputSchema, { type: "object", properties: { count: { type: "number" } }, required: ["count"] });
});

test("an input schema ajv cannot compile still lists, accepts input as is, and says so", async () => {
  const odd = tool(source, "odd_schema");
  assert.match(odd.description, /could not be compiled/);
  assert.deepEqual(await odd.validate({ a: 1 }), { ok: true, value: { a: 1 } });
  assert.equal((await call(source, "odd_schema", { a: 1 })).text, "odd ok");
});

test("text with a resource link is a JSON array of the blocks; the image goes to media", async () => {
  const out = await call(source, "mixed");
  assert.equal(out.kind, "json");
  assert.deepEqual(out.value, [
    { type: "text", text: "see the file" },
    { type: "resource_link", uri: "file:///tmp/report.txt", name: "report.txt", mimeType: "text/plain" },
  ]);
  assert.equal(out.media?.length, 1);
  assert.equal(out.media?.[0].kind, "image");
  assert.equal(out.media?.[0].mimeType, "image/png");
});

test("an embedded resource alone is JSON", async () => {
  const out = await call(source, "resource");
  assert.equal(out.kind, "json");
  assert.deepEqual(out.value, [{ type: "resource", resource: { uri: "mem://note", mimeType: "text/plain", text: "hello" } }]);
});

test("isError without content is tool_error naming tool and server", async () => {
  const error = await rejection(() => call(source, "empty_error"));
  assert.ok(error instanceof ToolCallError);
  assert.equal(error.code, "tool_error");
  assert.match(error.message, /"empty_error".*"raw"/);
});
