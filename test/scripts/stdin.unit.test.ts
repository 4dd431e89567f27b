/**
 * A saved script's input arrives on stdin as JSON (docs/shell.md): once the script has read it
 * (`n=$(jq -r .name)`), a later `tools` call with no arguments must not see it again, since the
 * shell's stdin is one stream commands use up, as in bash (patches/README.md, H20).
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { defineTool } from "../../src/index.js";
import { openHost, type Host } from "../../src/server/index.js";

const seen: unknown[] = [];
const tools = {
  graph: defineTool({
    description: "Reads the whole graph; takes no input.",
    hints: { readOnly: true, destructive: false, openWorld: false },
    inputSchema: { type: "object", properties: {}, additionalProperties: false },
    execute: (input) => {
      seen.push(input);
      return { entities: 2 };
    },
  }),
  look: defineTool({
    description: "Looks one id up.",
    hints: { readOnly: true, destructive: false, openWorld: false },
    inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"], additionalProperties: false },
    execute: ({ id }) => ({ id }),
  }),
};

let host: Host;
before(async () => {
  host = await openHost({ store: ":memory:", tools, config: { manageScripts: true } });
});
after(async () => {
  await host.close();
});

test("a saved script that read its input with $(jq …) makes a later no-argument tools call with empty stdin", async () => {
  const s = host.session();
  const saved = await s.bash(`cat <<'EOF' | tools scripts save graph-for --description 'Reads the graph for a name.' --input-schema '{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}'
n=$(jq -r .name)
echo "name=$n"
tools graph | jq -c .
echo "rest=[$(cat)]"
EOF`);
  assert.equal(saved.exit_code, 0, saved.stderr);
  seen.length = 0;
  const r = await s.bash("tools scripts graph-for name=ann");
  assert.equal(r.exit_code, 0, r.stderr);
  assert.equal(r.stdout, 'name=ann\n{"entities":2}\nrest=[]\n');
  assert.deepEqual(seen, [{}]);
});

test("in a piped group, $(cat), read and head use stdin up before a later tools call", async () => {
  const s = host.session();
  const cases: Array<[string, string]> = [
    [`echo '{"name":"bo"}' | { x=$(cat); echo "x=$x"; tools graph | jq -c .; echo "rest=[$(cat)]"; }`, 'x={"name":"bo"}\n{"entities":2}\nrest=[]\n'],
    [`printf '{"a":1}\\n{"b":2}\\n' | { read first; x=$(cat); tools graph | jq -c .; echo "first=$first x=$x"; }`, '{"entities":2}\nfirst={"a":1} x={"b":2}\n'],
    [`printf '{"a":1}\\n{"b":2}\\n' | { head -n1; tools graph | jq -c .; }`, '{"a":1}\n{"entities":2}\n'],
  ];
  for (const [script, stdout] of cases) {
    seen.length = 0;
    const r = await s.bash(script);
    assert.equal(r.exit_code, 0, `${script}: ${r.stderr}`);
    assert.equal(r.stdout, stdout, script);
    assert.deepEqual(seen, [{}], script);
  }
});

test("a tools call given its input as arguments leaves stdin to the commands after it", async () => {
  const s = host.session();
  const r = await s.bash(`printf 'kept\\n' | { tools look id=a | jq -c .; tools look '{"id":"b"}' | jq -c .; cat; }`);
  assert.equal(r.exit_code, 0, r.stderr);
  assert.equal(r.stdout, '{"id":"a"}\n{"id":"b"}\nkept\n');
});
