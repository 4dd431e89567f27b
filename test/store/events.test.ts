/**
 * Events end to end, on each kind of store (stores.ts): persisted with the fields, secrets from config redacted from events
 * and outputs (a real MCP server that prints its environment), `toolshell events` as a timeline
 * and as JSON lines, OpenTelemetry spans.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { context, trace, type Span, type SpanOptions, type Context } from "@opentelemetry/api";
import { defineTool } from "../../src/index.js";
import { parseConfig } from "../../src/config/index.js";
import { configSecrets, createRedactor, REDACTED } from "../../src/runtime/index.js";
import { openHost, type Host } from "../../src/server/index.js";
import { NPM_SERVERS, REPO_ROOT } from "../fixtures/mcp/index.js";
import { STORES } from "./stores.js";

const SECRET = "sk-live-0123456789abcdef";
const HEADER_TOKEN = "hdr-token-abcdef0123456789";

// A recording tracer provider (the OpenTelemetry SDK is the host's choice; the API is all we use).
interface Recorded { name: string; attributes: Record<string, unknown>; parent?: string; id: string; start?: unknown; ended: boolean; status?: unknown }
const spans: Recorded[] = [];
let nextId = 1;
trace.setGlobalTracerProvider({
  getTracer: () => ({
    startSpan(name: string, options: SpanOptions = {}, ctx?: Context): Span {
      const parent = trace.getSpan(ctx ?? context.active())?.spanContext().spanId;
      const rec: Recorded = { name, attributes: { ...(options.attributes ?? {}) }, parent, id: String(nextId++).padStart(16, "0"), start: options.startTime, ended: false };
      spans.push(rec);
      const span: Span = {
        spanContext: () => ({ traceId: "0".repeat(31) + "1", spanId: rec.id, traceFlags: 1 }),
        setAttribute: (k, v) => ((rec.attributes[k] = v), span),
        setAttributes: (a) => (Object.assign(rec.attributes, a), span),
        addEvent: () => span,
        addLink: () => span,
        addLinks: () => span,
        setStatus: (s) => ((rec.status = s), span),
        updateName: () => span,
        end: () => {
          rec.ended = true;
        },
        isRecording: () => true,
        recordException: () => {},
      };
      return span;
    },
    startActiveSpan: (() => {
      throw new Error("not used");
    }) as never,
  }),
});

for (const kind of STORES) describe(kind.name, () => {
let dir: string;
let host: Host;
let location: string;
const cleanups: Array<() => unknown> = [];
before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "toolshell-events-"));
  location = kind.name === "sqlite" ? path.join(dir, "state.db") : await kind.location({ after: (fn) => cleanups.push(fn) });
  host = await openHost({
    store: location,
    config: {
      mcpServers: { everything: { command: NPM_SERVERS.everything, args: ["stdio"], env: { API_SECRET: SECRET } } },
      approval: { mode: "off" },
    },
    tools: {
      echo: defineTool({
        description: "Returns its input.",
        hints: { readOnly: true },
        inputSchema: { type: "object", properties: { text: { type: "string" } } },
        execute: ({ text }) => ({ text }),
      }),
      fail: defineTool({ description: "Fails, naming the secret.", inputSchema: {}, execute: () => { throw new Error(`upstream said ${SECRET}`); } }),
    },
  });
});
after(async () => {
  await host.close();
  for (const fn of cleanups.reverse()) await fn();
  rmSync(dir, { recursive: true, force: true });
});

test("nested-call events carry the issue's fields; config secrets never appear in events or outputs", async () => {
  const s = host.session("ev1");
  const long = "x".repeat(600);
  const r = await s.bash(`tools everything get-env | grep -c API_SECRET\ntools everything get-env | grep -o 'API_SECRET[^,]*'\ntools echo text=${long} > /dev/null\ntools fail; true`);
  assert.equal(r.exit_code, 0, r.stderr);
  assert.match(r.stdout, /^1\nAPI_SECRET[^\n]*\[REDACTED\]/);
  assert.ok(!r.stdout.includes(SECRET) && !r.stderr.includes(SECRET), "the secret reached the script's output");
  assert.match(r.stderr, /upstream said \[REDACTED\]/);
  const events = await host.store.listEvents("ev1");
  assert.ok(!JSON.stringify(events).includes(SECRET), "the secret reached an event");
  const nested = events.filter((e) => e.type === "tool.nested_call") as Array<Record<string, any>>;
  assert.deepEqual(nested.map((e) => [e.command, e.status]), [
    ["tools everything get-env", "completed"],
    ["tools everything get-env", "completed"],
    ["tools echo", "completed"],
    ["tools fail", "failed"],
  ]);
  for (const e of nested) {
    assert.equal(e.parent_tool_call_id, r.tool_call_id);
    assert.match(e.call_id, new RegExp(`^${r.tool_call_id}:tools:\\d:`));
    assert.equal(typeof e.duration_ms, "number");
    assert.equal(typeof e.tool_name, "string");
  }
  assert.equal(nested[2].input_preview.length, 401);
  assert.ok(nested[2].input_preview.endsWith("…"));
  assert.equal(nested[3].error.code, "tool_error");
  assert.deepEqual(events.map((e) => e.type).filter((t) => t.startsWith("shell_call")), ["shell_call.started", "shell_call.ended"]);
});

test("secrets of server headers are found too, and a redactor leaves other text alone", () => {
  const config = parseConfig({ mcpServers: { remote: { url: "https://example.com/mcp", headers: { Authorization: `Bearer ${HEADER_TOKEN}`, "X-Short": "abc" } } } }, { baseDir: dir });
  const secrets = configSecrets(config);
  assert.ok(secrets.includes(HEADER_TOKEN));
  assert.ok(!secrets.includes("abc"));
  const red = createRedactor(secrets);
  assert.equal(red.text(`token=${HEADER_TOKEN}; abc`), `token=${REDACTED}; abc`);
  assert.deepEqual(red.value({ [HEADER_TOKEN]: [HEADER_TOKEN, 1], ok: "fine" }), { [REDACTED]: [REDACTED, 1], ok: "fine" });
  const plain = { a: 1 };
  assert.equal(red.value(plain), plain);
});

test("toolshell events prints the timeline with nested calls under their shell call, and JSON lines", async () => {
  const s = host.session("ev2");
  await s.bash("tools echo text=one > /dev/null; tools echo text=two > /dev/null");
  await s.bash("tools no-such-tool; true");
  // The CLI is another process reading the store: what this host queued is committed first.
  await kind.flush(host.store);
  const cli = (args: string[]) =>
    spawnSync(process.execPath, ["--import", import.meta.resolve("tsx"), path.join(REPO_ROOT, "src/cli/main.ts"), "events", ...args, "--store", location], { encoding: "utf8" });
  const text = cli(["ev2"]);
  assert.equal(text.status, 0, text.stderr);
  const lines = text.stdout.trimEnd().split("\n");
  assert.match(lines[0], /▶ call_bash_1 bash/);
  assert.match(lines[1], /├─ tools echo\s+\{"text":"one"\}\s+completed/);
  assert.match(lines[2], /├─ tools echo\s+\{"text":"two"\}\s+completed/);
  assert.match(lines[3], /■ call_bash_1 exit 0/);
  assert.match(lines[4], /▶ call_bash_2 bash/);
  const json = cli(["ev2", "--json"]);
  assert.equal(json.status, 0, json.stderr);
  const parsed = json.stdout.trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(parsed.map((e) => e.type), ["shell_call.started", "tool.nested_call", "tool.nested_call", "shell_call.ended", "shell_call.started", "shell_call.ended"]);
  assert.ok(parsed.every((e, i) => i === 0 || e.seq > parsed[i - 1].seq));
  const missing = cli(["nobody"]);
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, /no session nobody/);
});

test("shell calls and nested calls become OpenTelemetry spans, nested under their shell call", async () => {
  const before = spans.length;
  const r = await host.session("ev3").bash("tools echo text=a > /dev/null; tools fail; true");
  const mine = spans.slice(before);
  const shell = mine.find((x) => x.name === "toolshell.shell_call" && x.attributes["toolshell.tool_call_id"] === r.tool_call_id);
  assert.ok(shell?.ended);
  const tools = mine.filter((x) => x.name === "toolshell.tool");
  assert.deepEqual(tools.map((t) => [t.attributes["toolshell.command"], t.attributes["toolshell.status"], t.parent === shell!.id]), [
    ["tools echo", "completed", true],
    ["tools fail", "failed", true],
  ]);
  assert.ok(tools.every((t) => t.ended && t.start instanceof Date));
});
});
