import assert from "node:assert/strict";
import { test } from "node:test";
import { z } from "zod";
import { createToolShell, defineTool, type ToolShell } from "../../src/index.js";

/** Local tools that record how often they ran. */
function localTools(counter: { n: number }) {
  return {
    noop: defineTool({ description: "Does nothing and returns nothing.", inputSchema: z.object({}), execute: () => { counter.n++; return ""; } }),
    lookup: defineTool({
      description: "Looks a record up by id.",
      inputSchema: z.object({ id: z.number().int(), verbose: z.boolean().optional(), tag: z.string().optional() }),
      hints: { readOnly: true },
      execute: ({ id, verbose, tag }) => ({ id, verbose: verbose ?? false, tag: tag ?? null }),
    }),
    save_note: defineTool({
      description: "Saves a note.",
      hints: { destructive: false, openWorld: false },
      inputSchema: { type: "object", properties: { title: { type: "string" }, body: { type: "string" }, dry_run: { type: "boolean" } }, required: ["title"], additionalProperties: false },
      execute: async (input, ctx) => {
        if (input.dry_run) return { saved: false };
        await ctx.getSandbox().writeFile(`notes/${input.title}.txt`, String(input.body ?? ""));
        return { saved: true, title: input.title };
      },
    }),
    boom: defineTool({ description: "Always fails.", inputSchema: {}, execute: () => { throw new Error("disk on fire"); } }),
    wait_for_stop: defineTool({
      description: "Waits until the shell call ends, then tries one more tools call through the sandbox.",
      hints: { destructive: false, openWorld: false },
      inputSchema: {},
      execute: async (_input, ctx) => {
        await new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve(), { once: true }));
        const r = await ctx.getSandbox().run("tools noop");
        await ctx.getSandbox().writeFile("after-stop.txt", r.stderr);
        return "unreachable";
      },
    }),
  };
}

async function shell(counter = { n: 0 }, extra: Parameters<typeof createToolShell>[0] = {}): Promise<ToolShell> {
  return createToolShell({ tools: localTools(counter), ...extra });
}

test("every input form of the tools command builds the same object", async () => {
  const ts = await shell();
  const s = ts.session();
  const forms = [
    `tools lookup '{"id":7}'`,
    `tools lookup id=7`,
    `tools lookup --id 7`,
    `tools lookup --id=7`,
    `echo '{"id":7}' | tools lookup`,
    `echo '{"id":7}' | tools lookup -`,
    `jq -n '{id: 7}' | tools lookup`,
  ];
  for (const f of forms) {
    const r = await s.bash(f);
    assert.equal(r.exit_code, 0, `${f}: ${r.stderr}`);
    assert.deepEqual(JSON.parse(r.stdout), { id: 7, verbose: false, tag: null }, f);
  }
  // Pairs merge over the JSON; --flag alone is true; a string field keeps `42` as text.
  const merged = await s.bash(`echo '{"id":1,"tag":"a"}' | tools lookup - id=2 --verbose tag=42`);
  assert.deepEqual(JSON.parse(merged.stdout), { id: 2, verbose: true, tag: "42" });
  // kebab, snake and camel spellings of a field and of the tool name are the same.
  const kebab = await s.bash(`tools save-note title=x --dry-run && tools save_note title=x --dryRun true`);
  assert.equal(kebab.stdout, '{"saved":false}\n{"saved":false}\n');
  await ts.close();
});

