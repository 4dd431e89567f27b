/**
 * One script cannot freeze the process from inside a command either (docs/security.md "What each
 * limit defends", event-loop turns): awk gives the event loop a turn every 20 ms of work, as the
 * shell does between statements, and stops when its shell call has ended (its time limit); sed
 * does the same between cycles, and a single cycle that loops without end stops after its bound.
 * One command that computes without a break inside itself (a regular expression over a long
 * input, a yq loop) is stopped once it has held the event loop for the engine's bound (1 s),
 * with its shell call, even where the command catches the engine's error.
 * Each attack has a control: the same command with a loop that ends answers as bash's does.
 * These tests assert the order of events and what was printed, never durations (timing is in bench/).
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { z } from "zod";
import { createToolShell, defineTool, type ToolShell } from "../../src/index.js";

let ts: ToolShell;
/** The controls run under the default time limit: how fast a loop that ends runs is the machine's, not the test's. */
let roomy: ToolShell;
before(async () => {
  ts = await createToolShell({ timeoutMs: 1500 });
  roomy = await createToolShell({});
});
after(() => Promise.all([ts.close(), roomy.close()]));

/**
 * Runs `script` in one session while another session runs `echo hi` 100 ms later: what each
 * returned, and whether the other session's call and a 50 ms timer ended before the script did.
 */
async function beside(script: string) {
  const order: string[] = [];
  const timer = setTimeout(() => order.push("timer"), 50);
  const other = (async () => {
    await new Promise((r) => setTimeout(r, 100));
    const r = await ts.session(`other-${Math.random()}`).bash("echo hi");
    order.push("other");
    return r;
  })();
  const r = await ts.session(`busy-${Math.random()}`).bash(script);
  order.push("script");
  clearTimeout(timer);
  return { r, order, other: await other };
}

test("an awk loop that runs past the time limit: other sessions and timers run meanwhile, and awk stops at the limit; control: a loop that ends prints its result", async () => {
  const { r, order, other } = await beside("awk 'BEGIN{for(i=0;i<1000000000;i++)x++; print x}'; echo after-awk");
  assert.equal(other.stdout, "hi\n");
  assert.deepEqual(order, ["timer", "other", "script"], "the timer and the other session's call ended while awk ran");
  assert.match(r.stderr, /awk: stopped: its shell call ended/);
  assert.match(r.stderr, /ran past its time limit of 1500 ms/);
  assert.notEqual(r.exit_code, 0);
  // The script halts at the statement after awk: nothing after the limit runs.
  assert.doesNotMatch(r.stdout, /after-awk/);
  const ok = await roomy.session().bash("awk 'BEGIN{for(i=0;i<10000;i++)x++; print x}'");
  assert.deepEqual([ok.stdout, ok.exit_code], ["10000\n", 0], ok.stderr);
});

test("an awk gsub loop over a growing string (work inside statements): the same turns and the same stop", async () => {
  const { r, order } = await beside(`awk 'BEGIN{for(i=0;i<100000;i++){s=s "${"a".repeat(40)}"; gsub(/a/,"a",s)}}'`);
  assert.deepEqual(order, ["timer", "other", "script"]);
  assert.match(r.stderr, /awk: stopped: its shell call ended/);
});

test("a sed cycle that branches forever stops after its bound with a clear error, and other sessions run afterwards; control: a branch loop that ends gives bash's output", async () => {
  const { r, other } = await beside("echo | sed ':a;s/^/xxxxxxxxxx/;ba' | wc -c; echo after-sed");
  assert.match(r.stderr, /sed: one cycle over a line ran 1000 ms of work without ending/);
  assert.match(r.stdout, /after-sed/);
  assert.equal(other.stdout, "hi\n");
  const ok = await roomy.session().bash("echo xxxx | sed ':a;s/x/y/;ta'");
  assert.deepEqual([ok.stdout, ok.exit_code], ["yyyy\n", 0]);
});

test("sed over many lines gives the event loop turns between cycles", async () => {
  const { r, order } = await beside("seq 1 90000 > n.txt; cat n.txt n.txt n.txt n.txt n.txt n.txt n.txt n.txt | sed 's/1/a/;s/2/b/;s/3/c/;s/4/d/' | tail -1");
  assert.deepEqual(order.slice(0, 2), ["timer", "other"], `${JSON.stringify(order)} ${r.stderr}`);
});

