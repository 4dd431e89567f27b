/**
 * A relayed question that asks the person for a password, a key or a token (MCP specification,
 * Elicitation: servers MUST NOT request sensitive information in form mode) is declined before
 * any surface shows it: the library's person, the CLI prompt, the gateway's MCP client, the HTTP
 * API and console (`/v1/questions`), the AI SDK adapter. A real upstream MCP server over stdio
 * asks each form; each surface also gets the control forms, which are asked and answered.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { pathToFileURL } from "node:url";
import { test, type TestContext } from "node:test";
import { Client, type CallToolResult } from "@modelcontextprotocol/client";
import { sensitiveRequest } from "../../src/call/sensitive-question.js";
import { cliPerson } from "../../src/cli/person.js";
import { createToolShell, defineTool, type ToolShell } from "../../src/index.js";
import { createToolshellTools } from "../../src/ai/index.js";
import { openHost, startApi } from "../../src/server/index.js";
import { REPO_ROOT, sdkModule } from "../fixtures/mcp/index.js";
import { linkGateway } from "../fixtures/gateway-client.js";

type Form = [message: string, schema: Record<string, unknown>];
const str = (extra: Record<string, unknown> = {}) => ({ type: "string", ...extra });
const one = (name: string, field: Record<string, unknown>, message = "Please fill this in."): Form => [message, { type: "object", properties: { [name]: field }, required: [name] }];

/** Forms asking for a secret: by the field's name, title, description, format, and by the message. */
const ATTACKS: Form[] = [
  one("password", str()),
  one("apiKey", str()),
  one("GITHUB_TOKEN", str()),
  one("value", str({ title: "Your API key" })),
  one("value", str({ title: "Client secret" })),
  one("value", str({ description: "Paste the bearer token from your dashboard" })),
  one("pass\u200bword", str()),
  one("value", str({ title: "\uff50\uff41\uff53\uff53\uff57\uff4f\uff52\uff44" })), // fullwidth "password"
  one("pin", { type: "integer", title: "PIN" }),
  one("value", str(), "To continue, enter your GitHub personal access token."),
  one("value", str(), "What is your password?"),
  ["Sign in", { type: "object", properties: { user: str({ title: "User name" }), pw: str({ title: "Passphrase" }) } }],
];
/**
 * Forms the MCP SDK does not relay as written (a `password` format is refused, `writeOnly` dropped
 * by the client's schema): a local tool's `ctx.ask` can still ask them.
 */
const LOCAL_ATTACKS: Form[] = [one("value", str({ format: "password" })), one("value", str({ writeOnly: true }))];
/** Forms that ask nothing secret (a secret named in a yes/no or a choice is no request for one). */
const CONTROLS: Form[] = [
  one("name", str({ title: "Your name" })),
  one("email", str({ format: "email", title: "Email" })),
  one("confirm", { type: "boolean", title: "Delete the secret named prod-db?" }),
  one("kind", { type: "string", enum: ["token", "password"], title: "Which kind of credential to rotate?" }),
  one("count", { type: "integer", title: "How many tokens to generate" }, "The secret store is ready."),
];

/** A stdio server whose `ask` tool asks form number `n` of `forms` and returns the answer. */
function askingServer(t: TestContext, forms: Form[]): { command: string; args: string[] } {
  const dir = mkdtempSync(path.join(tmpdir(), "ts-sensitive-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, "asking.mjs");
  writeFileSync(
    file,
    [
      `import { McpServer } from ${JSON.stringify(sdkModule("@modelcontextprotocol/server"))};`,
      `import { StdioServerTransport } from ${JSON.stringify(sdkModule("@modelcontextprotocol/server/stdio"))};`,
      `import { z } from ${JSON.stringify(pathToFileURL(path.join(REPO_ROOT, "node_modules/zod/index.js")).href)};`,
      `const forms = ${JSON.stringify(forms)};`,
      `const server = new McpServer({ name: "asking", version: "1.0.0" });`,
      `server.registerTool("ask", { inputSchema: z.object({ n: z.string() }), annotations: { readOnlyHint: true } }, async ({ n }, ctx) => {`,
      `  const [message, requestedSchema] = forms[Number(n)];`,
      `  const a = await ctx.mcpReq.send({ method: "elicitation/create", params: { message, requestedSchema } });`,
      `  return { content: [{ type: "text", text: a.action + " " + JSON.stringify(a.content ?? {}) }] };`,
      `});`,
      `await server.connect(new StdioServerTransport());`,
    ].join("\n"),
  );
  return { command: process.execPath, args: [file] };
}

const ALL = [...ATTACKS, ...CONTROLS];
const isAttack = (n: number) => n < ATTACKS.length;
/** An answer that matches every control form's schema. */
function answerFor(schema: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, f] of Object.entries(schema.properties as Record<string, { type?: string; enum?: string[]; format?: string }>)) out[k] = f.enum ? f.enum[0] : f.type === "boolean" ? true : f.type === "integer" ? 3 : f.format === "email" ? "ada@example.com" : "Ada";
  return out;
}

