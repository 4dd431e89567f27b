import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { z } from "zod";
import { always, createToolShell, defineTool, never, once, type ToolShell } from "../../src/index.js";
import type { DecisionService } from "../../src/policy/index.js";
import { KIT_SERVER, NPM_SERVERS, tsxCommand } from "../fixtures/mcp/index.js";

let dir: string;
let ts: ToolShell;
const ran: string[] = [];
const rated: string[] = [];

/** A decision service that records what it was asked (the offline rater decides). */
const countingRater: DecisionService = {
  async rateChanges(tool) {
    rated.push(`${tool.source}/${tool.name}`);
    const { offlineRater } = await import("../../src/policy/index.js");
    return offlineRater.rateChanges(tool);
  },
};

function local() {
  const mark = (name: string) => () => {
    ran.push(name);
    return `${name} ran`;
  };
  return {
    refund: defineTool({ description: "Refund a charge.", inputSchema: z.object({ chargeId: z.string(), amount: z.number() }), approval: always(), execute: mark("refund") }),
    onboard: defineTool({ description: "Set up an account once.", inputSchema: z.object({}), approval: once(), execute: mark("onboard") }),
    wipe: defineTool({ description: "Wipe the cache.", inputSchema: z.object({}), hints: { destructive: true }, approval: never(), execute: mark("wipe") }),
    transfer: defineTool({
      description: "Transfer money.",
      inputSchema: z.object({ amount: z.number() }),
      hints: { destructive: false, openWorld: false },
      needsApproval: async ({ input }) => ((input.amount as number) > 100 ? { type: "user-approval", reason: "large amount" } : (input.amount as number) < 0 ? { type: "denied", reason: "negative amount" } : "approved"),
      execute: mark("transfer"),
    }),
    tag: defineTool({ description: "Tag an item.", inputSchema: z.object({}), hints: { destructive: false, openWorld: false }, execute: mark("tag") }),
    peek: defineTool({ description: "Read a value.", inputSchema: z.object({}), hints: { readOnly: true }, execute: mark("peek") }),
  };
}

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "toolshell-approvals-"));
  ts = await createToolShell({
    baseDir: dir,
    tools: local(),
    decisionService: countingRater,
    config: {
      mcpServers: {
        memory: { command: NPM_SERVERS.memory, env: { MEMORY_FILE_PATH: path.join(dir, "memory.jsonl") }, trust: true },
        // A server whose tools declare nothing: each is rated once.
        kit: { ...tsxCommand(KIT_SERVER) },
      },
      approval: { tools: { "kit say-stderr": "block" } },
    },
  });
});
after(() => ts.close());

const entity = (name: string) => `{"entities":[{"name":"${name}","entityType":"t","observations":[]}]}`;

test("reads and declared non-destructive changes never ask; destructive calls stop before start", async () => {
  const s = ts.session();
  const ok = await s.bash(`tools memory read-graph >/dev/null && tools memory create-entities '${entity("a")}' >/dev/null && echo fine`);
  assert.equal(ok.stdout, "fine\n", ok.stderr);
  const r = await s.bash(`echo should-not-print\ntools memory read-graph\ntools memory delete-entities entityNames='["a"]'`);
  assert.equal(r.exit_code, 1);
  assert.equal(r.stdout, "", "nothing ran");
  assert.equal(r.tools?.stopped?.before_start, true);
  assert.equal(r.tools?.stopped?.line, 3);
  assert.deepEqual(r.tools?.stopped?.call, { tool: "tools memory delete-entities", input: { entityNames: ["a"] } });
  assert.equal(r.tools?.stopped?.why, "destructive");
  assert.deepEqual(r.tools?.done, []);
  assert.equal(JSON.parse(r.stderr).error.code, "needs_approval");
  assert.equal((await s.pendingApprovals()).length, 1);
  assert.equal((await s.pendingApprovals())[0].id, r.tools?.stopped?.request_id);
});