test("a command that holds the event loop past the time limit (a long match): the script halts at the next statement, so no call after it runs; control: within the limit it goes on", async () => {
  const host: string[] = [];
  const t2 = await createToolShell({
    timeoutMs: 300,
    tools: { record: defineTool({ description: "Records.", inputSchema: z.object({ note: z.string() }), hints: { destructive: false, openWorld: false }, execute: ({ note }) => (host.push(note), "ok") }) },
  });
  try {
    // RE2 is linear, but this counted repetition costs about half a millisecond per character here.
    const r = await t2.session().bash("seq 2000 | tr -d '\\n' > l; grep -cE '(([0-9]x?){300}){3}y' l; tools record note=after-limit; echo still-here");
    // Stopped by the time limit, by the engine's bound on holding the event loop, or (on a very
    // slow machine) by the engine's own deadline after them.
    assert.match(r.stderr, /ran past its time limit of 300 ms|computed for 1000 ms without a break|execution exceeded execution deadline/);
    assert.doesNotMatch(r.stdout, /still-here/);
    assert.deepEqual(host, [], "the call after the limit was not made");
    const ok = await t2.session().bash("tools record note=in-time; echo goes-on");
    assert.equal(ok.stdout, "ok\ngoes-on\n");
  } finally {
    await t2.close();
  }
});

/** Forms of one command computing without a break: each holds the event loop for seconds unbounded. */
const HELD_FORMS: [string, string, string][] = [
  ["grep, a counted repetition over a long line", "seq 4000 | tr -d '\\n' > l; grep -cE '(([0-9]x?){300}){3}y' l", "printf 123456789y > l; grep -cE '(([0-9]x?){3}){3}y' l"],
  ["[[ =~ ]] (which reads a failed match as no match)", "seq 4000 | tr -d '\\n' > l; s=$(cat l); [[ $s =~ (([0-9]x?){300}){3}y ]]; echo matched=$?", "s=12x3; [[ $s =~ ([0-9]x?){3} ]]; echo matched=$?"],
  ["an awk pattern (awk reads a failed match as no match)", "seq 4000 | tr -d '\\n' > l; awk '/(([0-9]x?){300}){3}y/{print \"m\"} END{print \"end\"}' l", "echo 1x2 | awk '/([0-9]x?){2}/{print \"m\"} END{print \"end\"}'"],
  ["a sed substitution (sed reads a failed match as no match)", "seq 4000 | tr -d '\\n' > l; sed -E 's/(([0-9]x?){300}){3}y/Z/' l | wc -c", "echo 12y | sed -E 's/([0-9]x?){2}y/Z/'"],
  ["sed s///g over a multi-megabyte line", "printf a > a; for i in $(seq 22); do cat a a > b; mv b a; done; sed 's/a/b/g' a | wc -c", "printf aaa | sed 's/a/b/g'"],
  ["a yq reduce loop", "echo '{}' | yq 'reduce range(0;60000) as $i ([]; . + [$i]) | length'", "echo '{}' | yq 'reduce range(0;100) as $i ([]; . + [$i]) | length'"],
];
const CONTROL_OUT = ["1\n", "matched=0\n", "m\nend\n", "Z\n", "bbb", "100\n"];

for (const [i, [name, attack, control]] of HELD_FORMS.entries()) {
  test(`one command held the event loop (${name}): stopped at the engine's bound with its shell call, nothing after it runs, another session runs after; control: a small input answers as bash`, async () => {
    const t3 = await createToolShell({ timeoutMs: 120_000 });
    after(() => t3.close());
    const r = await t3.session().bash(`${attack}; echo after-it`);
    assert.match(r.stderr, /computed for 1000 ms without a break, holding every other session; the script was stopped/, r.stderr);
    assert.doesNotMatch(r.stdout, /after-it/);
    assert.notEqual(r.exit_code, 0);
    const other = await t3.session().bash("echo hi");
    assert.equal(other.stdout, "hi\n");
    const ok = await t3.session().bash(control);
    assert.deepEqual([ok.stdout, ok.exit_code], [CONTROL_OUT[i], 0], ok.stderr);
  });
}

test("html-to-markdown refuses HTML nested past 1,000 elements before parsing it (its parser's work grows with the square of the nesting); control: a document nested 900 deep and an ordinary one convert", async () => {
  const s = ts.session(`html-${Math.random()}`);
  const deep = await s.bash(`x=$(printf '<b>%.0s' $(seq 4000)); echo "$x" | html-to-markdown`);
  assert.equal(deep.stderr, "html-to-markdown: conversion error: the HTML is nested deeper than 1000 elements\n", JSON.stringify(deep));
  const shallow = await s.bash(`x=$(printf '<i>%.0s' $(seq 900)); echo "\${x}deep" | html-to-markdown`);
  assert.equal(shallow.exit_code, 0, shallow.stderr);
  assert.match(shallow.stdout, /deep/);
  const doc = await s.bash(`echo '<h1>Hi</h1><p>a <b>b</b><br/>c<img src="x.png"></p>' | html-to-markdown`);
  assert.equal(doc.stdout, "# Hi\n\na **b**  \nc![](x.png)\n");
});