async function shellFor(t: TestContext): Promise<ToolShell> {
  const shell = await createToolShell({
    config: { mcpServers: { asking: askingServer(t, ALL) } },
    tools: {
      ask_local: defineTool({
        description: "Asks form n of the local forms.",
        inputSchema: { type: "object", properties: { n: { type: "string" } }, required: ["n"] },
        hints: { readOnly: true },
        execute: async ({ n }, ctx) => {
          const [message, requestedSchema] = LOCAL_ATTACKS[Number(n)]!;
          const a = await ctx.ask!({ server: "local", command: "tools ask_local", message, requestedSchema });
          return `${a.action} ${JSON.stringify(a.content ?? {})}`;
        },
      }),
    },
  });
  t.after(() => shell.close());
  return shell;
}

test("the rule: every attack form is seen, no control form is", () => {
  for (const [message, requestedSchema] of [...ATTACKS, ...LOCAL_ATTACKS]) assert.ok(sensitiveRequest({ message, requestedSchema }), `not seen: ${JSON.stringify([message, requestedSchema])}`);
  for (const [message, requestedSchema] of CONTROLS) assert.equal(sensitiveRequest({ message, requestedSchema }), undefined, JSON.stringify([message, requestedSchema]));
});

test("library person: a form asking for a password, key or token is declined without reaching the person; control: other forms are asked and answered", async (t) => {
  const shell = await shellFor(t);
  const session = shell.session("lib");
  await session.ready;
  for (let n = 0; n < ALL.length; n++) {
    const asked: string[] = [];
    const r = await session.bash(`tools asking ask n=${n}`, { person: { ask: async (q) => (asked.push(q.message), { action: "accept", content: answerFor(q.requestedSchema as Record<string, unknown>) }) } });
    assert.equal(r.exit_code, 0, r.stderr);
    if (isAttack(n)) {
      assert.deepEqual(asked, [], `form ${n} reached the person`);
      assert.match(r.stdout, /^decline/, `form ${n}`);
      const answered = session.events.filter((e) => e.type === "question.answered").at(-1) as { unanswered?: string };
      assert.match(answered.unanswered ?? "", /sensitive information in a form/);
    } else {
      assert.equal(asked.length, 1, `control ${n} was not asked`);
      assert.match(r.stdout, /^accept \{/, `control ${n}: ${r.stdout}`);
    }
  }
  // A local tool's question goes through the same rule (forms the SDK would not relay).
  for (let n = 0; n < LOCAL_ATTACKS.length; n++) {
    const asked: string[] = [];
    const r = await session.bash(`tools ask_local n=${n}`, { person: { ask: async (q) => (asked.push(q.message), { action: "accept", content: { value: "hunter2" } }) } });
    assert.deepEqual(asked, [], `local form ${n} reached the person`);
    assert.match(r.stdout, /^decline/);
  }
});

test("CLI prompt: nothing of a form asking for a secret is written to the terminal; control: other forms are prompted and answered", async (t) => {
  const shell = await shellFor(t);
  const session = shell.session("cli");
  await session.ready;
  for (let n = 0; n < ALL.length; n++) {
    const input = new PassThrough();
    const output = new PassThrough();
    let shown = "";
    // The person answers each prompt as it is shown: yes, then a value for each field.
    const lines = isAttack(n) ? ["y", "hunter2", "hunter2"] : ["y", ...Object.values(answerFor(ALL[n]![1])).map(String)];
    output.on("data", (c: Buffer) => {
      shown += c.toString();
      if (/: $/.test(shown) && lines.length) input.write(`${lines.shift()}\n`);
    });
    const r = await session.bash(`tools asking ask n=${n}`, { person: cliPerson(new PassThrough(), { input, output }) });
    assert.equal(r.exit_code, 0, r.stderr);
    if (isAttack(n)) {
      assert.equal(shown, "", `form ${n} was prompted: ${shown}`);
      assert.ok(!r.stdout.includes("hunter2"));
      assert.match(r.stdout, /^decline/);
    } else {
      assert.match(shown, /MCP server asking asks/, `control ${n}`);
      assert.match(r.stdout, /^accept \{/, `control ${n}: ${r.stdout}`);
    }
  }
});

test("gateway: the client gets no elicitation for a form asking for a secret; control: other forms reach it and its answer reaches the server", async (t) => {
  const shell = await shellFor(t);
  const session = shell.session("gw");
  await session.ready;
  const forms: string[] = [];
  const client = new Client({ name: "person", version: "1.0.0" }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler("elicitation/create", async (req) => {
    forms.push(JSON.stringify(req.params));
    return { action: "accept", content: answerFor((req.params as { requestedSchema: Record<string, unknown> }).requestedSchema) as Record<string, string> };
  });
  await linkGateway(t, shell, session, client);
  for (let n = 0; n < ALL.length; n++) {
    const before = forms.length;
    const res = (await client.callTool({ name: "bash", arguments: { command: `tools asking ask n=${n}` } })) as CallToolResult;
    const out = JSON.parse((res.content[0] as { text: string }).text) as { stdout: string };
    if (isAttack(n)) {
      assert.equal(forms.length, before, `form ${n} reached the client: ${forms.at(-1)}`);
      assert.match(out.stdout, /^decline/);
    } else {
      assert.equal(forms.length, before + 1, `control ${n} did not reach the client`);
      assert.match(out.stdout, /^accept \{/, `control ${n}: ${out.stdout}`);
    }
  }
});

test("HTTP API and console: a form asking for a secret never waits in /v1/questions; control: another form waits there and its answer reaches the server", async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), "ts-sensitive-api-"));
  const TOKEN = "sensitive-questions-token-0123";
  const host = await openHost({ store: path.join(dir, "state.db"), config: { server: { tokens: [TOKEN] }, mcpServers: { asking: askingServer(t, ALL) } } });
  const api = await startApi(host, { host: "127.0.0.1", port: 0 });
  t.after(async () => {
    await api.close();
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const call = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(api.url + p, { method, headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
    return (await res.json()) as any;
  };
  await call("POST", "/v1/sessions", { id: "api" });
  for (const n of [0, 3, 11, ATTACKS.length, ATTACKS.length + 1]) {
    const running = call("POST", "/v1/sessions/api/bash", { script: `tools asking ask n=${n}` });
    let finished: any;
    void running.then((r) => (finished = r));
    let seen: any[] = [];
    while (!finished && !seen.length) {
      seen = (await call("GET", "/v1/questions")).pending;
      await new Promise((r) => setTimeout(r, 30));
    }
    if (isAttack(n)) {
      assert.deepEqual(seen, [], `form ${n} waited for a person`);
      assert.match((await running).stdout, /^decline/);
    } else {
      assert.equal(seen.length, 1, `control ${n}`);
      await call("POST", "/v1/sessions/api/questions", { question_id: seen[0].question_id, action: "accept", content: answerFor(ALL[n]![1]) });
      assert.match((await running).stdout, /^accept \{/);
    }
  }
});

test("AI SDK adapter: a form asking for a secret is declined (the adapter has nobody to ask); its bash result says why", async (t) => {
  const shell = await shellFor(t);
  const session = shell.session("sdk");
  await session.ready;
  const tools = await createToolshellTools({ shell, session });
  const run = (n: number) => tools.bash!.execute!({ command: `tools asking ask n=${n}` } as never, { toolCallId: `c${n}`, messages: [], abortSignal: new AbortController().signal } as never) as unknown as Promise<{ stdout: string }>;
  assert.match((await run(0)).stdout, /^decline/);
  const events = session.events;
  const answered = events.filter((e) => e.type === "question.answered").at(-1) as { unanswered?: string } | undefined;
  assert.match(answered?.unanswered ?? "", /sensitive information in a form/);
});
