/**
 * The gateway serves a client pinned to MCP 2026-07-28 (the SDK's v2 client): over stdio
 * (`toolshell mcp` as a child process) and over Streamable HTTP (`toolshell mcp --http`), with no
 * `initialize` and no `Mcp-Session-Id`. An approval reaches the person through an
 * `input_required` result (form mode) with a signed `requestState`; the retried call with the
 * answer runs the stopped call once; a forged or misplaced `requestState` is refused.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { NPM_SERVERS, tsxCommand } from "../fixtures/mcp/index.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const MAIN = path.join(root, "src/cli/main.ts");
const MODERN = "2026-07-28";

const closers: Array<() => Promise<unknown>> = [];
after(async () => {
  for (const c of closers.reverse()) await c().catch(() => {});
});

function writeConfig(extra: Record<string, unknown> = {}): { dir: string; file: string } {
  const dir = mkdtempSync(path.join(tmpdir(), "ts-gw26-"));
  const file = path.join(dir, "toolshell.config.json");
  writeFileSync(
    file,
    JSON.stringify({
      mcpServers: { memory: { command: NPM_SERVERS.memory, env: { MEMORY_FILE_PATH: path.join(dir, "memory.jsonl") }, trust: true } },
      logDir: path.join(dir, "logs"),
      ...extra,
    }),
  );
  return { dir, file };
}

type Answer = { action: "accept" | "decline" | "cancel"; decision?: string };
type Modern = { client: Client; asked: string[]; answer: Answer };
/** A v2 SDK client pinned to 2026-07-28 that declares form elicitation and answers with `answer` (which a test changes). */
function modernClient(answer: Answer = { action: "accept", decision: "allow" }, options: { elicitation?: boolean } = {}): Modern {
  const m: Modern = { client: undefined as unknown as Client, asked: [], answer };
  m.client = new Client({ name: "modern-client", version: "1.0.0" }, { capabilities: options.elicitation === false ? {} : { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: MODERN } } });
  if (options.elicitation !== false) {
    m.client.setRequestHandler("elicitation/create", async (req) => {
      m.asked.push(String((req.params as { message?: string }).message));
      return m.answer.action === "accept" ? { action: "accept", content: { decision: m.answer.decision ?? "allow" } } : { action: m.answer.action };
    });
  }
  return m;
}

type BashValue = { stdout: string; stderr: string; exit_code: number; tools?: { stopped?: { reason: string; request_id: string } }; approval?: { request_id?: string; decision?: string; action?: string; how?: string } };
function bashValue(r: unknown): BashValue {
  const res = r as CallToolResult;
  const text = res.content[0];
  assert.equal(text.type, "text");
  return JSON.parse((text as { text: string }).text) as BashValue;
}

const createScript = `tools memory create-entities <<'EOF' >/dev/null
{"entities":[{"name":"alpha","entityType":"note","observations":["a"]},{"name":"beta","entityType":"note","observations":["b"]}]}
EOF
tools memory read-graph | jq -c '[.entities[].name]'`;
/**
 * Deletes with an input known only at run time: the script stops midway, and the answered step
 * resumes (docs/sessions.md → Durable steps).
 */
const deleteScript = (name: string) => `jq -n '{entityNames: ["${name}"]}' | tools memory delete-entities >/dev/null\ntools memory read-graph | jq -c '[.entities[].name]'`;

async function stdioGateway(client: Client): Promise<string> {
  const { file, dir } = writeConfig();
  const cmd = tsxCommand(MAIN, ["mcp", "--config", file]);
  await client.connect(new StdioClientTransport({ command: cmd.command, args: cmd.args, cwd: dir, stderr: "pipe" }));
  closers.push(() => client.close());
  return dir;
}

