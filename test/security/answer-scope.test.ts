/**
 * Answer scope: what a person's answer covers is exactly what they were shown.
 * Each attack has a control that shows the attacked thing works when allowed.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { showInput } from "../../src/policy/index.js";

test("showInput: invisible and bidirectional characters are escaped and flagged", () => {
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

test("showInput: every listed range is flagged, newline and tab are not", () => {
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

test("showInput: pretty and folded text still flags what was folded away", () => {
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
