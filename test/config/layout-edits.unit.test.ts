/**
 * `toolshell servers add|update|remove` change one entry of a config file and leave the rest of
 * the text as written (src/config/layout-edits.ts): compact one-line files stay compact, spaced
 * one-line groups stay spaced on their line, indented files keep their indentation and, in a VS
 * Code `mcp.json`, comments stay. Each expected text is the whole file after the edit.
 */
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { test } from "node:test";
import { setProperty } from "../../src/config/layout-edits.js";

const jsonc = createRequire(import.meta.url)("jsonc-parser") as typeof import("jsonc-parser");
const fetch = { command: "uvx", args: ["mcp-server-fetch"] };
const edit = (text: string, path: string[], value: unknown, indent = "  ") => {
  const next = setProperty(jsonc, text, path, value, { indent, eol: "\n" });
  assert.ok(next !== undefined);
  assert.deepEqual(JSON.parse(jsonc.stripComments(next)), (() => {
    const o = JSON.parse(jsonc.stripComments(text));
    let at = o;
    for (const k of path.slice(0, -1)) at = at[k];
    if (value === undefined) delete at[path.at(-1)!];
    else at[path.at(-1)!] = value;
    return o;
  })(), "the text holds the value the edit meant");
  return next;
};

test("a compact one-line file: add, update and remove keep it on one compact line", () => {
  let t = '{"mcpServers":{"memory":{"command":"npx","args":["-y","x"]}}}\n';
  t = edit(t, ["mcpServers", "fetch"], fetch);
  assert.equal(t, '{"mcpServers":{"memory":{"command":"npx","args":["-y","x"]},"fetch":{"command":"uvx","args":["mcp-server-fetch"]}}}\n');
  t = edit(t, ["mcpServers", "memory"], { command: "npx", args: ["-y", "x"], env: { A: "1" } });
  assert.equal(t, '{"mcpServers":{"memory":{"command":"npx","args":["-y","x"],"env":{"A":"1"}},"fetch":{"command":"uvx","args":["mcp-server-fetch"]}}}\n');
  t = edit(t, ["mcpServers", "fetch"], undefined);
  assert.equal(t, '{"mcpServers":{"memory":{"command":"npx","args":["-y","x"],"env":{"A":"1"}}}}\n');
  t = edit(t, ["mcpServers", "memory"], undefined);
  assert.equal(t, '{"mcpServers":{}}\n');
});

test("a spaced one-line group in an indented file: the edits stay on its line, spaced, and the other lines are untouched", () => {
  let t = '{\n  "mcpServers": { "memory": { "command": "npx", "args": ["-y", "x"] } },\n  "timeoutMs": 5000\n}\n';
  t = edit(t, ["mcpServers", "fetch"], fetch);
  assert.equal(t, '{\n  "mcpServers": { "memory": { "command": "npx", "args": ["-y", "x"] }, "fetch": { "command": "uvx", "args": [ "mcp-server-fetch" ] } },\n  "timeoutMs": 5000\n}\n');
  t = edit(t, ["mcpServers", "memory"], { command: "npx", args: ["-y", "x"], env: { A: "2", B: "3" } });
  assert.equal(t, '{\n  "mcpServers": { "memory": { "command": "npx", "args": ["-y", "x"], "env": { "A": "2", "B": "3" } }, "fetch": { "command": "uvx", "args": [ "mcp-server-fetch" ] } },\n  "timeoutMs": 5000\n}\n');
  t = edit(t, ["mcpServers", "memory"], undefined);
  assert.equal(t, '{\n  "mcpServers": { "fetch": { "command": "uvx", "args": [ "mcp-server-fetch" ] } },\n  "timeoutMs": 5000\n}\n');
});

test("a file indented four spaces with comments (VS Code mcp.json): new lines take the neighbour's indentation, unchanged keys and comments keep their text", () => {
  let t = '{\n    // my servers\n    "servers": {\n        "memory": {\n            "command": "npx", // from npm\n            "args": ["-y", "x"]\n        }\n    }\n}\n';
  t = edit(t, ["servers", "fetch"], fetch, "    ");
  assert.equal(t, '{\n    // my servers\n    "servers": {\n        "memory": {\n            "command": "npx", // from npm\n            "args": ["-y", "x"]\n        },\n        "fetch": {\n            "command": "uvx",\n            "args": [\n                "mcp-server-fetch"\n            ]\n        }\n    }\n}\n');
  t = edit(t, ["servers", "memory"], { command: "npx", args: ["-y", "x"], env: { A: "1" } }, "    ");
  assert.equal(t, '{\n    // my servers\n    "servers": {\n        "memory": {\n            "command": "npx", // from npm\n            "args": ["-y", "x"],\n            "env": {\n                "A": "1"\n            }\n        },\n        "fetch": {\n            "command": "uvx",\n            "args": [\n                "mcp-server-fetch"\n            ]\n        }\n    }\n}\n');
  t = edit(t, ["servers", "memory"], { command: "bunx", args: ["-y", "x"] }, "    ");
  assert.equal(t, '{\n    // my servers\n    "servers": {\n        "memory": {\n            "command": "bunx", // from npm\n            "args": ["-y", "x"]\n        },\n        "fetch": {\n            "command": "uvx",\n            "args": [\n                "mcp-server-fetch"\n            ]\n        }\n    }\n}\n');
});

test("an edit that changes nothing leaves the text as it was; a group that is missing or empty is left to jsonc-parser (undefined)", () => {
  const t = '{"mcpServers":{"memory":{"command":"npx"}}}';
  assert.equal(setProperty(jsonc, t, ["mcpServers", "memory"], { command: "npx" }, { indent: "  ", eol: "\n" }), t);
  assert.equal(setProperty(jsonc, "{}", ["mcpServers", "fetch"], fetch, { indent: "  ", eol: "\n" }), undefined);
  assert.equal(setProperty(jsonc, '{"mcpServers":{}}', ["mcpServers", "fetch"], fetch, { indent: "  ", eol: "\n" }), undefined);
});