/** Lists tools until the memory server is loaded (the gateway answers before it is up). */
async function toolsWhenLoaded(client: Client) {
  for (;;) {
    const { tools } = await client.listTools();
    if (!/memory \(not loaded\)/.test(tools.find((t) => t.name === "bash")?.description ?? "")) return tools;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The approval flow every transport must show: allow runs once, decline does not run. */
async function approvalFlow(m: Modern): Promise<void> {
  const { client } = m;
  assert.equal(client.getProtocolEra(), "modern");
  const tools = await toolsWhenLoaded(client);
  assert.deepEqual(tools.map((t) => t.name), ["bash"], "no approve tool for a client that answers forms");
  assert.match(tools[0].description ?? "", /^Sources: memory \(\d+ tools\)/m);
  const made = bashValue(await client.callTool({ name: "bash", arguments: { command: createScript } }));
  assert.equal(made.exit_code, 0, made.stderr);
  assert.equal(made.stdout, '["alpha","beta"]\n');
  assert.equal(m.asked.length, 0);
  m.answer = { action: "accept", decision: "allow" };
  const del = bashValue(await client.callTool({ name: "bash", arguments: { command: deleteScript("alpha") } }));
  assert.equal(m.asked.length, 1, "the person was asked once, through input_required");
  assert.match(m.asked[0], /tools memory delete-entities \(destructive\)/);
  assert.equal(del.exit_code, 0, del.stderr);
  assert.equal(del.stdout, '["beta"]\n');
  assert.equal(del.approval?.decision, "allow");

  m.answer = { action: "decline" };
  const no = bashValue(await client.callTool({ name: "bash", arguments: { command: deleteScript("beta") } }));
  assert.equal(m.asked.length, 2);
  assert.equal(no.approval?.decision, "reject");
  assert.match(no.stderr, /denied/);
  const left = bashValue(await client.callTool({ name: "bash", arguments: { command: "tools memory read-graph | jq -c '[.entities[].name]'" } }));
  assert.equal(left.stdout, '["beta"]\n', "the declined call did not run");
}

test("stdio: a client pinned to 2026-07-28 lists tools, runs `tools …` and answers an approval through input_required", async () => {
  const m = modernClient();
  await stdioGateway(m.client);
  await approvalFlow(m);
});

type InputRequired = { resultType: "input_required"; inputRequests: Record<string, { method: string; params: { mode?: string; url?: string } }>; requestState: string };
/** Calls and expects an input_required answer (a client that fulfils rounds by hand). */
async function firstRound(client: Client, args: Record<string, unknown>): Promise<InputRequired> {
  const r = (await client.callTool({ name: "bash", arguments: args }, { allowInputRequired: true })) as unknown as InputRequired;
  assert.equal(r.resultType, "input_required", JSON.stringify(r).slice(0, 400));
  assert.equal(r.inputRequests.approval?.method, "elicitation/create");
  return r;
}

/** A forged, or another call's, requestState is refused with -32602 and runs nothing. */
async function refusals(client: Client, name = "beta"): Promise<void> {
  await toolsWhenLoaded(client);
  const args = { command: deleteScript(name) };
  const first = await firstRound(client, args);
  const allow = { approval: { action: "accept", content: { decision: "allow" } } };
  const [head, body, mac] = first.requestState.split(".");
  const payload = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as { p: { h: string } };
  payload.p.h = "forged";
  const forged = [head, Buffer.from(JSON.stringify(payload)).toString("base64url"), mac].join(".");
  await assert.rejects(client.callTool({ name: "bash", arguments: args, inputResponses: allow, requestState: forged } as never), (e: Error & { code?: number }) => {
    assert.equal(e.code, -32602);
    assert.match(e.message, /Invalid or expired requestState/);
    return true;
  });
  await assert.rejects(client.callTool({ name: "bash", arguments: { command: "echo other" }, inputResponses: allow, requestState: first.requestState } as never), (e: Error & { code?: number }) => {
    assert.equal(e.code, -32602);
    assert.match(e.message, /requestState was issued for another call \(its input differs\)/);
    return true;
  });
  const kept = bashValue(await client.callTool({ name: "bash", arguments: { command: "tools memory read-graph | jq -c '[.entities[].name]'" } }));
  assert.equal(kept.stdout, '["alpha","beta"]\n', "refused retries ran nothing");
  // The genuine state with the answer runs the call, once, even when sent twice.
  const done = bashValue(await client.callTool({ name: "bash", arguments: args, inputResponses: allow, requestState: first.requestState } as never));
  assert.equal(done.exit_code, 0, done.stderr);
  const rest = name === "beta" ? '["alpha"]\n' : '["beta"]\n';
  assert.equal(done.stdout, rest);
  const twice = bashValue(await client.callTool({ name: "bash", arguments: args, inputResponses: allow, requestState: first.requestState } as never));
  assert.equal(twice.stdout, rest, "the completed step's recorded result");
}

test("stdio: a tampered requestState, or one from another call, is refused; the genuine one runs the call once", async () => {
  const manual = new Client({ name: "manual", version: "1" }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: MODERN } }, inputRequired: { autoFulfill: false } });
  await stdioGateway(manual);
  bashValue(await manual.callTool({ name: "bash", arguments: { command: createScript } }));
  await refusals(manual);
});

const TOKEN_A = "gateway-2026-token-a-0123456789";
const TOKEN_B = "gateway-2026-token-b-0123456789";

