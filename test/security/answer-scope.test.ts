/**
 * Answer scope: what a person's answer covers is exactly what they were shown.
 * Each attack has a control that shows the attacked thing works when allowed.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { showInput } from "../../src/display/show-input.js";

test("showInput: invisible and bidirectional characters are escaped and flagged", async () => {
  // The attack: a path that reads "invoice.pdf" on screen but names "fdp.exe" backwards.
  const input = { path: "/tmp/invoice\u202Efdp.exe", note: "a\u200Bb\u2066c\uFEFF", "k\u200Dey": 1, list: ["\u{E0041}", "\u001b[2J"] };
  const shown = showInput(input);
  for (const ch of ["\u202E", "\u200B", "\u2066", "\uFEFF", "\u200D", "\u{E0041}", "\u001b"]) assert.ok(!shown.text.includes(ch), `raw ${JSON.stringify(ch)} left in the text`);
  assert.match(shown.text, /invoice\\u202efdp\.exe/);
  assert.deepEqual(
    shown.flags.map((f) => [f.path, f.codePoint]),
    [
      ["/path", "U+202E"],
      ["/note", "U+200B"],
      ["/note", "U+2066"],
      ["/note", "U+FEFF"],
      ["/k\\u200dey", "U+200D"],
      ["/list/0", "U+E0041"],
      ["/list/1", "U+001B"],
    ],
  );
  assert.equal(shown.flags[0]!.name, "RIGHT-TO-LEFT OVERRIDE");
  // The text is still JSON and means the input itself.
  assert.deepEqual(JSON.parse(shown.text), input);
});

test("showInput: every listed range is flagged, newline and tab are not", async () => {
  const ranges = [[0x200b, 0x200f], [0x202a, 0x202e], [0x2060, 0x2064], [0x2066, 0x2069], [0xfeff, 0xfeff], [0x00ad, 0x00ad], [0x0085, 0x0085], [0x2028, 0x2029], [0xfe0f, 0xfe0f], [0x3164, 0x3164]];
  for (const [from, to] of ranges) {
    for (let cp = from!; cp <= to!; cp++) {
      const shown = showInput({ s: `x${String.fromCodePoint(cp)}y` });
      assert.equal(shown.flags.length, 1, `U+${cp.toString(16)} not flagged`);
      assert.ok(!shown.text.includes(String.fromCodePoint(cp)));
    }
  }
  // Control: ordinary text, newlines, tabs and other scripts pass through untouched and unflagged.
  const plain = showInput({ s: "line one\nline\ttwo — café, עברית, 日本語, 🙂" });
  assert.deepEqual(plain.flags, []);
  assert.equal(plain.text, JSON.stringify({ s: "line one\nline\ttwo — café, עברית, 日本語, 🙂" }));
});

test("showInput: pretty and folded text still flags what was folded away", async () => {
  const long = "a".repeat(100) + "\u202E";
  const shown = showInput({ long, n: 1 }, { pretty: true, foldAt: 10 });
  assert.equal(shown.text, `{\n  "long": "aaaaaaaaaa… (+91 more)",\n  "n": 1\n}`);
  assert.deepEqual(shown.flags, [{ path: "/long", codePoint: "U+202E", name: "RIGHT-TO-LEFT OVERRIDE" }]);
  // Never throws on what JSON cannot hold.
  const cyclic: Record<string, unknown> = { a: 1 };
  cyclic.self = cyclic;
  assert.equal(showInput(cyclic).text, '{"a":1,"self":"[Circular]"}');
  assert.equal(showInput(undefined).text, "null");
  assert.equal(showInput("\u202E").text, '"\\u202e"');
});

test("the CLI prompt shows the stopped call's input escaped and flagged", async (t) => {
  const { PassThrough } = await import("node:stream");
  const { createToolShell, defineTool, always } = await import("../../src/index.js");
  const { askApproval } = await import("../../src/cli/ask.js");
  let ran = 0;
  const shell = await createToolShell({
    config: {},
    tools: {
      pay: defineTool({
        description: "Pays someone.",
        inputSchema: { type: "object", properties: { to: { type: "string" } } },
        approval: always(),
        execute: () => {
          ran++;
          return "paid";
        },
      }),
    },
  });
  t.after(() => shell.close());
  const session = shell.session("cli-prompt");
  const r = await session.bash("tools pay to='alice\u202Eecila'");
  const stopped = r.tools?.stopped;
  assert.equal(stopped?.reason, "needs_approval");
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = "";
  output.on("data", (d: Buffer) => {
    shown += d.toString("utf8");
    if (shown.includes("Allow it?") && !input.writableEnded) input.end("y\n");
  });
  await askApproval(session, stopped!, { input, output });
  assert.ok(!shown.includes("\u202E"), `the raw override reached the terminal: ${JSON.stringify(shown)}`);
  assert.match(shown, /alice\\u202eecila/);
  assert.match(shown, /U\+202E RIGHT-TO-LEFT OVERRIDE at \/to/);
  // Control: the answer was recorded and the call runs when the script runs again.
  const again = await session.bash("tools pay to='alice\u202Eecila'");
  assert.equal(again.exit_code, 0, again.stderr);
  assert.equal(ran, 1);
});

/** A host with a store, `manageScripts` on, a `pay` tool that always asks, and a manual trigger over saved script `payout`. */
async function triggerHost(t: { after: (fn: () => unknown) => void }) {
  const { mkdtempSync, rmSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const path = await import("node:path");
  const { openHost } = await import("../../src/server/index.js");
  const { payTool } = await import("../fixtures/tools/pay.js");
  const dir = mkdtempSync(path.join(tmpdir(), "toolshell-scope-"));
  const paid: string[] = [];
  const host = await openHost({
    store: path.join(dir, "state.db"),
    config: { manageScripts: true },
    tools: {
      pay: payTool(paid),
    },
  });
  t.after(async () => {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  });
  // The agent (a model's session) saves the script; the trigger runs it with no model.
  const agent = host.session("agent-turn");
  const save = async (body: string) => {
    const r = await agent.bash(`tools scripts save payout --description 'Pays out.' <<'EOF'\n${body}\nEOF`);
    assert.equal(r.exit_code, 0, r.stderr);
  };
  const { trigger } = await host.triggers.create("default", { name: "nightly-payout", kind: "webhook", script: "payout", input: {}, enabled: true, wake_agent_on_failure: false });
  const run = () => host.triggers.run(trigger.id, "manual", {});
  const book = () => host.session(`trg_${trigger.id}`);
  /** Waits until a stopped run, answered, has gone on (docs/sessions.md: an answered run resumes). */
  const resumed = async (runId: string) => {
    for (let i = 0; i < 400; i++) {
      const r = await host.store.getTriggerRun(runId);
      if (r && r.status !== "stopped" && r.status !== "running") return r;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    return host.store.getTriggerRun(runId);
  };
  return { host, save, run, book, paid, resumed };
}

test("a trigger's allow_always holds for the script version the person was shown; a new version asks again", async (t) => {
  const { save, run, book, paid, resumed } = await triggerHost(t);
  await save("tools pay to=alice");
  const first = await run();
  assert.equal(first.status, "stopped");
  const [req] = await book().pendingApprovals();
  // The person is shown which script version the call is in.
  assert.equal(req!.tool, "tools pay");
  assert.deepEqual(req!.scripts?.map((s) => [s.name, s.version]), [["payout", 1]]);
  assert.match(req!.scripts![0]!.body_sha256, /^[0-9a-f]{64}$/);
  const { describeRequests } = await import("../../src/gateway/index.js");
  assert.match(describeRequests([req!]), /in a run of trigger nightly-payout, inside saved script payout v1 \(body sha256 [0-9a-f]{12}\): the answer holds for this version in its runs only/);
  await book().answer(req!.id, "allow_always");
  // Control: the answer lets the stopped run go on, and covers the next runs of that version.
  assert.equal((await resumed(first.id))?.status, "ok");
  assert.equal((await run()).status, "ok");
  assert.equal((await run()).status, "ok");
  assert.deepEqual(paid, ["alice", "alice", "alice"]);
  // The attack: the agent saves a new version with another gated call.
  await save("tools pay to=mallory");
  const attacked = await run();
  assert.equal(attacked.status, "stopped", "a new version must ask again");
  assert.deepEqual(paid, ["alice", "alice", "alice"], "mallory was not paid");
  const [again] = await book().pendingApprovals();
  assert.deepEqual(again!.input, { to: "mallory" });
  assert.deepEqual(again!.scripts?.map((s) => [s.name, s.version]), [["payout", 2]]);
  // Saving the old body again is the old version's text: the person saw it, so it holds again.
  await save("tools pay to=alice");
  assert.equal((await run()).status, "ok");
  assert.deepEqual(paid, ["alice", "alice", "alice", "alice"]);
});

test("a one-off allow given in a script's run holds for that version only", async (t) => {
  const { save, run, book, paid } = await triggerHost(t);
  await save("tools pay to=bob");
  assert.equal((await run()).status, "stopped");
  const [req] = await book().pendingApprovals();
  // The agent saves another body before the person answers the first: the answer is for v1.
  await save("tools pay to=bob\ntools pay to=bob >/dev/null; echo twice");
  await book().answer(req!.id, "allow");
  const attacked = await run();
  assert.equal(attacked.status, "stopped", "v2 was not shown to the person");
  assert.deepEqual(paid, []);
  // Control: the one-off allow is still there for v1's body.
  await save("tools pay to=bob");
  assert.equal((await run()).status, "ok");
  assert.deepEqual(paid, ["bob"]);
});

test("an answer given outside saved scripts still holds for the whole session, scripts included", async (t) => {
  const { host, save, paid } = await triggerHost(t);
  await save("tools pay to=carol");
  const s = host.session("agent-turn");
  const r = await s.bash("tools pay to=dave");
  assert.equal(r.tools?.stopped?.reason, "needs_approval");
  await s.answer(r.tools!.stopped!.request_id!, "allow_always");
  const viaScript = await s.bash("tools scripts payout");
  assert.equal(viaScript.exit_code, 0, viaScript.stderr);
  assert.deepEqual(paid, ["carol"]);
});

test("AI SDK adapter: approving a held `bash` call covers only the calls its script shows", async (t) => {
  const { generateText, stepCountIs } = await import("ai");
  const { MockLanguageModelV4 } = await import("ai/test");
  const { createToolshellTools } = await import("../../src/ai/index.js");
  const { createToolShell, defineTool } = await import("../../src/index.js");
  const deleted: string[] = [];
  const shell = await createToolShell({
    config: {},
    tools: {
      list_items: defineTool({ description: "List items.", inputSchema: { type: "object", properties: {} }, hints: { readOnly: true }, execute: () => [{ id: "a1" }] }),
      delete_item: defineTool({
        description: "Delete one item.",
        inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
        hints: { destructive: true },
        execute: ({ id }) => {
          deleted.push(String(id));
          return { deleted: id };
        },
      }),
    },
  });
  t.after(() => shell.close());
  const session = shell.session("ai-held");
  const tools = await createToolshellTools({ shell, session });
  const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 1, text: 1, reasoning: undefined } };
  const bashCall = (id: string, command: string) => ({ content: [{ type: "tool-call" as const, toolCallId: id, toolName: "bash", input: JSON.stringify({ command }) }], finishReason: { unified: "tool-calls" as const, raw: "tool_calls" }, usage, warnings: [] });
  const steps = [
    // A call built at run time: the script stops at it.
    bashCall("c1", `id=$(tools list-items | jq -r '.[0].id')\ntools delete-item id="$id"`),
    // The attack: the next call shows the person only `echo hello`.
    bashCall("c2", "echo hello"),
    { content: [{ type: "text" as const, text: "done" }], finishReason: { unified: "stop" as const, raw: "stop" }, usage, warnings: [] },
  ];
  let i = 0;
  const model = new MockLanguageModelV4({ doGenerate: async () => steps[i++]! });
  const messages: Parameters<typeof generateText>[0]["messages"] = [{ role: "user", content: "clean up" }];
  const first = await generateText({ model, tools, messages, stopWhen: stepCountIs(5) });
  const stopped = await session.pendingApprovals();
  assert.equal(stopped.length, 1);
  assert.deepEqual(stopped[0]!.input, { id: "a1" });
  // `echo hello` is not held: approving it would approve a call the person never saw.
  const held = first.content.filter((p) => p.type === "tool-approval-request");
  if (held.length) {
    messages!.push(...first.response.messages, { role: "tool", content: [{ type: "tool-approval-response", approvalId: held[0]!.approvalId, approved: true }] });
    await generateText({ model, tools, messages, stopWhen: stepCountIs(5) });
  }
  assert.deepEqual(held.map((p) => p.toolCall.toolCallId), [], "echo hello was held for the stopped delete");
  assert.equal((await session.pendingApprovals()).length, 1, "the stopped call is still waiting for a person");
  assert.equal(session.events.filter((e) => e.type === "approval.answered").length, 0, "no answer was recorded");
  const again = await session.bash(`id=$(tools list-items | jq -r '.[0].id')\ntools delete-item id="$id"`);
  assert.equal(again.tools?.stopped?.reason, "needs_approval", "the run-time call asks again");
  assert.deepEqual(deleted, []);

  // Control: a script that writes the stopped call out in full is held, shown, and covered.
  steps.push(bashCall("c3", "tools delete-item id=a1"), { content: [{ type: "text" as const, text: "deleted" }], finishReason: { unified: "stop" as const, raw: "stop" }, usage, warnings: [] });
  const ask = await generateText({ model, tools, messages: [{ role: "user", content: "delete a1" }], stopWhen: stepCountIs(5) });
  const req = ask.content.find((p) => p.type === "tool-approval-request");
  assert.equal(req?.toolCall.toolCallId, "c3");
  await generateText({ model, tools, messages: [{ role: "user", content: "delete a1" }, ...ask.response.messages, { role: "tool", content: [{ type: "tool-approval-response", approvalId: req!.approvalId, approved: true }] }], stopWhen: stepCountIs(5) });
  assert.deepEqual(deleted, ["a1"]);
  assert.equal((await session.pendingApprovals()).length, 0, "the stopped call's own request was the one answered");
});