test("a one-off allow covers that exact call once (keys in any order), then the script can run again", async () => {
  const s = ts.session();
  const script = `tools memory create-entities '${entity("b")}' >/dev/null; tools refund '{"chargeId":"ch_1","amount":5}'`;
  const first = await s.bash(script);
  assert.equal(first.tools?.stopped?.before_start, true);
  assert.equal(first.tools?.stopped?.why, "policy");
  await s.answer(first.tools!.stopped!.request_id!, "allow");
  // A rebuilt script with the keys in another order is the same exact call.
  const second = await s.bash(`tools refund '{"amount":5,"chargeId":"ch_1"}'`);
  assert.equal(second.stdout, "refund ran\n", second.stderr);
  // Used once: the same call asks again.
  const third = await s.bash(`tools refund '{"amount":5,"chargeId":"ch_1"}'`);
  assert.equal(third.tools?.stopped?.reason, "needs_approval");
  // Another input is another call.
  assert.equal(ran.filter((x) => x === "refund").length, 1);
});

test("a one-off allow lapses after an hour", async () => {
  const s = ts.session();
  const r = await s.bash(`tools refund chargeId=ch_2 amount=1`);
  const book = ts.policy.book(s.id);
  await s.answer(r.tools!.stopped!.request_id!, "allow");
  const realNow = book.now;
  book.now = () => realNow() + 3600_001;
  try {
    const late = await s.bash(`tools refund chargeId=ch_2 amount=1`);
    assert.equal(late.tools?.stopped?.reason, "needs_approval", "the lapsed allow no longer covers it");
  } finally {
    book.now = realNow;
  }
});

test("a call that needs approval at run time is not made: the script stops there with the stop report", async () => {
  const s = ts.session();
  const r = await s.bash(`
echo start
tools memory create-entities '${entity("c")}' >/dev/null
tools peek >/dev/null
n=$(echo '["c"]')
tools memory delete-entities entityNames="$n"
echo never
`);
  assert.equal(r.exit_code, 1);
  assert.equal(r.stdout, "start\n");
  assert.equal(r.tools?.stopped?.reason, "needs_approval");
  assert.equal(r.tools?.stopped?.before_start, undefined);
  assert.deepEqual(r.tools?.stopped?.call, { tool: "tools memory delete-entities", input: { entityNames: ["c"] } });
  assert.equal(r.tools?.read_only_calls, 1);
  assert.equal(r.tools?.done.length, 1);
  assert.equal(r.tools?.done[0].tool, "tools memory create-entities");
  assert.equal(r.tools?.done[0].ok, true);
  assert.equal(r.tools?.not_reached, "the stopped call and everything after it; write a new script for the rest");
  assert.doesNotMatch(readFileSync(path.join(dir, "memory.jsonl"), "utf8").split("\n").filter((l) => l.includes('"c"')).join(), /^$/);
  // allow_always covers the tool for the session.
  await s.answer(r.tools!.stopped!.request_id!, "allow_always");
  const again = await s.bash(`tools memory delete-entities entityNames='["c"]' >/dev/null && tools memory delete-entities entityNames='["zz"]' >/dev/null && echo gone`);
  assert.equal(again.stdout, "gone\n", again.stderr);
});

test("reject refuses that call (denied); reject_always refuses the tool for the session", async () => {
  const s = ts.session();
  const r = await s.bash(`tools refund chargeId=ch_9 amount=9`);
  await s.answer(r.tools!.stopped!.request_id!, "reject");
  const refused = await s.bash(`tools refund chargeId=ch_9 amount=9`);
  assert.equal(JSON.parse(refused.stderr).error.code, "denied");
  const r2 = await s.bash(`tools refund chargeId=ch_8 amount=8`);
  await s.answer(r2.tools!.stopped!.request_id!, "reject_always");
  const any = await s.bash(`tools refund chargeId=ch_7 amount=7 || echo "branch"`);
  assert.equal(any.stdout, "branch\n");
  assert.match(any.stderr, /"code":"denied".*reject_always/);
  await assert.rejects(async () => await s.answer(r2.tools!.stopped!.request_id!, "allow"), /already answered/);
  await assert.rejects(async () => await s.answer("apr_nope", "allow"), /no approval request/);
  assert.equal(ran.includes("refund") && ran.filter((x) => x === "refund").length, 1, "no refused call ran");
});

test("once(): asks the first time; an explicit yes is remembered, a refusal asks again", async () => {
  const s = ts.session();
  const r = await s.bash(`tools onboard`);
  await s.answer(r.tools!.stopped!.request_id!, "reject");
  const refused = await s.bash(`tools onboard`);
  assert.equal(JSON.parse(refused.stderr).error.code, "denied");
  const asks = await s.bash(`tools onboard`);
  assert.equal(asks.tools?.stopped?.reason, "needs_approval", "a refusal asks again next time");
  await s.answer(asks.tools!.stopped!.request_id!, "allow");
  assert.equal((await s.bash(`tools onboard`)).stdout, "onboard ran\n");
  assert.equal((await s.bash(`tools onboard`)).stdout, "onboard ran\n", "approved for the rest of the session");
  const other = await ts.session().bash(`tools onboard`);
  assert.equal(other.tools?.stopped?.reason, "needs_approval", "another session asks again");
});