test("bad input is refused with the signature, never dropped", async () => {
  const ts = await shell();
  const s = ts.session();
  const unknown = await s.bash(`tools lookup id=1 colour=red`);
  assert.equal(unknown.exit_code, 1);
  const err = JSON.parse(unknown.stderr.trim());
  assert.equal(err.error.code, "invalid_input");
  assert.match(err.error.message, /unknown field "colour".*lookup\(\{ id: integer, verbose\?: boolean, tag\?: string \}\)/);
  const mistyped = JSON.parse((await s.bash(`tools lookup id=seven`)).stderr.trim());
  assert.equal(mistyped.error.code, "invalid_input");
  assert.match(mistyped.error.message, /id.*Signature: lookup\(\{ id: integer, verbose\?: boolean, tag\?: string \}\)/);
  const missing = JSON.parse((await s.bash(`tools lookup tag=x`)).stderr.trim());
  assert.match(missing.error.message, /id.*Signature: lookup\(\{ id: integer/, "a missing field names the signature too");
  const notObject = JSON.parse((await s.bash(`tools lookup '[1]'`)).stderr.trim());
  assert.equal(notObject.error.code, "invalid_input");
  const badJson = JSON.parse((await s.bash(`echo '{id:' | tools lookup -`)).stderr.trim());
  assert.match(badJson.error.message, /stdin is not valid JSON/);
  await ts.close();
});

test("output: text as is, JSON otherwise; errors are one JSON line with exit 1 a script can branch on", async () => {
  const ts = await shell();
  const s = ts.session();
  const r = await s.bash(`tools boom || echo "code=$(tools boom 2>&1 >/dev/null | jq -r .error.code)"`);
  assert.equal(r.exit_code, 0);
  assert.equal(r.stdout, "code=tool_error\n");
  const line = (await s.bash(`tools boom`)).stderr;
  assert.deepEqual(JSON.parse(line), { error: { code: "tool_error", message: "boom: disk on fire", retryable: false } });
  assert.equal(line.split("\n").length, 2, "exactly one line");
  const unknown = JSON.parse((await s.bash(`tools lokup id=1`)).stderr);
  assert.equal(unknown.error.code, "unknown_command");
  assert.match(unknown.error.message, /closest: tools lookup/);
  await ts.close();
});

test("the call limit stops the shell call, counted every way a call is made", async () => {
  const counter = { n: 0 };
  const ts = await shell(counter);
  const ways = {
    loop: `for i in $(seq 1 60); do tools noop; done; echo never`,
    function: `f() { tools noop; }; for i in $(seq 1 60); do f; done; echo never`,
    substitution: `for i in $(seq 1 60); do x=$(tools noop); done; echo never`,
    xargs: `seq 1 60 | xargs -n 1 sh -c 'tools noop' ; echo never`,
    "bash -c": `for i in $(seq 1 30); do bash -c 'tools noop; tools noop'; done; echo never`,
  };
  for (const [way, script] of Object.entries(ways)) {
    counter.n = 0;
    const r = await ts.session().bash(script);
    assert.equal(counter.n, 50, `${way}: exactly 50 calls ran`);
    assert.equal(r.exit_code, 1, way);
    assert.equal(r.tools?.stopped?.reason, "call_limit", way);
    assert.equal(r.stdout.includes("never"), false, `${way}: nothing after the stop runs`);
    assert.match(r.stderr, /"code":"call_limit"/);
    assert.equal(r.tools?.done.length, 50, "noop declares no hints, so each call may have changed something");
  }
  // The budget is per shell call: the next shell call of the same session starts fresh.
  const s = ts.session();
  await s.bash(`for i in $(seq 1 50); do tools noop; done`);
  const next = await s.bash(`tools noop && echo fine`);
  assert.equal(next.stdout, "fine\n");
  await ts.close();
});

test("the limit is configurable and the stop report keeps output, reads and writes", async () => {
  const ts = await shell({ n: 0 }, { callLimit: 3 });
  const r = await ts.session().bash(`echo start; tools lookup id=1 >/dev/null; tools save-note title=a body=b; tools noop; echo between; tools noop; echo never`);
  assert.equal(r.stdout, 'start\n{"saved":true,"title":"a"}\nbetween\n');
  assert.equal(r.tools?.read_only_calls, 1);
  assert.deepEqual(r.tools?.done.map((d) => d.tool), ["tools save-note", "tools noop"]);
  assert.deepEqual(r.tools?.files_written, ["/workspace/notes", "/workspace/notes/a.txt"]);
  assert.equal(r.tools?.not_reached, "the stopped call and everything after it; write a new script for the rest");
  await ts.close();
});

test("files persist across shell calls of a session; variables do not", async () => {
  const ts = await shell();
  const s = ts.session("persist");
  await s.bash(`X=1; echo kept > f.txt`);
  const r = await s.bash(`echo "x=\${X:-unset}"; cat f.txt`);
  assert.equal(r.stdout, "x=unset\nkept\n");
  const other = await ts.session("other").bash(`cat f.txt`);
  assert.notEqual(other.exit_code, 0, "another session has its own filesystem");
  await ts.close();
});

test("a workspace folder refuses symbolic links with ln's own message; the in-memory tree allows them", async () => {
  const { mkdtempSync, writeFileSync, readdirSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const path = await import("node:path");
  const dir = mkdtempSync(path.join(tmpdir(), "toolshell-ws-"));
  writeFileSync(path.join(dir, "a.txt"), "real\n");
  const ts = await shell({ n: 0 }, { workspaceDir: dir });
  const s = ts.session();
  const refused = await s.bash("ln -s /etc/passwd pw; echo $?");
  assert.equal(refused.stdout, "1\n");
  assert.equal(refused.stderr, "ln: failed to create symbolic link 'pw': Operation not permitted\n");
  assert.deepEqual(readdirSync(dir), ["a.txt"], "nothing was created in the host folder");
  const inMemory = await s.bash("echo hi > /tmp/t && ln -s /tmp/t /tmp/l && cat /tmp/l && readlink /tmp/l");
  assert.equal(inMemory.stdout, "hi\n/tmp/t\n", inMemory.stderr);
  await ts.close();
});

test("a script that only computes still yields: other timers run, and its time limit stops it", async () => {
  const ts = await shell({ n: 0 }, { timeoutMs: 200 });
  let scriptDone = false;
  let timerRanFirst: boolean | undefined;
  const timer = new Promise<void>((resolve) =>
    setTimeout(() => {
      timerRanFirst = !scriptDone;
      resolve();
    }, 20),
  );
  // No tool call, no sleep, no I/O: without yielding, no timer could fire until the loop hit
  // the 100,000-command limit.
  const r = await ts.session().bash("echo started; i=0; while true; do i=$((i+1)); done");
  scriptDone = true;
  await timer;
  assert.equal(timerRanFirst, true, "a timer due while the script ran fired before it ended");
  assert.equal(r.exit_code, 1);
  assert.equal(r.stdout, "started\n");
  assert.match(r.stderr, /"code":"unavailable".*time limit of 200 ms/);
  assert.doesNotMatch(r.stderr, /too many commands/);
  await ts.close();
});

test("one long statement (a || chain) still yields between its commands", async () => {
  let armed = false;
  let firedDuring: boolean | undefined;
  const ts = await createToolShell({
    tools: {
      arm: defineTool({ description: "Arms a 10 ms timer.", inputSchema: {}, hints: { readOnly: true }, execute: () => { armed = true; setTimeout(() => (firedDuring = armed), 10); return ""; } }),
      disarm: defineTool({ description: "Ends the window.", inputSchema: {}, hints: { readOnly: true }, execute: () => { armed = false; return "disarmed"; } }),
    },
  });
  // One statement: arm, then thousands of commands, then disarm. The timer can fire inside it
  // only if the interpreter gives the event loop a turn between the commands of one statement.
  const chain = Array.from({ length: 5000 }, () => "false").join(" || ");
  const r = await ts.session().bash(`tools arm && ${chain} || tools disarm`);
  assert.equal(r.stdout, "disarmed\n", r.stderr);
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(firedDuring, true, "the timer fired while the statement ran");
  await ts.close();
});

test("a time limit stops the shell call; a tool still running sees `stopped`", async () => {
  const ts = await shell({ n: 0 }, { timeoutMs: 300 });
  const s = ts.session();
  const r = await s.bash(`echo before; tools wait-for-stop; echo never`);
  assert.equal(r.exit_code, 1);
  assert.equal(r.tools?.stopped?.reason, "timeout");
  assert.equal(r.stdout, "before\n");
  // The tool in flight tried one more `tools` call after the stop: it answered `stopped`.
  let after = "";
  for (let i = 0; i < 50 && !after; i++) {
    await new Promise((res) => setTimeout(res, 20));
    after = await s.engine.fs.readFile("/workspace/after-stop.txt").catch(() => "");
  }
  assert.equal(JSON.parse(after).error.code, "stopped");
  // A busy script with no tool in flight is stopped too.
  const busy = await s.bash(`while true; do sleep 0.05; done`);
  assert.notEqual(busy.exit_code, 0);
  assert.equal(busy.tools?.stopped?.reason, "timeout");
  await ts.close();
});

test("hooks: before-hooks deny or replace input, after-hooks replace the result", async () => {
  const seen: string[] = [];
  const ts = await shell({ n: 0 }, {
    hooks: {
      beforeToolCall: (call) => {
        seen.push(`${call.command} ${JSON.stringify(call.input)}`);
        if (call.tool.name === "noop") return { action: "deny", reason: "noop is switched off" };
        if (call.tool.name === "lookup" && call.input.id === 13) return { action: "replace", input: { id: 14 } };
      },
      afterToolCall: (call, result) => (call.tool.name === "lookup" && result.ok ? { output: { kind: "text", text: "redacted" } } : undefined),
    },
  });
  const s = ts.session();
  const denied = await s.bash(`tools noop`);
  assert.equal(JSON.parse(denied.stderr).error.code, "denied");
  assert.match(denied.stderr, /noop is switched off/);
  const replaced = await s.bash(`tools lookup id=13`);
  assert.equal(replaced.stdout, "redacted\n");
  assert.deepEqual(seen, ['tools noop {}', 'tools lookup {"id":13}']);
  // The hook runs after the schema check: an invalid call never reaches it.
  await s.bash(`tools lookup id=x`);
  assert.equal(seen.length, 2);
  // A script that ends in an error after a denial gets the report (without `stopped`).
  const ended = await s.bash(`set -e; tools save-note title=kept body=x >/dev/null; tools noop; echo never`);
  assert.equal(ended.exit_code, 1);
  assert.equal(ended.tools?.stopped, undefined);
  assert.deepEqual(ended.tools?.done.map((d) => d.tool), ["tools save-note"]);
  await ts.close();
});

test("every nested call is a tool.nested_call event under its shell call", async () => {
  const ts = await shell();
  const s = ts.session("ev");
  await s.bash(`tools lookup id=1 >/dev/null; tools boom; tools lookup '{"id":2,"tag":"${"x".repeat(500)}"}' >/dev/null`);
  const nested = s.events.filter((e) => e.type === "tool.nested_call") as Array<Record<string, unknown>>;
  assert.equal(nested.length, 3);
  assert.equal(nested[0].parent_tool_call_id, "call_bash_1");
  assert.equal(nested[0].call_id, "call_bash_1:tools:0:lookup");
  assert.equal(nested[0].status, "completed");
  assert.equal(nested[1].status, "failed");
  assert.deepEqual(nested[1].error, { code: "tool_error", message: "boom: disk on fire" });
  assert.equal((nested[2].input_preview as string).length, 401);
  assert.ok((nested[2].input_preview as string).endsWith("…"));
  assert.equal(typeof nested[0].duration_ms, "number");
  await ts.close();
});

test("help: index, tool signature and schema; search ranks name hits first", async () => {
  const ts = await shell();
  const s = ts.session();
  const index = (await s.bash(`tools --help`)).stdout;
  assert.match(index, /^Tools \(tools <tool> --help shows one\):/m);
  assert.match(index, /  lookup +Looks a record up by id\./);
  assert.match(index, /tools search <words>/);
  const help = (await s.bash(`tools lookup --help`)).stdout;
  assert.match(help, /^lookup\(\{ id: integer, verbose\?: boolean, tag\?: string \}\)$/m);
  assert.match(help, /"required": \[\n\s+"id"\n\s+\]/);
  const found = (await s.bash(`tools search note`)).stdout.trim().split("\n");
  assert.equal(found[0], "tools save-note title=<string>  # Saves a note.");
  const none = await s.bash(`tools search zzzz`);
  assert.match(none.stdout, /No tools match/);
  // A plural finds the singular and the other way round.
  assert.match((await s.bash(`tools search notes`)).stdout, /^tools save-note /m);
  await ts.close();
  const plural = await createToolShell({
    tools: {
      "delete-entities": defineTool({ description: "Deletes entities from the graph.", inputSchema: { type: "object" }, execute: () => "x" }),
      "delete-note": defineTool({ description: "Deletes a note.", inputSchema: { type: "object" }, execute: () => "x" }),
    },
  });
  const p = plural.session();
  assert.match((await p.bash(`tools search entity`)).stdout, /^tools delete-entities /m);
  assert.match((await p.bash(`tools search entity delete`)).stdout.split("\n")[0], /^tools delete-entities /, "both words match it: first");
  await plural.close();
});

test("getSandbox and getSkill reach the session's files and the skills folder", async () => {
  const ts = await createToolShell({
    skillsDir: new URL("../fixtures/skills", import.meta.url).pathname,
    tools: {
      skill_title: defineTool({
        description: "Reads a skill and a sandbox file.",
        inputSchema: {},
        execute: async (_i, ctx) => {
          const skill = await ctx.getSkill("report");
          const sb = ctx.getSandbox();
          const data = await sb.readFile("data.txt");
          const ran = await sb.run("wc -l < data.txt");
          return { name: skill.metadata.name, data: data.trim(), lines: ran.stdout.trim(), session: ctx.session.id };
        },
      }),
    },
  });
  const s = ts.session("sk");
  const r = await s.bash(`printf 'a\\nb\\n' > data.txt; tools skill-title`);
  assert.deepEqual(JSON.parse(r.stdout), { name: "report", data: "a\nb", lines: "2", session: "sk" });
  await ts.close();
});

test("a server may not take a word the tools command keeps for itself", async () => {
  await assert.rejects(createToolShell({ config: { mcpServers: { search: { command: "true" } } } }), /server name "search" is reserved/);
  // `local` would be trusted like the agent's own tools.
  await assert.rejects(createToolShell({ config: { mcpServers: { local: { command: "true" } } } }), /server name "local" is reserved/);
});

test("a time limit during sleep keeps the output so far in the result and the report", async () => {
  const ts = await shell({ n: 0 }, { timeoutMs: 300 });
  const r = await ts.session().bash(`echo start; sleep 5; echo after`);
  assert.equal(r.stdout, "start\n");
  assert.equal(r.tools?.stopped?.reason, "timeout");
  assert.equal(r.tools?.stdout, "start\n");
  // No call stopped: the report names what the script had not reached, not "the stopped call".
  assert.equal(r.tools?.not_reached, "what the script had not reached when it stopped; write a new script for the rest");
  await ts.close();
});

test("sleep takes GNU durations and refuses bad ones", async () => {
  const ts = await shell();
  const r = await ts.session().bash(`sleep 0.01 0.01s && echo ok; sleep; echo $?; sleep 1x; echo $?`);
  assert.equal(r.stdout, "ok\n1\n1\n");
  assert.match(r.stderr, /sleep: missing operand\nsleep: invalid time interval '1x'/);
  await ts.close();
});

test("input details: numbers written with leading zeros, stdin that was not read, search without words", async () => {
  const ts = await shell();
  const s = ts.session();
  assert.deepEqual(JSON.parse((await s.bash(`tools lookup id=007`)).stdout), { id: 7, verbose: false, tag: null });
  const hint = await s.bash(`echo '{"id":3}' | tools lookup tag=x`);
  assert.match(JSON.parse(hint.stderr).error.message, /stdin holds JSON that was not read: add `-`/);
  const merged = await s.bash(`echo '{"id":3}' | tools lookup - tag=x`);
  assert.deepEqual(JSON.parse(merged.stdout), { id: 3, verbose: false, tag: "x" });
  const empty = await s.bash(`tools search`);
  assert.equal(JSON.parse(empty.stderr).error.code, "invalid_input");
  await ts.close();
});

test("a grouped source's tool named `help` is callable; `--help` still shows the page", async () => {
  const helpTool = {
    name: "help",
    source: "desk",
    grouped: true,
    description: "Opens a help-desk ticket.",
    inputSchema: { type: "object", properties: { text: { type: "string" } } },
    hints: { readOnly: true },
    hintsDeclared: true,
    validate: async (v: Record<string, unknown>) => ({ ok: true as const, value: v }),
    invoke: async (v: Record<string, unknown>) => ({ kind: "text" as const, text: `ticket: ${v.text}` }),
  };
  const desk = { name: "desk", kind: "mcp" as const, state: () => "ready" as const, tools: () => [helpTool], load: async () => {} };
  const ts = await createToolShell({ sources: [desk] });
  const s = ts.session();
  assert.equal((await s.bash(`tools desk help text=printer`)).stdout, "ticket: printer\n");
  assert.match((await s.bash(`tools desk --help`)).stdout, /^desk: 1 tool\./);
  await ts.close();
});

test("field names that reach the prototype are refused, never smuggled past the schema or the approval", async () => {
  const ts = await shell();
  const s = ts.session();
  const deep = `tools save-note '{"title":"x","body":"y","dry_run":false,"extra":${"{\"a\":".repeat(70)}{}${"}".repeat(70)}}'`;
  for (const script of [deep, `tools save-note title=x __proto__='{"body":"smuggled"}'`, `tools save-note '{"title":"x","__proto__":{"body":"y"}}'`, `tools save-note title=x constructor=1`]) {
    const r = await s.bash(script);
    assert.equal(r.exit_code, 1, script);
    assert.equal(JSON.parse(r.stderr).error.code, "invalid_input", script);
    if (script === deep) assert.match(JSON.parse(r.stderr).error.message, /nested more than 64 levels/);
  }
  await ts.close();
});

test("numbers JSON cannot carry (1e400 is Infinity) are refused before any approval is asked", async () => {
  const { always } = await import("../../src/index.js");
  const sent: unknown[] = [];
  const ts = await createToolShell({
    tools: {
      transfer: defineTool({ description: "Sends money.", inputSchema: { type: "object", properties: { amount: { type: "number" } } }, approval: always(), execute: ({ amount }) => { sent.push(amount); return "sent"; } }),
    },
  });
  const s = ts.session();
  for (const script of ["tools transfer amount=1e400", "tools transfer amount=-1e400", `echo '{"amount": 1e999}' | tools transfer -`, "tools transfer --amount 1e400"]) {
    const r = await s.bash(script);
    assert.equal(r.exit_code, 1, script);
    const err = JSON.parse(r.stderr.trim().split("\n").pop()!).error;
    assert.equal(err.code, "invalid_input", script);
    assert.match(err.message, /out of range/, script);
  }
  assert.deepEqual(await s.pendingApprovals(), [], "no person was asked about an input that cannot run");
  const plan = await s.bash("echo 'tools transfer amount=1e400' | tools plan -");
  assert.match(plan.stdout, /invalid input: the number Infinity is out of range/);
  assert.deepEqual(sent, []);
  const big = await s.bash("tools transfer amount=1e300");
  assert.equal(big.tools?.stopped?.reason, "needs_approval", "a large finite number is an ordinary call");
  await ts.close();
});

test("a script that is not a string is a clear error, not an exception", async () => {
  const ts = await shell();
  const r = await ts.session().bash(null as unknown as string);
  assert.equal(r.exit_code, 2);
  assert.equal(JSON.parse(r.stderr).error.code, "invalid_input");
  await ts.close();
});
