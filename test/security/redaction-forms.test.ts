/**
 * Secrets in every form a server can give them back: a JSON number (one beyond 2^53 too), base64
 * data (an image, a resource's blob, a prompt's embedded resource), base64 text, a tool's
 * description, a `Basic` credential echoed decoded, a URL's key as written, a connection string in
 * a start-up error. Each reaches the script, the gateway's client, the AI SDK adapter, events and
 * saved files only redacted; each has a harmless control that passes unchanged.
 */
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { test, type TestContext } from "node:test";
import { NodeStreamableHTTPServerTransport } from "@modelcontextprotocol/node";
import { McpServer } from "@modelcontextprotocol/server";
import { Client } from "@modelcontextprotocol/client";
import { createToolshellTools, outcomeToModelOutput } from "../../src/ai/index.js";
import { linkGateway } from "../fixtures/gateway-client.js";
import { createToolShell, type ToolShell } from "../../src/index.js";
import type { DirectOutcome } from "../../src/surface/index.js";
import { LEAKY_SERVER, tsxCommand } from "../fixtures/mcp/index.js";

const SECRET = "sk_live_Zq9xW2vB7nM4";
const SECRET_NUM = "98765432109876543210";
/** The digits a rounded copy of SECRET_NUM would show (its first 16). */
const NUM_PREFIX = SECRET_NUM.slice(0, 16);
/** The options the AI SDK passes a tool's `execute`. */
const aiOptions = (id: string) => ({ toolCallId: id, messages: [], abortSignal: new AbortController().signal }) as never;
const b64 = (s: string | Buffer) => Buffer.from(s).toString("base64");

/** Every base64 run in `text`, decoded as latin1 (so bytes of any image are searchable). */
function decodedRuns(text: string): string {
  return (text.match(/[A-Za-z0-9+/]{12,}={0,2}/g) ?? []).map((r) => Buffer.from(r, "base64").toString("latin1")).join("\n");
}

/** No form of the secrets in `text`: as written, decoded from base64, or the number's first digits. */
function assertClean(text: string, where: string): void {
  for (const form of [SECRET, SECRET.replace(/_/g, "-"), NUM_PREFIX, b64(SECRET).slice(0, 20)]) assert.ok(!text.includes(form), `${where} showed ${form}: ${text.slice(0, 2000)}`);
  assert.ok(!decodedRuns(text).includes(SECRET), `${where} held the secret in base64: ${text.slice(0, 2000)}`);
}

async function leakyShell(t: TestContext): Promise<ToolShell> {
  const shell = await createToolShell({
    config: { mcpServers: { leaky: { ...tsxCommand(LEAKY_SERVER), env: { SECRET, SECRET_NUM } } }, keepVisible: ["leaky__number", "leaky__blob", "leaky__described"] },
  });
  t.after(() => shell.close());
  return shell;
}

async function gatewayClient(t: TestContext, shell: ToolShell, id: string): Promise<Client> {
  const session = shell.session(id);
  await session.ready;
  const client = new Client({ name: "c", version: "1" });
  await linkGateway(t, shell, session, client);
  return client;
}

test("a secret a server returns as a JSON number (beyond 2^53) shows none of its digits in the script, the gateway's client, the AI SDK adapter or events; control: other numbers pass as numbers", async (t) => {
  const shell = await leakyShell(t);
  const session = shell.session("num");
  await session.ready;
  const r = await session.bash("tools leaky number");
  assert.equal(r.exit_code, 0, r.stderr);
  assertClean(r.stdout + r.stderr, "the script");
  assert.deepEqual(JSON.parse(r.stdout), { id: "[REDACTED]", count: 42 }, "the printed text is still JSON");
  // The gateway's client (a kept-visible tool, called directly).
  const client = await gatewayClient(t, shell, "num-gw");
  const viaGateway = await client.callTool({ name: "leaky__number", arguments: {} });
  assertClean(JSON.stringify(viaGateway), "the gateway's client");
  assert.match(JSON.stringify(viaGateway), /"count":42/);
  // The AI SDK adapter.
  const tools = await createToolshellTools({ shell, session: "num-ai" });
  const outcome = (await tools.leaky__number!.execute!({}, aiOptions("t1"))) as DirectOutcome;
  const model = JSON.stringify(outcomeToModelOutput(outcome));
  assertClean(model, "the AI SDK adapter");
  assert.match(model, /"count":42/);
  assertClean(JSON.stringify([...session.events, ...shell.session("num-ai").events, ...shell.session("num-gw").events]), "events");
});