test("never() and predicates", async () => {
  const s = ts.session();
  assert.equal((await s.bash(`tools wipe`)).stdout, "wipe ran\n", "never() does not ask even for a destructive tool");
  assert.equal((await s.bash(`tools transfer amount=50`)).stdout, "transfer ran\n");
  const big = await s.bash(`tools transfer amount=500`);
  assert.equal(big.tools?.stopped?.why, "policy");
  const neg = await s.bash(`tools transfer amount=-1`);
  assert.match(neg.stderr, /"code":"denied".*negative amount/);
});

test("ratings: tools that declare nothing are rated once per tool, not per script; config can block", async () => {
  const s = ts.session();
  rated.length = 0;
  const r = await s.bash(`tools kit plain text=hi && tools kit plain text=again`);
  assert.equal(r.stdout, "plain: hi\nplain: again\n", r.stderr);
  await s.bash(`tools kit plain text=third`);
  assert.deepEqual(rated, ["kit/plain"], "rated once");
  const addTool = await s.bash(`tools kit add-tool`);
  assert.equal(addTool.tools?.stopped?.why, "rated_changes");
  assert.deepEqual(rated, ["kit/plain", "kit/add_tool"]);
  await s.bash(`tools kit add-tool`);
  assert.equal(rated.length, 2, "the rating is cached");
  const blocked = await s.bash(`tools kit say-stderr line=x || echo refused`);
  assert.equal(blocked.stdout, "refused\n");
  assert.match(blocked.stderr, /blocked by configuration/);
});

test("modes: protective asks for anything not read-only; off asks for nothing", async () => {
  const prot = await createToolShell({ tools: local(), config: { approval: { mode: "protective" } } });
  const p = await prot.session().bash(`tools peek && tools tag`);
  assert.equal(p.tools?.stopped?.why, "mutating");
  assert.equal(p.tools?.stopped?.before_start, true);
  const off = await createToolShell({ tools: local(), config: { approval: { mode: "off", tools: { wipe: "always" } } } });
  const o = await off.session().bash(`tools tag; tools transfer amount=1000`);
  assert.equal(o.stdout, "tag ran\ntransfer ran\n", "off: neither hints nor a tool's own predicate ask");
  const w = await off.session().bash(`tools wipe`);
  assert.equal(w.tools?.stopped?.why, "policy", "a config `always` still asks when approvals are off");
  await prot.close();
  await off.close();
});

test("the stricter reading (a server's `trust: false`): untrusted annotations only add caution", async () => {
  const cfg = (trust: boolean) => ({ mcpServers: { memory: { command: NPM_SERVERS.memory, env: { MEMORY_FILE_PATH: path.join(dir, `m-${trust}.jsonl`) }, trust } } });
  const untrusted = await createToolShell({ baseDir: dir, config: cfg(false) });
  const u = await untrusted.session().bash(`tools memory read-graph >/dev/null; tools memory create-entities '${entity("u")}'`);
  // read-graph claims read-only: not taken as given, so it is counted as a change…
  assert.equal(u.tools?.stopped?.before_start, true);
  // …and create-entities, whose `destructive: false` claim is dropped, is rated: it looks like a change.
  assert.equal(u.tools?.stopped?.why, "rated_changes");
  const trusted = await createToolShell({ baseDir: dir, config: cfg(true) });
  const t = await trusted.session().bash(`tools memory create-entities '${entity("t")}' >/dev/null && echo ok`);
  assert.equal(t.stdout, "ok\n");
  await untrusted.close();
  await trusted.close();
});

