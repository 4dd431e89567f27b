/**
 * Nesting cannot make reading a script cost its depth times its length (docs/security.md "What
 * each limit defends", nesting; patches/README.md H33): a substitution's text is read again by a
 * parser of its own at each level, `((((…` is looked ahead at every `((`, and an array subscript
 * holding a substitution is re-read at each level when it runs. Each attack ends with the
 * engine's limit error; each has a control that nests as scripts do and answers as bash does.
 * The tests assert what was printed, never durations (timing is in bench/).
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createToolShell, type ToolShell } from "../../src/index.js";

let ts: ToolShell;
before(async () => {
  ts = await createToolShell({});
});
after(() => ts.close());

const session = () => ts.session(`nest-${Math.random()}`);
const repeat = (s: string, n: number) => s.repeat(n);

// Each control nests as deep as the engine runs (50 substitutions at run time).
for (const [name, open, close, levels] of [
  ["$( )", "$(echo ", ")", 40],
  ['"$( )"', '"$(echo ', ')"', 40],
  ["$( case … esac )", "$(case x in x) echo ", ";; esac)", 40],
  ["<( )", "$(cat <(echo ", "))", 20],
] as const) {
  test(`${name} nested through 150 KB is refused once its levels re-read four times the script; control: ${levels} levels run`, async () => {
    const n = Math.ceil(150_000 / (open.length + close.length));
    const deep = await session().bash(`echo ${repeat(open, n)}hi${repeat(close, n)}`);
    assert.equal(deep.exit_code, 2, JSON.stringify(deep));
    assert.match(deep.stderr, /Too much nested text: substitutions inside substitutions re-read more than \d+ characters/);
    const ok = await session().bash(`echo ${repeat(open, levels)}hi${repeat(close, levels)}`);
    assert.deepEqual([ok.stdout, ok.exit_code], ["hi\n", 0], ok.stderr);
  });
}

test("a short script that builds nested $( ) text and gives it to eval and bash -c gets the same refusal; control: three levels through eval", async () => {
  const s = session();
  const built = 'o=\'$(\'; c=\')\'; s="echo hi"; for i in $(seq 20000); do s="$o$s$c"; done; eval "echo $s"; echo "eval: $?"; bash -c "echo $s"; echo "bash: $?"';
  const r = await s.bash(built);
  assert.match(r.stdout, /^eval: [1-9]\nbash: 2\n$/, JSON.stringify(r));
  assert.match(r.stderr, /Too much nested text/);
  const ok = await s.bash("s='$(echo $(echo $(echo hi)))'; eval \"echo $s\"");
  assert.equal(ok.stdout, "hi\n", ok.stderr);
});

test("40,000 opening parentheses end with the parser's depth limit, not a stack overflow; control: nested subshells and (( )) arithmetic", async () => {
  const deep = await session().bash(`${repeat("(", 40_000)}echo hi${repeat(")", 40_000)}`);
  assert.equal(deep.exit_code, 2, JSON.stringify(deep));
  assert.match(deep.stderr, /Maximum parser nesting depth exceeded \(200\)/);
  assert.doesNotMatch(deep.stderr, /call stack/);
  const ok = await session().bash("( ( (echo hi) ) ); ((((1 + 2) * 3) == 9)) && echo nine");
  assert.deepEqual([ok.stdout, ok.exit_code], ["hi\nnine\n", 0], ok.stderr);
});

test("an array subscript holding substitutions nests 100 levels at run time, and the inner levels re-read at most 100,000 characters; control: three levels and 90", async () => {
  const s = session();
  const subscript = (n: number) => `echo ${repeat("${a[", n)}0${repeat("]}", n)}`;
  const depth = await s.bash(`a=(0 1 2); ${subscript(150)}`);
  assert.equal(depth.stderr, "bash: array subscript nesting limit exceeded (100)\n", JSON.stringify(depth));
  const wide = await s.bash(`a=(0 1 2); ${subscript(20_000)}`);
  assert.match(wide.stderr, /array subscripts inside array subscripts re-read more than 100000 characters/, JSON.stringify(wide));
  assert.notEqual(wide.exit_code, 0);
  // As in bash 5.2: a[0] is 1, a[1] is 2, a[2] is 0, so each three levels come back to 0.
  const ok = await s.bash(`a=(1 2 0); echo \${a[\${a[\${a[1]}]}]}; ${subscript(90)}`);
  assert.deepEqual([ok.stdout, ok.exit_code], ["1\n0\n", 0], ok.stderr);
});