/** `toolshell mcp --http 0` as a child process with two API tokens; resolves with its URL. */
async function httpGateway(extra: string[] = []): Promise<string> {
  const { file, dir } = writeConfig();
  const cmd = tsxCommand(MAIN, ["mcp", "--http", "0", "--config", file, ...extra]);
  const child = spawn(cmd.command, cmd.args, { cwd: dir, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, TOOLSHELL_API_TOKENS: `${TOKEN_A},${TOKEN_B}` } });
  closers.push(async () => {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
  });
  child.stdout.resume();
  return new Promise<string>((resolve, reject) => {
    let err = "";
    child.stderr.on("data", (d: Buffer) => {
      err += d.toString();
      const m = /serving Streamable HTTP at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err);
      if (m) resolve(m[1]);
    });
    child.once("exit", (code) => reject(new Error(`exited ${code}: ${err}`)));
  });
}

/** Connects over HTTP with a token; records every response's Mcp-Session-Id header. */
async function connectHttp(client: Client, url: string, token: string, sessionIds: string[] = []): Promise<void> {
  const record = async (input: string | URL | Request, init?: RequestInit) => {
    const res = await fetch(input, init);
    const sid = res.headers.get("mcp-session-id");
    if (sid) sessionIds.push(sid);
    return res;
  };
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: record, requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  closers.push(() => client.close());
}

test("--http: a 2026-07-28 client is served statelessly (no Mcp-Session-Id) with approvals through input_required; a 2025 client beside it as before", async () => {
  const url = await httpGateway();
  const m = modernClient();
  const sessionIds: string[] = [];
  await connectHttp(m.client, url, TOKEN_A, sessionIds);
  await approvalFlow(m);
  assert.deepEqual(sessionIds, [], "no Mcp-Session-Id on the 2026 era");

  // The same token on another connection is the same principal: the same toolshell session.
  const again = modernClient();
  await connectHttp(again.client, url, TOKEN_A);
  const seen = bashValue(await again.client.callTool({ name: "bash", arguments: { command: "tools memory read-graph | jq -c '[.entities[].name]'; echo x > f.txt" } }));
  assert.equal(seen.stdout, '["beta"]\n');
  const files = bashValue(await m.client.callTool({ name: "bash", arguments: { command: "cat f.txt" } }));
  assert.equal(files.stdout, "x\n", "one session per principal: files are shared");

  // A 2025 client: initialize, a session id, elicitation over the call's stream, as before.
  const legacy = new Client({ name: "legacy", version: "1" }, { capabilities: {} });
  const legacyIds: string[] = [];
  await connectHttp(legacy, url, TOKEN_B, legacyIds);
  assert.equal(legacy.getProtocolEra(), "legacy");
  assert.ok(legacyIds.length > 0, "the 2025 era keeps its Mcp-Session-Id");
  const names = (await legacy.listTools()).tools.map((t) => t.name).sort();
  assert.deepEqual(names, ["bash", "toolshell_approve"]);
  const echo = bashValue(await legacy.callTool({ name: "bash", arguments: { command: "echo legacy; cat f.txt 2>/dev/null || echo own-session" } }));
  assert.equal(echo.stdout, "legacy\nown-session\n");
});

test("--http: a forged requestState, one from another call, or one replayed by another token is refused; the genuine one runs the call once", async () => {
  const url = await httpGateway();
  const manual = new Client({ name: "manual", version: "1" }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: MODERN } }, inputRequired: { autoFulfill: false } });
  await connectHttp(manual, url, TOKEN_A);
  bashValue(await manual.callTool({ name: "bash", arguments: { command: createScript } }));
  const args = { command: deleteScript("alpha") };
  const first = await firstRound(manual, args);
  // Another principal (token B) echoing A's state is refused by the seal's binding.
  const other = new Client({ name: "other", version: "1" }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: MODERN } }, inputRequired: { autoFulfill: false } });
  await connectHttp(other, url, TOKEN_B);
  await assert.rejects(other.callTool({ name: "bash", arguments: args, inputResponses: { approval: { action: "accept", content: { decision: "allow" } } }, requestState: first.requestState } as never), (e: Error & { code?: number }) => {
    assert.equal(e.code, -32602);
    assert.match(e.message, /Invalid or expired requestState/);
    return true;
  });
  await refusals(manual, "alpha");
});

test("--http: one client names at most --max-sessions sessions of its own (each is a session of the store); control: a name it has used goes on working", async () => {
  const url = await httpGateway(["--max-sessions", "2"]);
  const m = modernClient();
  await connectHttp(m.client, url, TOKEN_A);
  const inSession = (name: string) => m.client.callTool({ name: "bash", arguments: { command: `echo ${name}` }, _meta: { "toolshell/session": name } } as never);
  assert.equal(bashValue(await inSession("one")).stdout, "one\n");
  assert.equal(bashValue(await inSession("two")).stdout, "two\n");
  await assert.rejects(inSession("three"), /too many named sessions for this client \(2/);
  assert.equal(bashValue(await inSession("one")).stdout, "one\n", "a name it has used still works");
});
