/**
 * The pre-start reading is an allow-list: whatever it cannot prove inert makes the plan incomplete,
 * and a gated call spelled out anywhere in such a script is asked before the start (nothing before
 * it runs). A call reading its input from stdin written around it (a group, function, loop, `if`,
 * the shell call's own stdin) is asked with that input. Each attacked form has a control: the inert
 * form of the same thing is planned `complete: true`, and the attacked form runs once allowed.
 * See docs/security.md ("The preflight").
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { z } from "zod";
import { always, createToolShell, defineTool, type ToolShell } from "../../src/index.js";

/** A `$` before `{` in the raw scripts below. */
const D = "$";
let ts: ToolShell;
const ran: string[] = [];

before(async () => {
  ts = await createToolShell({
    tools: {
      del: defineTool({ description: "Deletes a record.", inputSchema: z.object({ id: z.number() }), approval: always(), execute: ({ id }) => (ran.push(`del ${id}`), "1") }),
      note: defineTool({ description: "Writes a note.", inputSchema: z.object({}), hints: { destructive: false, openWorld: false }, execute: () => (ran.push("note"), "ok") }),
    },
  });
});
after(() => ts.close());

async function planOf(script: string): Promise<{ calls: Array<{ tool: string; input: unknown; risk: string; note?: string }>; complete: boolean; hidden?: string[] }> {
  const r = await ts.session().bash(`tools plan <<'PLAN'\n${script}\nPLAN`);
  assert.equal(r.exit_code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

/** [form, attack (runs `tools del --id 1` through something the reading does not model), control (the inert form of the same thing)]. */
const FORMS: Array<[string, string, string]> = [
  ["PS4 with set -x", String.raw`PS4='$(tools del --id 1)'; set -x; :`, String.raw`P='$(tools del --id 1) is text'; set -x; :`],
  ["PS4 through declare", String.raw`declare PS4='+$(tools del --id 1)'; set -x; :`, String.raw`declare Q=1; set -x; :`],
  ["PS4 through ${:=}", String.raw`unset PS4; : ${D}{PS4:='$(tools del --id 1)'}; set -x; :`, String.raw`: ${D}{Q:=1}; echo "$Q"`],
  ["PS4 through printf -v", String.raw`printf -v PS4 %s '$(tools del --id 1)'; set -x; :`, String.raw`printf -v Q %s 1; echo "$Q"`],
  ["PS4 through read", String.raw`read -r PS4 <<< '$(tools del --id 1)'; set -x; :`, String.raw`read -r Q <<< 1; echo "$Q"`],
  ["PS4 as a loop variable", String.raw`for PS4 in '$(tools del --id 1)'; do set -x; :; done`, String.raw`for Q in 1; do set -x; :; done`],
  ["compgen -C", String.raw`compgen -C 'tools del --id 1' x`, String.raw`compgen -W 'alpha beta' al`],
  ["compgen -W with code", String.raw`compgen -W '$(tools del --id 1)' x`, String.raw`compgen -W 'alpha beta' al`],
  ["hash -p FILE cat", String.raw`printf 'tools del --id 1\n' > /tmp/c; chmod +x /tmp/c; hash -p /tmp/c cat; cat /dev/null`, String.raw`hash -r; cat /dev/null`],
  ["hash -p FILE tools", String.raw`printf 'tools del --id 1\n' > /tmp/c; chmod +x /tmp/c; hash -p /tmp/c tools; tools note`, String.raw`hash -r; tools note`],
  ["[[ -v $x ]] with a subscript", String.raw`x='a[$(tools del --id 1)]'; [[ -v $x ]]`, String.raw`x=a; [[ -v $x ]]`],
  ["test -v with a subscript", String.raw`x='a[$(tools del --id 1)]'; test -v "$x"`, String.raw`x=a; test -v "$x"`],
  ["a subscript from a variable in $(( ))", String.raw`i='$(tools del --id 1)'; echo $(( a[$i] ))`, String.raw`a=(5 6); i=1; echo $(( a[$i] ))`],
  ["awk getline from a command", String.raw`awk 'BEGIN { "tools del --id 1" | getline x; print x }'`, String.raw`awk 'BEGIN { x = 1 || 0; print x }'`],
  ["awk system()", String.raw`awk 'BEGIN { system("tools del --id 1") }'`, String.raw`awk 'BEGIN { print "tools del --id 1" }'`],
  ["trap", String.raw`trap 'tools del --id 1' EXIT; :`, String.raw`trap - EXIT; :`],
  ["eval", String.raw`eval 'tools del --id 1'`, String.raw`echo 'tools del --id 1'`],
  ["source", String.raw`printf 'tools del --id 1\n' > s.sh; . ./s.sh`, String.raw`printf 'tools del --id 1\n' > s.sh; cat s.sh`],
  ["sh -c", String.raw`sh -c 'tools del --id 1'`, String.raw`echo 'tools del --id 1' > t.txt`],
  ["a here-document piped to bash", "bash <<'E'\ntools del --id 1\nE", "cat <<'E'\ntools del --id 1\nE"],
  ["alias", "shopt -s expand_aliases; alias x='tools del --id 1'\nx", "unalias -a; echo x"],
  ["builtin eval", String.raw`builtin eval 'tools del --id 1'`, String.raw`builtin echo 'tools del --id 1'`],
  ["command_not_found_handle", "command_not_found_handle() { tools del --id 1; }; nosuchcommand", "handle() { tools note; }; handle"],
  ["PROMPT_COMMAND", String.raw`PROMPT_COMMAND='tools del --id 1'; :`, String.raw`PROMPT='tools del --id 1'; :`],
  ["BASH_CMDS", String.raw`printf 'tools del --id 1\n' > /tmp/c; chmod +x /tmp/c; BASH_CMDS[cat]=/tmp/c; cat /dev/null`, String.raw`declare -A M; M[cat]=/tmp/c; cat /dev/null`],
  ["mapfile -C", String.raw`mapfile -C 'tools del --id 1' -c 1 a <<< x`, String.raw`mapfile -t a <<< x; echo "${D}{a[0]}"`],
  ["${x@P}", String.raw`x='$(tools del --id 1)'; echo "${D}{x@P}"`, String.raw`x='$(tools del --id 1)'; echo "${D}{x@Q}"`],
  ["exec", String.raw`exec tools del --id 1`, String.raw`exec 3>/dev/null; echo hi`],
  ["a command the engine does not know", String.raw`curl -s 'http://127.0.0.1/?tools del --id 1'`, String.raw`echo 'http://127.0.0.1/?tools del --id 1'`],
];

test("allow-list: every form the reading does not model makes the plan incomplete and lists the call it spells; control: the inert form is complete", async () => {
  for (const [form, attack, control] of FORMS) {
    const plan = await planOf(attack);
    assert.equal(plan.complete, false, `${form}: ${JSON.stringify(plan)}`);
    assert.ok(plan.hidden?.length, `${form}: says why`);
    assert.ok(
      plan.calls.some((c) => c.tool === "tools del" && JSON.stringify(c.input) === '{"id":1}' && c.risk === "needs_approval"),
      `${form}: lists the call it spells: ${JSON.stringify(plan.calls)}`,
    );
    const ok = await planOf(control);
    assert.equal(ok.complete, true, `${form} (control): ${JSON.stringify(ok)}`);
  }
});

test("a subscript the reading parses (a quoted [[ -v 'a[…]' ]]) is read: the plan is complete and lists the call", async () => {
  for (const body of [String.raw`[[ -v 'a[$(tools del --id 1)]' ]]`]) {
    const plan = await planOf(body);
    assert.equal(plan.complete, true, `${body}: ${JSON.stringify(plan)}`);
    assert.deepEqual(plan.calls.map((c) => [c.tool, c.input, c.risk]), [["tools del", { id: 1 }, "needs_approval"]], body);
  }
  const control = await planOf(String.raw`[[ -v 'a[1]' ]]`);
  assert.deepEqual([control.complete, control.calls], [true, []]);
});

test("allow-list: such a script stops before it starts (nothing before the gated call runs); control: the inert form runs", async () => {
  for (const [form, attack, control] of FORMS) {
    ran.length = 0;
    const r = await ts.session().bash(`tools note >/dev/null\n${attack}`);
    assert.equal(r.tools?.stopped?.before_start, true, `${form}: asked before the start (${r.stderr})`);
    const asked = [r.tools!.stopped!.call, ...((r.tools!.stopped as { also_needs_approval?: Array<{ call: unknown }> }).also_needs_approval ?? []).map((o) => o.call)];
    assert.ok(asked.some((c) => JSON.stringify(c) === JSON.stringify({ tool: "tools del", input: { id: 1 } })), `${form}: ${JSON.stringify(asked)}`);
    assert.deepEqual(ran, [], `${form}: the earlier call did not run`);
    const c = await ts.session().bash(control);
    assert.equal(c.tools?.stopped, undefined, `${form} (control) runs: ${c.stderr}`);
  }
});

/**
 * A variable name with a subscript given to a builtin that takes names: the subscript is evaluated
 * like the one of `a[x]=1`, so a variable in it must be known inert before the run.
 * [form, attack (x holds code), control (x holds a number)].
 */
const X = String.raw`x='b[$(tools del --id 1)]'; `;
const NAME_FORMS: Array<[string, string, string]> = [
  ["declare NAME[x]=", X + `declare 'a[x]=1'`, `x=1; declare 'a[x]=1'`],
  ["declare NAME[x]", X + `declare 'a[x]'`, `x=1; declare 'a[x]'`],
  ["typeset", X + `typeset 'a[x]=1'`, `x=1; typeset 'a[x]=1'`],
  ["readonly", X + `readonly 'a[x]=1'`, `x=1; readonly 'a[x]=1'`],
  ["export", X + `export 'a[x]=1'`, `x=1; export 'a[x]=1'`],
  ["local in a function", X + `f() { local 'a[x]=1'; }; f`, `x=1; f() { local 'a[x]=1'; }; f`],
  ["printf -v", X + `printf -v 'a[x]' %s 1`, `x=1; printf -v 'a[x]' %s 1`],
  ["unset", X + `unset 'a[x]'`, `x=1; unset 'a[x]'`],
  ["read", X + `read -r 'a[x]' <<< 1`, `x=1; read -r 'a[x]' <<< 1`],
  ["read -a", X + `read -a 'a[x]' <<< 1`, `x=1; read -a q <<< 1`],
  ["getopts", X + `getopts ab 'a[x]'`, `x=1; getopts ab 'a[x]'`],
  ["wait -p", X + `wait -p 'a[x]'`, `x=1; wait -p 'a[x]'`],
  ["mapfile", X + `mapfile -t 'a[x]' <<< 1`, `x=1; mapfile -t q <<< 1`],
  ["a subscript naming another variable", `y='$(tools del --id 1)'; x='b[y]'; declare "a[x]=1"`, `y=2; x=1; declare "a[x]=1"`],
];

test("a name with a subscript given to a name-taking builtin evaluates it: the plan is incomplete and lists the call; control: a known number is complete", async () => {
  for (const [form, attack, control] of NAME_FORMS) {
    const plan = await planOf(attack);
    assert.equal(plan.complete, false, `${form}: ${JSON.stringify(plan)}`);
    assert.ok(plan.hidden?.some((h) => / x\b|\by\b/.test(h)), `${form}: says why: ${JSON.stringify(plan.hidden)}`);
    assert.ok(plan.calls.some((c) => c.tool === "tools del" && JSON.stringify(c.input) === '{"id":1}'), `${form}: lists the call it spells: ${JSON.stringify(plan.calls)}`);
    const ok = await planOf(control);
    assert.equal(ok.complete, true, `${form} (control): ${JSON.stringify(ok)}`);
  }
  // The subscript's variable comes from a decoded text: nothing to list, still not proven inert.
  const decoded = await planOf(`x=$(echo YlskKHRvb2xzIGRlbCAtLWlkIDEpXQ== | base64 -d); declare 'a[x]=1'`);
  assert.equal(decoded.complete, false, JSON.stringify(decoded));
  // The assignment form the others now share its rule with.
  assert.equal((await planOf(X + `a[x]=1`)).complete, false);
  // A `read -p` prompt or `mapfile -d` delimiter is not a name.
  assert.equal((await planOf(`read -r -p '[y/n] ' q <<< y; echo "$q"`)).complete, true);
});

test("a name with a subscript: the script stops before it starts (the earlier call does not run); control: the inert form runs", async () => {
  for (const [form, attack, control] of NAME_FORMS) {
    ran.length = 0;
    const r = await ts.session().bash(`tools note >/dev/null\n${attack}`);
    assert.equal(r.tools?.stopped?.before_start, true, `${form}: asked before the start (${r.stderr})`);
    assert.deepEqual(ran, [], `${form}: the earlier call did not run`);
    const c = await ts.session().bash(`tools note >/dev/null\n${control}`);
    assert.equal(c.tools?.stopped, undefined, `${form} (control) runs: ${c.stderr}`);
    assert.deepEqual(ran, ["note"], `${form} (control)`);
  }
});

/** Forms the engine really runs: once the person allows the call, the same script runs it. */
const RUN_BY_ENGINE = ["PS4 with set -x", "compgen -C", "hash -p FILE cat", "[[ -v $x ]] with a subscript", "awk getline from a command", "trap", "eval", "alias", "exec"];

test("control: once allowed, the attacked forms the engine runs make the call", async () => {
  for (const form of RUN_BY_ENGINE) {
    const attack = FORMS.find((f) => f[0] === form)![1];
    const s = ts.session();
    ran.length = 0;
    const first = await s.bash(attack);
    assert.equal(first.tools?.stopped?.before_start, true, form);
    await s.answer(first.tools!.stopped!.request_id!, "allow");
    const second = await s.bash(attack);
    assert.deepEqual(ran, ["del 1"], `${form}: ${second.stderr}`);
  }
});

/** A call given no input words reads stdin written around it. */
const STDIN: Array<[string, string]> = [
  ["a group", `{ tools del; } <<< '{"id":1}'`],
  ["a function", `f() { tools del; }\nf <<'E'\n{"id":1}\nE`],
  ["a loop", `while true; do tools del; break; done <<< '{"id":1}'`],
  ["an if", `if true; then tools del; fi <<< '{"id":1}'`],
  ["a subshell", `( tools del ) <<< '{"id":1}'`],
  ["its own here-string", `tools del <<< '{"id":1}'`],
];

test("a call reading stdin written around it is asked before the start with that input; control: allowed, it runs with it", async () => {
  for (const [form, body] of STDIN) {
    const s = ts.session();
    ran.length = 0;
    const r = await s.bash(`tools note >/dev/null\n${body}`);
    assert.equal(r.tools?.stopped?.before_start, true, `${form}: ${r.stderr}`);
    assert.deepEqual(r.tools?.stopped?.call, { tool: "tools del", input: { id: 1 } }, form);
    assert.deepEqual(ran, [], `${form}: nothing ran`);
    await s.answer(r.tools!.stopped!.request_id!, "allow");
    const again = await s.bash(`tools note >/dev/null\n${body}`);
    assert.deepEqual(ran, ["note", "del 1"], `${form}: ${again.stderr}`);
  }
});

test("a call at the top reads the shell call's own stdin: asked before the start with it; control: allowed, it runs", async () => {
  const s = ts.session();
  ran.length = 0;
  const r = await s.bash("tools note '{}' >/dev/null\ntools del", { stdin: '{"id":1}' });
  assert.equal(r.tools?.stopped?.before_start, true, r.stderr);
  assert.deepEqual(r.tools?.stopped?.call, { tool: "tools del", input: { id: 1 } });
  assert.deepEqual(ran, []);
  await s.answer(r.tools!.stopped!.request_id!, "allow");
  await s.bash("tools note '{}' >/dev/null\ntools del", { stdin: '{"id":1}' });
  assert.deepEqual(ran, ["note", "del 1"]);
});

test("stdin the reading cannot see around a call makes the plan incomplete (checked at run time); control: a pipe straight into the call stays complete", async () => {
  const unseen: Record<string, string> = {
    "a file around a group": `echo '{"id":1}' > in.json; { tools del; } < in.json`,
    "a pipe into a loop": `echo '{"id":1}' | while true; do tools del; break; done`,
    "a function called with different stdin": `f() { tools del; }\nf <<< '{"id":1}'\nf <<< '{"id":2}'`,
    "text read in part first": `{ read -r x; tools del; } <<< $'skip\\n{"id":1}'`,
    "the call's own redirection from a file": `echo '{"id":1}' > in.json; tools del < in.json`,
    "the call's own here-string built at run time": `x='{"id":1}'; tools del <<< "$x"`,
    "the call's own file through a descriptor": `exec 3< /dev/null; echo '{"id":1}' > in.json; tools del 0< in.json`,
  };
  for (const [form, body] of Object.entries(unseen)) {
    const plan = await planOf(body);
    assert.equal(plan.complete, false, `${form}: ${JSON.stringify(plan)}`);
    assert.ok(plan.calls.some((c) => c.tool === "tools del" && c.risk === "checked_at_run_time"), `${form}: ${JSON.stringify(plan.calls)}`);
    ran.length = 0;
    const r = await ts.session().bash(body);
    assert.equal(r.tools?.stopped?.reason, "needs_approval", `${form}: still asked at run time (${r.stderr})`);
    assert.ok(!ran.includes("del 1") && !ran.includes("del 2"), form);
  }
  // Control: a pipe straight into a call no input makes gated stays complete.
  const control = await planOf(`echo '{}' | tools note`);
  assert.equal(control.complete, true, JSON.stringify(control));
  assert.deepEqual(control.calls.map((c) => [c.tool, c.risk]), [["tools note", "checked_at_run_time"]]);
});

/** [form, a gated call whose input the reading cannot prove, the same form into a call no input makes gated]. */
const UNPROVEN: Array<[string, string, string]> = [
  ["a pipe", `echo '{"id":1}' | tools del`, `echo '{}' | tools note`],
  ["a pipe into '-'", `printf '{"id":1}' | tools del -`, `printf '{}' | tools note -`],
  ["a pipe through a group", `echo '{"id":1}' | { tools del; }`, `echo '{}' | { tools note; }`],
  ["$(…) as an input word", `tools del --id "$(echo 1)"`, `tools note "$(echo '{}')"`],
  ["$var as an input word", `x=1; tools del --id "$x"`, `x='{}'; tools note "$x"`],
  ["${x:-…} as an input word", `tools del --id "${D}{x:-1}"`, `tools note "${D}{x:-{}}"`],
  ["arithmetic as an input word", `tools del --id $((0 + 1))`, `tools note "$(printf '{}')"`],
  ["process substitution as stdin", `tools del < <(echo '{"id":1}')`, `tools note < <(echo '{}')`],
  ["process substitution as a word", `tools del --id "$(cat <(echo 1))"`, `tools note "$(cat <(echo '{}'))"`],
  ["a here-document with expansion", 'x=1; tools del <<E\n{"id":$x}\nE', "x='{}'; tools note <<E\n$x\nE"],
  ["a here-string with expansion", `x=1; tools del <<< '{"id":'"$x"'}'`, `x='{}'; tools note <<< "$x"`],
  ["xargs", `echo 1 | xargs tools del --id`, `echo '{}' | tools note`],
];

/** Forms an older rule makes incomplete for any call: xargs, stdin around a call or from a redirection built at run time. */
const ALWAYS_INCOMPLETE = new Set(["xargs", "a pipe through a group", "process substitution as stdin", "a here-document with expansion", "a here-string with expansion"]);

test("a gated call whose input the reading cannot prove makes the plan incomplete, naming the call, and is asked when reached; control: the same form into an ungated call is complete and runs", async () => {
  for (const [form, attack, control] of UNPROVEN) {
    const body = attack.replace(/\\n/g, "\n");
    const plan = await planOf(body);
    assert.equal(plan.complete, false, `${form}: ${JSON.stringify(plan)}`);
    assert.ok(plan.hidden?.some((h) => /tools del|xargs/.test(h)), `${form}: the reason names the call: ${JSON.stringify(plan.hidden)}`);
    ran.length = 0;
    const r = await ts.session().bash(body);
    assert.equal(r.tools?.stopped?.reason, "needs_approval", `${form}: asked when reached (${r.stderr})`);
    assert.deepEqual(ran, [], form);
    const inert = control.replace(/\\n/g, "\n");
    // xargs, and stdin around a call, make any plan incomplete (the rules above): the control runs.
    if (!ALWAYS_INCOMPLETE.has(form)) {
      const ok = await planOf(inert);
      assert.equal(ok.complete, true, `${form} (control): ${JSON.stringify(ok)}`);
    }
    ran.length = 0;
    const done = await ts.session().bash(inert);
    assert.equal(done.exit_code, 0, `${form} (control): ${done.stderr}`);
    assert.deepEqual(ran, ["note"], `${form} (control)`);
  }
  // Control: once an answer covers every input of the tool, its piped call is complete again.
  const s = ts.session();
  const first = await s.bash(`echo '{"id":7}' | tools del`);
  await s.answer(first.tools!.stopped!.request_id!, "allow_always");
  const plan = JSON.parse((await s.bash(`tools plan <<'PLAN'\necho '{"id":8}' | tools del\nPLAN`)).stdout);
  assert.equal(plan.complete, true, JSON.stringify(plan));
});

test("--help given to a tool that takes a help field is its input, not its help page: the call is planned and asked before the start; control: a tool without one shows its help and nothing is asked", async () => {
  const wiped: unknown[] = [];
  const t2 = await createToolShell({
    tools: {
      wipe: defineTool({ description: "Wipes.", inputSchema: z.object({ target: z.string(), help: z.boolean().optional() }), approval: always(), execute: (x) => (wiped.push(x), "wiped") }),
      note: defineTool({ description: "Writes a note.", inputSchema: z.object({}), hints: { destructive: false, openWorld: false }, execute: () => (ran.push("note-2"), "ok") }),
    },
  });
  try {
    const s = t2.session();
    const plan = JSON.parse((await s.bash("tools plan <<'P'\ntools note\ntools wipe target=all --help\nP")).stdout);
    assert.deepEqual(plan.calls.map((c: { tool: string; risk: string }) => [c.tool, c.risk]), [["tools note", "changes"], ["tools wipe", "needs_approval"]]);
    const r = await s.bash("tools note\ntools wipe target=all --help");
    assert.equal(r.tools?.stopped?.before_start, true, JSON.stringify(r.tools));
    assert.ok(!ran.includes("note-2"), "nothing ran before the start");
    assert.deepEqual(wiped, []);
    // Control: `tools del --help` is del's help page (del has no help field): no call, nothing asked.
    const help = JSON.parse((await ts.session().bash("tools plan <<'P'\ntools del --id 1 --help\nP")).stdout);
    assert.deepEqual(help, { calls: [], complete: true });
  } finally {
    await t2.close();
  }
});

test("a one-off allow covers one call: a second copy of it in a script makes the plan incomplete, saying the copy asks when reached; control: one copy is planned approved and runs", async () => {
  const s = ts.session();
  const first = await s.bash("tools del --id 77");
  await s.answer(first.tools!.stopped!.request_id!, "allow");
  const twice = JSON.parse((await s.bash("tools plan <<'P'\ntools del --id 77\ntools del --id 77\nP")).stdout);
  assert.equal(twice.complete, false);
  assert.match(twice.hidden.join("\n"), /tools del \(line 2\): a one-off answer covers an earlier copy of this call/);
  const once = JSON.parse((await s.bash("tools plan <<'P'\ntools del --id 77\nP")).stdout);
  assert.equal(once.complete, true);
  assert.equal(once.calls[0].approved, true);
  const r = await s.bash("tools del --id 77");
  assert.equal(r.exit_code, 0, r.stderr);
});

test("an unquoted here-document whose text holds [ ] * ? (no pathname expansion there) is the call's planned input: asked before the start; control: a $ in it is text built at run time", async () => {
  const tagged: unknown[] = [];
  const t2 = await createToolShell({
    tools: {
      tag: defineTool({ description: "Tags.", inputSchema: z.object({ labels: z.array(z.string()) }), approval: always(), execute: (x) => (tagged.push(x), "tagged") }),
      note: defineTool({ description: "Writes a note.", inputSchema: z.object({}), hints: { destructive: false, openWorld: false }, execute: () => (tagged.push("note"), "ok") }),
    },
  });
  try {
    const s = t2.session();
    const script = 'tools note\ntools tag <<EOF\n{"labels":["[a]","*","b?"]}\nEOF\n';
    const plan = JSON.parse((await s.bash(`tools plan <<'P'\n${script}P`)).stdout);
    assert.equal(plan.complete, true, JSON.stringify(plan));
    assert.deepEqual(plan.calls[1].input, { labels: ["[a]", "*", "b?"] });
    const r = await s.bash(script);
    assert.equal(r.tools?.stopped?.before_start, true, JSON.stringify(r.tools));
    assert.deepEqual(tagged, [], "nothing ran before the start");
    const built = JSON.parse((await s.bash(`tools plan <<'P'\ntools tag <<EOF\n{"labels":["$N"]}\nEOF\nP`)).stdout);
    assert.equal(built.complete, false);
  } finally {
    await t2.close();
  }
});