test("a secret inside base64 (an image's bytes, a result's embedded resource, a resource read, a prompt's embedded resource, base64 text) is redacted in what is printed and in the files saved under tool-images/; control: harmless base64 passes unchanged and images are saved", async (t) => {
  const shell = await leakyShell(t);
  const session = shell.session("b64");
  await session.ready;
  for (const script of ["tools leaky blob", "tools leaky read-resource uri=file:///key.bin", "tools leaky get-prompt name=setup", "tools leaky encoded"]) {
    const r = await session.bash(script);
    assert.equal(r.exit_code, 0, `${script}: ${r.stderr}`);
    assertClean(r.stdout + r.stderr, script);
  }
  // Every saved image, as bytes.
  const saved = await session.bash("for f in tool-images/*; do echo \"$f\"; base64 -w0 \"$f\"; echo; done");
  assert.match(saved.stdout, /tool-images\/.*\.png/);
  assert.ok(!decodedRuns(saved.stdout).includes(SECRET), `a saved file holds the secret: ${saved.stdout}`);
  assert.ok(decodedRuns(saved.stdout).includes("\x89PNG"), "control: the images are saved");
  // Controls: harmless base64 is printed as the server sent it.
  assert.match((await session.bash("tools leaky blob")).stdout, new RegExp(b64("plain bytes here").replace(/[+/=]/g, "\\$&")));
  assert.match((await session.bash("tools leaky get-prompt name=setup")).stdout, new RegExp(b64("nothing secret\n").replace(/[+/=]/g, "\\$&")));
  assert.match((await session.bash("tools leaky encoded")).stdout, /control aGVsbG8gd29ybGQ=/);
  const plain = await session.bash("tools leaky read-resource uri=file:///plain.bin >/dev/null; ls tool-images | wc -l");
  assert.ok(Number(plain.stdout.trim()) >= 2, plain.stdout);
  assertClean(JSON.stringify(session.events), "events");
  // Through the gateway's client and the AI SDK adapter too.
  const client = await gatewayClient(t, shell, "b64-gw");
  assertClean(JSON.stringify(await client.callTool({ name: "leaky__blob", arguments: {} })), "the gateway's client");
  const tools = await createToolshellTools({ shell, session: "b64-ai" });
  assertClean(JSON.stringify(outcomeToModelOutput((await tools.leaky__blob!.execute!({}, aiOptions("t2"))) as DirectOutcome)), "the AI SDK adapter");
});

test("a secret in a kept-visible tool's description reaches neither the gateway's client nor the AI SDK adapter nor --help; control: the rest of the description and the tool's call work", async (t) => {
  const shell = await leakyShell(t);
  const client = await gatewayClient(t, shell, "desc-gw");
  const listed = (await client.listTools()).tools.find((x) => x.name === "leaky__described");
  assert.ok(listed, "control: the kept-visible tool is listed");
  assert.ok(!listed.description!.includes(SECRET), listed.description);
  assert.match(listed.description!, /key \[REDACTED\] \(plain words stay\)/);
  const tools = await createToolshellTools({ shell, session: "desc-ai" });
  assert.ok(!String(tools.leaky__described!.description).includes(SECRET));
  assert.match(String(tools.leaky__described!.description), /plain words stay/);
  const session = shell.session("desc");
  await session.ready;
  assertClean((await session.bash("tools leaky --help; tools leaky described --help")).stdout, "--help");
  assert.match(JSON.stringify(await client.callTool({ name: "leaky__described", arguments: {} })), /ledger read/);
});

test("a ${VAR} inside a connection-string argument is redacted from the server's start-up error; control: the rest of the error shows", async (t) => {
  const password = "pg-Pa55word-77";
  const cmd = tsxCommand(LEAKY_SERVER, ["fail", "--url", "postgres://app:${PGPASS}@127.0.0.1:1/db"]);
  const shell = await createToolShell({ config: { mcpServers: { db: cmd } }, env: { ...process.env, PGPASS: password } });
  t.after(() => shell.close());
  const session = shell.session("start");
  await session.ready;
  const r = await session.bash("tools db --help; tools db x");
  const all = r.stdout + r.stderr + JSON.stringify(session.events);
  assert.ok(!all.includes(password), `the password was shown: ${all.slice(0, 3000)}`);
  assert.ok(!all.includes(encodeURIComponent(password)));
  assert.match(r.stdout + r.stderr, /postgres:\/\/app:\[REDACTED\]@127\.0\.0\.1:1\/db/, "control: the error names the server's command line");
});

/** An HTTP MCP server whose `whoami` tool echoes the request's decoded Basic credential and its URL as written and decoded. */
async function echoServer(t: TestContext): Promise<string> {
  const http = createServer(async (req, res) => {
    const auth = String(req.headers.authorization ?? "");
    const decoded = Buffer.from(auth.replace(/^Basic /, ""), "base64").toString();
    const url = String(req.url);
    const mcp = new McpServer({ name: "echo", version: "1" });
    mcp.registerTool("whoami", { annotations: { readOnlyHint: true } }, () => ({
      content: [{ type: "text", text: `user:password ${decoded}; password ${decoded.split(":")[1]}; url ${url}; key ${new URL(url, "http://x").searchParams.get("api_key")}; user alice` }],
    }));
    const transport = new NodeStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on("close", () => void transport.close());
    await mcp.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  t.after(() => {
    http.closeAllConnections();
    return new Promise<void>((resolve) => http.close(() => resolve()));
  });
  return `http://127.0.0.1:${(http.address() as { port: number }).port}/mcp`;
}

test("a Basic credential's password echoed decoded and an api_key=${VAR} as written (+ / =) and decoded are redacted; control: the user name shows", async (t) => {
  const url = await echoServer(t);
  const password = "hunter2-Sesame-99";
  const key = "ab+cd/ef=gh12xy";
  const shell = await createToolShell({
    config: { mcpServers: { echo: { type: "http", url: `${url}?api_key=${"${KEY}"}`, headers: { Authorization: "Basic ${BASIC}" } } } },
    env: { ...process.env, BASIC: b64(`alice:${password}`), KEY: key },
  });
  t.after(() => shell.close());
  const session = shell.session("basic");
  await session.ready;
  const r = await session.bash("tools echo whoami");
  assert.equal(r.exit_code, 0, r.stderr);
  for (const form of [password, key, key.replace(/\+/g, " "), encodeURIComponent(key)]) assert.ok(!r.stdout.includes(form), `${form} was shown: ${r.stdout}`);
  assert.match(r.stdout, /user alice/, "control: the user name is not a secret");
  assert.match(r.stdout, /password \[REDACTED\]/);
});
