/**
 * A session's engine between runs (docs/shell.md, "Idle sessions"): the interpreter is made per run
 * (variables never persist, files do), the /bin and /usr/bin stubs are shared read-only until a
 * session writes there, and then only that session sees its file; initial files are written.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import v8 from "node:v8";
import vm from "node:vm";
import { createEngine } from "../../src/shell/index.js";
import { defaultEngineCommands } from "../../src/shell/defaults.js";

test("files persist across runs, variables and functions do not", async () => {
  const e = createEngine({ commands: defaultEngineCommands() });
  await e.exec("x=1; f() { echo f; }; echo kept > a.txt");
  const r = await e.exec('echo "x=[$x]"; type f >/dev/null 2>&1 || echo "no f"; cat a.txt');
  assert.equal(r.stdout, "x=[]\nno f\nkept\n");
});

test("a script a session puts in /usr/bin is its own; the stubs stay for every other session", async () => {
  const a = createEngine({ commands: defaultEngineCommands() });
  const b = createEngine({ commands: defaultEngineCommands() });
  const put = await a.exec("printf '#!/bin/bash\\necho mine\\n' > /usr/bin/myx; chmod +x /usr/bin/myx; myx; which jq tools");
  assert.equal(put.stdout, "mine\n/usr/bin/jq\n/usr/bin/tools\n", put.stderr);
  const other = await b.exec("ls /usr/bin/myx; which jq tools");
  assert.equal(other.stdout, "/usr/bin/jq\n/usr/bin/tools\n");
  assert.match(other.stderr, /No such file/);
  assert.equal((await a.exec("myx")).stdout, "mine\n", "the session keeps its own file");
});

test("initial files are written (in memory and in a mounted workspace)", async () => {
  const e = createEngine({ files: { "notes/a.txt": "hello", "/etc/x.conf": "k=v" } });
  const r = await e.exec("cat notes/a.txt; echo; cat /etc/x.conf");
  assert.equal(r.stdout, "hello\nk=v");
});

test("an idle engine holds no interpreter: 200 engines that each ran once add little heap", async () => {
  // Heap after full collections, not time: with the interpreter kept between runs an idle engine
  // held about 119 KiB of heap (its command table, state and parser); without it, about 10 KiB.
  v8.setFlagsFromString("--expose-gc");
  const gc = vm.runInNewContext("gc") as () => void;
  const settle = () => {
    for (let i = 0; i < 3; i++) gc();
    return process.memoryUsage().heapUsed;
  };
  await createEngine({ commands: defaultEngineCommands() }).exec("true");
  const keep: unknown[] = [];
  const before = settle();
  for (let i = 0; i < 200; i++) {
    const e = createEngine({ commands: defaultEngineCommands() });
    assert.equal((await e.exec("x=1; echo $x > f.txt")).exitCode, 0);
    keep.push(e);
  }
  const perEngine = (settle() - before) / 1024 / keep.length;
  assert.ok(perEngine < 40, `an idle engine holds ${perEngine.toFixed(1)} KiB of heap (expected under 40)`);
});

test("an engine limit's error tells what a toolshell user can do, not just-bash's own API setting; control: the limit still stops the script", async () => {
  const e = createEngine({});
  const r = await e.exec("f(){ f; }; f; echo after");
  assert.match(r.stderr, /maximum recursion depth \(\d+\) exceeded; this is a fixed limit of toolshell's shell \(docs\/security\.md "What each limit defends"\)/);
  assert.doesNotMatch(r.stderr, /executionLimits/);
});
