/**
 * McpServerSource against the real npm MCP servers over stdio: server-everything,
 * server-filesystem, server-memory ("Tests (real parts)").
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, describe, test } from "node:test";
import type { McpServerSource } from "../../src/mcp/index.js";
import { NPM_SERVERS } from "../fixtures/mcp/index.js";
import { call, closeAll, sourceFor, tempDir, tool } from "./helpers.js";

after(closeAll);

describe("server-everything", () => {
  let source: McpServerSource;
  test("loads with its annotated tools", async () => {
    source = sourceFor("everything", { command: NPM_SERVERS.everything });
    await source.load();
    const echo = tool(source, "echo");
    assert.deepEqual(echo.hints, { readOnly: true, destructive: false, idempotent: true, openWorld: false });
    assert.equal(echo.hintsDeclared, true);
    assert.equal(echo.grouped, true);
    assert.equal(echo.source, "everything");
    assert.deepEqual(Object.keys((echo.inputSchema.properties ?? {}) as object), ["message"]);
    assert.equal(tool(source, "gzip-file-as-resource").hints.openWorld, true);
  });

  test("echo gives its text", async () => {
    const out = await call(source, "echo", { message: "hello shell" });
    assert.equal(out.kind, "text");
    assert.equal(out.text, "Echo: hello shell");
  });

  test("get-tiny-image puts the image in media and keeps the text", async () => {
    const out = await call(source, "get-tiny-image");
    assert.equal(out.kind, "text");
    assert.equal(out.text, "Here's the image you requested:\nThe image above is the MCP logo.");
    assert.equal(out.media?.length, 1);
    const [image] = out.media ?? [];
    assert.equal(image.kind, "image");
    assert.equal(image.mimeType, "image/png");
    assert.equal(Buffer.from(image.data, "base64").subarray(1, 4).toString("latin1"), "PNG");
  });

  test("get-structured-content gives its structured content as JSON", async () => {
    const out = await call(source, "get-structured-content", { location: "Chicago" });
    assert.equal(out.kind, "json");
    assert.deepEqual(out.value, { temperature: 36, conditions: "Light rain / drizzle", humidity: 82 });
    assert.ok(tool(source, "get-structured-content").outputSchema);
  });

  test("get-resource-links gives the links as JSON blocks", async () => {
    const out = await call(source, "get-resource-links", { count: 2 });
    assert.equal(out.kind, "json");
    const blocks = out.value as Array<{ type: string; uri?: string }>;
    const links = blocks.filter((b) => b.type === "resource_link");
    assert.equal(links.length, 2);
    for (const link of links) assert.equal(typeof link.uri, "string");
  });

  test("input outside the schema is refused by validate", async () => {
    const checked = await tool(source, "get-structured-content").validate({ location: "Paris" });
    assert.equal(checked.ok, false);
  });
});

describe("server-filesystem", () => {
  const root = tempDir("toolshell-fs-");
  let source: McpServerSource;
  test("lists its tools with their hints", async () => {
    source = sourceFor("files", { command: NPM_SERVERS.filesystem, args: [root] });
    await source.load();
    assert.deepEqual(tool(source, "read_text_file").hints, { readOnly: true, openWorld: false });
    assert.equal(tool(source, "write_file").hints.destructive, true);
  });

  test("writes a file that is on disk, and reads one written on disk", async () => {
    const target = path.join(root, "note.txt");
    await call(source, "write_file", { path: target, content: "from the shell" });
    assert.equal(readFileSync(target, "utf8"), "from the shell");

    writeFileSync(path.join(root, "disk.txt"), "from the disk");
    const out = await call(source, "read_text_file", { path: path.join(root, "disk.txt") });
    assert.equal(out.kind, "json");
    assert.deepEqual(out.value, { content: "from the disk" });
  });

  test("a path outside its root is a tool_error", async () => {
    await assert.rejects(call(source, "read_text_file", { path: "/etc/hostname" }), { name: "ToolCallError", code: "tool_error" });
  });
});

describe("server-memory", () => {
  const file = path.join(tempDir("toolshell-memory-"), "memory.jsonl");
  let source: McpServerSource;
  test("create_entities then read_graph; the graph is in MEMORY_FILE_PATH", async () => {
    source = sourceFor("memory", { command: NPM_SERVERS.memory, env: { MEMORY_FILE_PATH: file } });
    await source.load();
    assert.equal(tool(source, "delete_entities").hints.destructive, true);
    await call(source, "create_entities", { entities: [{ name: "toolshell", entityType: "project", observations: ["runs tools in bash"] }] });
    const out = await call(source, "read_graph");
    assert.equal(out.kind, "json");
    const graph = out.value as { entities: Array<{ name: string; observations: string[] }> };
    assert.deepEqual(
      graph.entities.map((e) => [e.name, e.observations]),
      [["toolshell", ["runs tools in bash"]]],
    );
    const lines = readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l) as { name?: string });
    assert.ok(lines.some((l) => l.name === "toolshell"));
  });
});