test("tools plan lists each call with its input, risk, why and line, and runs nothing", async () => {
  const s = ts.session();
  const before = ran.length;
  const r = await s.bash(`tools plan <<'EOF'
tools memory read-graph
tools memory delete-entities entityNames='["x"]'
tools refund chargeId=ch_p amount=3
echo '{}' | tools peek
tools peek id=$x
EOF`);
  assert.equal(r.exit_code, 0, r.stderr);
  const plan = JSON.parse(r.stdout);
  assert.deepEqual(plan, {
    calls: [
      { tool: "tools memory read-graph", input: {}, risk: "read_only", where: "script", line: 1 },
      { tool: "tools memory delete-entities", input: { entityNames: ["x"] }, risk: "needs_approval", why: "destructive", where: "script", line: 2 },
      { tool: "tools refund", input: { chargeId: "ch_p", amount: 3 }, risk: "needs_approval", why: "policy", where: "script", line: 3 },
      { tool: "tools peek", input: null, risk: "checked_at_run_time", where: "script", line: 4, note: "the input comes from stdin" },
      { tool: "tools peek", input: null, risk: "checked_at_run_time", where: "script", line: 5, note: "the input is built while the script runs" },
    ],
    complete: true,
  });
  assert.equal(ran.length, before, "plan runs nothing");
  assert.equal((await s.pendingApprovals()).length, 0, "plan raises no request");
  // From a file in the session filesystem.
  const f = await s.bash(`printf 'tools peek\\neval "tools wipe"\\n' > p.sh; tools plan p.sh | jq -c '{complete, risks: [.calls[].risk]}'`);
  // The call spelled inside eval's text is listed too (asked before the start when gated).
  assert.equal(f.stdout, '{"complete":false,"risks":["read_only","changes"]}\n');
});

test("no way around it: every hidden route is caught at run time and marked by the plan", async () => {
  const bypasses: Record<string, string> = {
    eval: `eval "tools refund chargeId=x amount=1"`,
    alias: `shopt -s expand_aliases; alias t=tools; t refund chargeId=x amount=1`,
    "function named tools": `tools() { command tools "$@"; }; tools refund chargeId=x amount=1`,
    "command tools": `command tools refund chargeId=x amount=1`,
    "\\tools": `\\tools refund chargeId=x amount=1`,
    "/usr/bin/tools": `/usr/bin/tools refund chargeId=x amount=1`,
    "xargs tools": `echo amount=1 | xargs tools refund chargeId=x`,
    "find -exec": `touch f; find . -name f -exec tools refund chargeId=x amount=1 \\;`,
    "bash -c": `bash -c 'tools refund chargeId=x amount=1'`,
    source: `echo 'tools refund chargeId=x amount=1' > s.sh; source s.sh`,
    "$(...)": `echo "$(tools refund chargeId=x amount=1)"`,
    "variable as name": `t=tools; $t refund chargeId=x amount=1`,
    "here-doc to bash": `cat <<'EOF' | bash\ntools refund chargeId=x amount=1\nEOF`,
  };
  for (const [name, script] of Object.entries(bypasses)) {
    const s = ts.session();
    const before = ran.filter((x) => x === "refund").length;
    const r = await s.bash(script);
    assert.equal(ran.filter((x) => x === "refund").length, before, `${name}: the refund did not run`);
    assert.equal(r.tools?.stopped?.reason, "needs_approval", `${name}: stopped for approval (${r.stderr})`);
    const plan = JSON.parse((await ts.session().bash(`tools plan <<'PLAN'\n${script}\nPLAN`)).stdout);
    const marked = plan.complete === false || plan.calls.some((c: { risk: string }) => c.risk === "checked_at_run_time" || c.risk === "needs_approval");
    assert.ok(marked, `${name}: the plan marks it (${JSON.stringify(plan)})`);
  }
});