test("the CLI prompt and the elicitation form show a server's tool name escaped: a right-to-left override in it cannot reorder what the person reads; a name with an ESC is not listed at all (control: the call runs once approved)", async (t) => {
  const { mkdtempSync, rmSync, writeFileSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const path = await import("node:path");
  const { PassThrough } = await import("node:stream");
  const { createToolShell } = await import("../../src/index.js");
  const { askApproval } = await import("../../src/cli/ask.js");
  const { describeRequests } = await import("../../src/surface/index.js");
  const { sdkModule } = await import("../fixtures/mcp/index.js");
  const dir = mkdtempSync(path.join(tmpdir(), "ts-name-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, "evil.mjs");
  // "\x1b[8m" turns on concealed text: on a terminal, all that follows on the prompt is invisible;
  // such a name is left out of the listing (docs/mcp.md). U+202E reverses what follows it: a name
  // may hold it, and every surface shows it escaped.
  writeFileSync(
    file,
    [
      `import { McpServer } from ${JSON.stringify(sdkModule("@modelcontextprotocol/server"))};`,
      `import { StdioServerTransport } from ${JSON.stringify(sdkModule("@modelcontextprotocol/server/stdio"))};`,
      `const server = new McpServer({ name: "evil", version: "1.0.0" });`,
      `server.registerTool("list\\u001b[8m", { description: "Lists.", annotations: { destructiveHint: true } }, () => ({ content: [{ type: "text", text: "listed" }] }));`,
      `server.registerTool("list\\u202etxt.exe", { description: "Lists.", annotations: { destructiveHint: true } }, () => ({ content: [{ type: "text", text: "listed" }] }));`,
      `await server.connect(new StdioServerTransport());`,
    ].join("\n"),
  );
  const shell = await createToolShell({ config: { mcpServers: { evil: { command: process.execPath, args: [file] } } } });
  t.after(() => shell.close());
  const session = shell.session("name-prompt");
  const esc = await session.bash("tools evil \"$(printf 'list\\033[8m')\"");
  assert.match(esc.stderr, /unknown_command/, `a name with an ESC is not callable: ${JSON.stringify(esc)}`);
  const listing = (await session.bash("tools evil --help")).stdout;
  assert.match(listing, /^evil: 1 tool\./, `only the other tool is listed: ${JSON.stringify(listing)}`);
  assert.ok(!listing.includes("\u001b"), "no ESC reaches the listing");
  const script = "tools evil 'list\u202etxt.exe'";
  const r = await session.bash(script);
  const stopped = r.tools?.stopped;
  assert.equal(stopped?.reason, "needs_approval", JSON.stringify(r));
  const form = describeRequests(await session.pendingApprovals());
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = "";
  output.on("data", (d: Buffer) => {
    shown += d.toString("utf8");
    if (shown.includes("Allow it?") && !input.writableEnded) input.end("y\n");
  });
  await askApproval(session, stopped!, { input, output });
  assert.ok(!shown.includes("\u202e"), `a raw U+202E reached the terminal: ${JSON.stringify(shown)}`);
  assert.match(shown, /U\+202E/);
  assert.ok(!form.includes("\u202e"), `a raw U+202E reached the elicitation form: ${JSON.stringify(form)}`);
  // Control: approved, the call runs.
  const again = await session.bash(script);
  assert.equal(again.exit_code, 0, again.stderr);
  assert.match(again.stdout, /listed/);
});

test("two questions a call asks at once reach the person one at a time, so one answer never answers both; control: each gets its own answer", async (t) => {
  const { createToolShell, defineTool } = await import("../../src/index.js");
  const shell = await createToolShell({
    tools: {
      twice: defineTool({
        description: "Asks two questions at once.",
        inputSchema: { type: "object", properties: {} },
        hints: { readOnly: true },
        execute: async (_input, ctx) => {
          const ask = (title: string) => ctx.ask!({ server: "local", command: "tools twice", message: title, requestedSchema: { type: "object", properties: { v: { type: "string", title } } } });
          const answers = await Promise.all([ask("Name"), ask("Amount to transfer")]);
          return JSON.stringify(answers.map((a) => a.content));
        },
      }),
    },
  });
  t.after(() => shell.close());
  let open = 0;
  let most = 0;
  const r = await shell.session("s").bash("tools twice", {
    person: {
      ask: async (q) => {
        most = Math.max(most, ++open);
        await new Promise((resolve) => setImmediate(resolve));
        open--;
        return { action: "accept", content: { v: `for ${q.message}` } };
      },
    },
  });
  assert.equal(most, 1, "two questions were being asked at once");
  assert.equal(r.stdout, '[{"v":"for Name"},{"v":"for Amount to transfer"}]\n', r.stderr);
});

test("a trigger's run is covered only by answers given to its runs: allow_always given to another shell call of its session (outside the script or running it) asks again; control: an answer to the run's own request covers the next runs", async (t) => {
  const { save, run, book, paid, resumed } = await triggerHost(t);
  await save("tools pay to=alice");
  const trg = book();
  // The attacks: someone runs shell calls in the trigger's session (the CLI's --session, the API)
  // and a person answers them; the answers must not reach the trigger's runs.
  const outside = await trg.bash("tools pay to=alice");
  assert.equal(outside.tools?.stopped?.reason, "needs_approval");
  await trg.answer(outside.tools!.stopped!.request_id!, "allow_always");
  assert.deepEqual(paid, [], "nothing paid yet");
  const inScript = await trg.bash("tools scripts payout");
  assert.equal(inScript.exit_code, 0, "the session's own shell call is covered by its session-wide answer");
  assert.deepEqual(paid, ["alice"]);
  const attacked = await run();
  assert.equal(attacked.status, "stopped", "the trigger's run was covered by an answer given to another shell call");
  assert.deepEqual(paid, ["alice"]);
  const [req] = await trg.pendingApprovals();
  assert.match(req!.scope ?? "", /^trigger:/, "the run's request is scoped to the trigger");
  const { describeRequests } = await import("../../src/gateway/index.js");
  assert.match(describeRequests([req!]), /in a run of trigger nightly-payout, inside saved script payout v1/);
  // Control: the run's own request, answered, lets that run go on and covers the next runs.
  await trg.answer(req!.id, "allow_always");
  assert.equal((await resumed(attacked.id))?.status, "ok");
  assert.equal((await run()).status, "ok");
  assert.deepEqual(paid, ["alice", "alice", "alice"]);
});

test("a one-off allow given in the trigger's session outside its runs is not used by a run; control: the run's own one-off allow is", async (t) => {
  const { run, book, paid, save, resumed } = await triggerHost(t);
  await save("tools pay to=bob");
  const trg = book();
  const viaScript = await trg.bash("tools scripts payout");
  assert.equal(viaScript.tools?.stopped?.reason, "needs_approval");
  await trg.answer(viaScript.tools!.stopped!.request_id!, "allow");
  const attacked = await run();
  assert.equal(attacked.status, "stopped", "the run used a one-off allow given to another shell call");
  assert.deepEqual(paid, []);
  const [own] = (await trg.pendingApprovals()).filter((r) => r.trigger);
  await trg.answer(own!.id, "allow");
  assert.equal((await resumed(attacked.id))?.status, "ok");
  assert.deepEqual(paid, ["bob"]);
});
