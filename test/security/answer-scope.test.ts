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