test("a tool word built at run time after a literal server (a variable, a function's \"$@\", a loop) makes the plan incomplete, naming the call; control: the written-out call is planned", async () => {
  const forms: Record<string, string> = {
    variable: `x=delete-entities; tools memory $x entityNames='["v"]'`,
    substitution: `x=$(echo delete-entities); tools memory $x entityNames='["v"]'`,
    "function's $@": `f() { tools memory "$@"; }; f delete-entities entityNames='["v"]'`,
    loop: `for t in read-graph delete-entities; do tools memory $t; done`,
    "saved script by variable": `x=anything; tools scripts $x`,
    // Pathname and brace expansion build the word at run time too.
    "a ? glob (a file of that name)": `echo > delete-entities; tools memory delete-entitie? entityNames='["v"]'`,
    "a [ ] glob": `tools memory [d]elete-entities entityNames='["v"]'`,
    "an extglob": `shopt -s extglob; tools memory @(delete-entities) entityNames='["v"]'`,
    "brace expansion": `tools memory {delete-entities,entityNames='["v"]'}`,
  };
  for (const [name, script] of Object.entries(forms)) {
    const plan = JSON.parse((await ts.session().bash(`tools plan <<'PLAN'\n${script}\nPLAN`)).stdout);
    assert.equal(plan.complete, false, `${name}: ${JSON.stringify(plan)}`);
    assert.ok(
      plan.hidden?.some((h: string) => /line 1\).*(not known before the run|does not resolve before the run)/.test(h)),
      `${name}: says why: ${JSON.stringify(plan.hidden)}`,
    );
  }
  // A command word built at run time says why too.
  const bare = JSON.parse((await ts.session().bash(`tools plan <<'PLAN'\nx=memory; tools $x read-graph\nPLAN`)).stdout);
  assert.equal(bare.complete, false);
  assert.match(bare.hidden.join("\n"), /its words are built while the script runs/);
  // Control: written out, the same call is planned (and asked before the start).
  const written = JSON.parse((await ts.session().bash(`tools plan <<'PLAN'\ntools memory delete-entities entityNames='["v"]'\nPLAN`)).stdout);
  assert.equal(written.complete, true, JSON.stringify(written));
  assert.deepEqual(
    written.calls.map((c: { tool: string; risk: string }) => [c.tool, c.risk]),
    [["tools memory delete-entities", "needs_approval"]],
  );
  // `tools memory` alone lists the server's tools: not a call.
  assert.deepEqual(JSON.parse((await ts.session().bash(`tools plan <<'PLAN'\ntools memory\nPLAN`)).stdout), { calls: [], complete: true });
});

test("CLI: toolshell plan FILE, and a stopped run without a terminal prints the report and exits 3", async () => {
  const { spawnSync } = await import("node:child_process");
  const cli = path.resolve("dist/cli/main.js");
  assert.ok(existsSync(cli));
  const work = mkdtempSync(path.join(tmpdir(), "toolshell-cli-approve-"));
  const { writeFileSync } = await import("node:fs");
  writeFileSync(path.join(work, "toolshell.config.json"), JSON.stringify({ mcpServers: { memory: { command: NPM_SERVERS.memory, env: { MEMORY_FILE_PATH: path.join(work, "m.jsonl") }, trust: true } } }));
  writeFileSync(path.join(work, "s.sh"), `tools memory create-entities '${entity("q")}' >/dev/null\ntools memory delete-entities entityNames='["q"]'\necho done\n`);
  const plan = spawnSync(process.execPath, [cli, "plan", "s.sh"], { cwd: work, encoding: "utf8" });
  assert.equal(plan.status, 0, plan.stderr);
  assert.deepEqual(JSON.parse(plan.stdout).calls.map((c: { risk: string }) => c.risk), ["changes", "needs_approval"]);
  const run = spawnSync(process.execPath, [cli, "run", "s.sh"], { cwd: work, encoding: "utf8", input: "" });
  assert.equal(run.status, 3);
  const report = JSON.parse(run.stderr.trim().split("\n").pop()!);
  assert.equal(report.tools.stopped.reason, "needs_approval");
  assert.equal(report.tools.stopped.before_start, true);
  assert.match(report.tools.stopped.request_id, /^apr_/);
  // The answer is given with `toolshell approve`, and the run goes through once.
  const approve = spawnSync(process.execPath, [cli, "approve", report.tools.stopped.request_id, "allow"], { cwd: work, encoding: "utf8" });
  assert.equal(approve.status, 0, approve.stderr);
  const again = spawnSync(process.execPath, [cli, "run", "s.sh"], { cwd: work, encoding: "utf8", input: "" });
  assert.equal(again.status, 0, again.stderr);
  assert.equal(again.stdout, '{"success":true,"message":"Entities deleted successfully"}\ndone\n');
});

