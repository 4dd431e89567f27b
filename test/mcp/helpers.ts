/** Helpers of the MCP tests: contexts, sources built from config entries, temp folders. */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { configSecrets, createRedactor } from "../../src/call/index.js";
import { parseServersConfig, type ServerConfig } from "../../src/config/index.js";
import { McpServerSource } from "../../src/mcp/index.js";
import type { CatalogTool, InvokeContext, ToolOutput } from "../../src/tool/types.js";

/** A fresh temporary folder. */
export function tempDir(prefix = "toolshell-mcp-"): string {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

/** The redactor a host gives the sources of `configs`: their config secrets (src/call/redact/). */
export function hostRedactor(...configs: ServerConfig[]) {
  return createRedactor(configSecrets({ servers: configs }));
}

/** A minimal InvokeContext; the sandbox and skills are not used by MCP sources. */
export function ctx(signal: AbortSignal = new AbortController().signal): InvokeContext {
  return {
    signal,
    session: { id: "test", metadata: {}, turn: { callId: "test" }, auth: { principal: "default" }, parent: [] },
    callId: "test:0",
    getSandbox: () => {
      throw new Error("no sandbox in MCP tests");
    },
    getSkill: async () => {
      throw new Error("no skills in MCP tests");
    },
  };
}

/** Sources made in a test, closed by {@link closeAll}. */
const open: McpServerSource[] = [];

/** Parses one `mcpServers` entry (as a user would write it) and makes its source, logging to `logDir`. */
export function sourceFor(name: string, entry: Record<string, unknown>, logDir = tempDir("toolshell-logs-")): McpServerSource {
  const [config] = parseServersConfig({ mcpServers: { [name]: entry } }, { baseDir: process.cwd() });
  const source = new McpServerSource(config, { logDir, redactor: hostRedactor(config) });
  open.push(source);
  return source;
}

/** Closes every source made with {@link sourceFor}. */
export async function closeAll(): Promise<void> {
  await Promise.all(open.splice(0).map((s) => s.close()));
}

/** The tool of `source` named `name`; fails the test when missing. */
export function tool(source: McpServerSource, name: string): CatalogTool {
  const found = source.tools().find((t) => t.name === name);
  if (!found) throw new Error(`no tool ${name} in ${source.name}: ${source.tools().map((t) => t.name).join(", ")}`);
  return found;
}

/** Validates then invokes, as the `tools` command does. */
export async function call(source: McpServerSource, name: string, input: Record<string, unknown> = {}, context = ctx()): Promise<ToolOutput> {
  const t = tool(source, name);
  const checked = await t.validate(input);
  if (!checked.ok) throw new Error(`invalid input: ${checked.errors.join("; ")}`);
  return t.invoke(checked.value, context);
}

/** Runs `fn`, expecting it to reject; returns the error. */
export async function rejection(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection, got a result");
}
