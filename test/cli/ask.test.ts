/**
 * The terminal prompt's last line says what happens next (README "Approvals"): all calls of a
 * script that had not started allowed, it runs now; some allowed, it does not run and says how
 * many were not; none, nothing runs.
 */
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { test } from "node:test";
import { askApproval } from "../../src/cli/ask.js";
import { always, createToolShell, defineTool } from "../../src/index.js";

/** Answers each "Allow it?" of the prompt with the next of `answers`; returns what the person saw. */
async function prompt(session: Parameters<typeof askApproval>[0], stopped: Parameters<typeof askApproval>[1], answers: string[]): Promise<{ shown: string; all: boolean }> {
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = "";
  let asked = 0;
  output.on("data", (d: Buffer) => {
    shown += d.toString("utf8");
    const n = shown.split("Allow it?").length - 1;
    while (asked < n) input.write(`${answers[asked++]}\n`);
  });
  const all = await askApproval(session, stopped, { input, output });
  return { shown, all };
}

for (const [answers, last] of [
  [["y", "r"], /Approved 1 of 2; the script has not started and does not run now\. 1 of 2 calls not allowed: a refused one will answer `denied`, one left unanswered asks again\. Run it again when ready\.\n$/],
  [["y", "a"], /Approved\. Running the script \(it had not started\)\.\n$/],
  [["n", "r"], /Nothing approved: refused calls will answer `denied`\.\n$/],
] as const) {
  test(`two calls of a script that had not started, answered ${answers.join(" then ")}: the prompt's last line says what happens next`, async (t) => {
    const shell = await createToolShell({
      tools: {
        refund: defineTool({ description: "Refunds.", inputSchema: { type: "object", properties: { id: { type: "string" } } }, approval: always(), execute: ({ id }) => `refunded ${id}` }),
      },
    });
    t.after(() => shell.close());
    const session = shell.session(`ask-${answers.join("")}`);
    const r = await session.bash("tools refund id=a\ntools refund id=b\n");
    assert.equal(r.tools?.stopped?.before_start, true, JSON.stringify(r));
    const { shown, all } = await prompt(session, r.tools!.stopped!, [...answers]);
    assert.match(shown, last);
    assert.equal(all, answers.every((a) => a === "y" || a === "a"));
  });
}