test("CLI on a terminal: asks y / a / n / r about the stopped call; yes to a script that never started runs it at once", async () => {
  const { spawnSync } = await import("node:child_process");
  const { writeFileSync } = await import("node:fs");
  const cli = path.resolve("dist/cli/main.js");
  const work = mkdtempSync(path.join(tmpdir(), "toolshell-tty-"));
  writeFileSync(path.join(work, "toolshell.config.json"), JSON.stringify({ mcpServers: { memory: { command: NPM_SERVERS.memory, env: { MEMORY_FILE_PATH: path.join(work, "m.jsonl") }, trust: true } } }));
  writeFileSync(path.join(work, "s.sh"), `tools memory delete-entities entityNames='["q"]' && echo deleted\n`);
  // `script` (util-linux) gives the CLI a real terminal; the answer arrives once the prompt is up.
  const tty = spawnSync("script", ["-qec", `node ${cli} run s.sh`, "/dev/null"], { cwd: work, encoding: "utf8", input: "y\n", timeout: 60_000 });
  assert.equal(tty.status, 0, tty.stdout + tty.stderr);
  assert.match(tty.stdout, /Allow it\? \[y\]es once, \[a\]lways in this session, \[n\]o, \[r\]eject always:/);
  assert.match(tty.stdout, /Approved\. Running the script \(it had not started\)\.[^]*deleted\r?\n/);
  // The same on the warm host (now started by the first run), and "n" leaves it held (exit 3).
  const warm = spawnSync("script", ["-qec", `node ${cli} run s.sh`, "/dev/null"], { cwd: work, encoding: "utf8", input: "y\n", timeout: 60_000 });
  assert.equal(warm.status, 0, warm.stdout);
  assert.match(warm.stdout, /Approved\. Running the script[^]*deleted\r?\n/);
  const no = spawnSync("script", ["-qec", `node ${cli} run s.sh`, "/dev/null"], { cwd: work, encoding: "utf8", input: "n\n", timeout: 60_000 });
  assert.equal(no.status, 3, no.stdout);
  assert.match(no.stdout, /Nothing approved/);
  spawnSync(process.execPath, [cli, "daemon", "stop"], { cwd: work, encoding: "utf8" });
});

test("a predicate answering false means no need to ask, even for a tool that declares nothing", async () => {
  const t = await createToolShell({
    tools: { pay: defineTool({ description: "Pay an invoice.", inputSchema: z.object({ amount: z.number() }), needsApproval: ({ input }) => (input.amount as number) > 100, execute: () => "paid" }) },
  });
  const s = t.session();
  assert.equal((await s.bash(`tools pay amount=5`)).stdout, "paid\n");
  assert.equal((await s.bash(`tools pay amount=500`)).tools?.stopped?.why, "policy");
  await t.close();
});

test("before start, every literal call that needs approval is asked about at once; invalid ones are not", async () => {
  const s = ts.session();
  const r = await s.bash(`tools refund chargeId=a amount=1\ntools refund chargeId=b amount=2\ntools refund chargeId=c amount=bad\ntools onboard`);
  assert.equal(r.tools?.stopped?.before_start, true);
  assert.deepEqual(r.tools?.stopped?.call, { tool: "tools refund", input: { chargeId: "a", amount: 1 } });
  const also = r.tools?.stopped?.also_needs_approval ?? [];
  assert.deepEqual(also.map((a) => [a.line, a.call.tool, a.call.input]), [
    [2, "tools refund", { chargeId: "b", amount: 2 }],
    [4, "tools onboard", {}],
  ]);
  assert.equal((await s.pendingApprovals()).length, 3, "the call with invalid input raised no request");
  for (const p of await s.pendingApprovals()) await s.answer(p.id, "allow");
  const again = await s.bash(`tools refund chargeId=a amount=1\ntools refund chargeId=b amount=2\ntools onboard`);
  assert.equal(again.stdout, "refund ran\nrefund ran\nonboard ran\n", again.stderr);
});

test("a hook that replaces the input is judged on the replacement: an allow for the original does not cover it", async () => {
  const t = await createToolShell({
    tools: local(),
    hooks: { beforeToolCall: (call) => (call.tool.name === "refund" ? { action: "replace", input: { ...call.input, chargeId: "ch_other" } } : undefined) },
  });
  const s = t.session();
  const first = await s.bash(`tools refund chargeId=ch_a amount=1`);
  await s.answer(first.tools!.stopped!.request_id!, "allow");
  const r = await s.bash(`tools refund chargeId=ch_a amount=1`);
  assert.equal(r.tools?.stopped?.reason, "needs_approval");
  assert.equal(r.tools?.stopped?.before_start, undefined, "preflight saw the approved literal call");
  assert.deepEqual(r.tools?.stopped?.call?.input, { chargeId: "ch_other", amount: 1 });
  await t.close();
});

test("tools plan - reads the script from stdin", async () => {
  const r = await ts.session().bash(`echo 'tools peek' | tools plan - | jq -c '[.calls[].risk]'`);
  assert.equal(r.stdout, '["read_only"]\n', r.stderr);
});
