/**
 * Asking a person at the terminal about a stopped call: y (allow once), a (allow always for the
 * session), n (reject), r (reject always). A stopped script is not resumed: on yes the person is
 * told to run it again.
 *
 * Rule source: issue 4 → The person's side ("`toolshell run` on a terminal asks y / n / always").
 */
import { createInterface } from "node:readline/promises";
import type { StopReport } from "../runtime/index.js";

/** Records a person's answer (on this process's session, or through the warm host). */
export interface Answerer {
  answer(requestId: string, decision: "allow" | "allow_always" | "reject" | "reject_always"): unknown;
}

const CHOICES: Record<string, "allow" | "allow_always" | "reject" | "reject_always"> = {
  y: "allow",
  yes: "allow",
  a: "allow_always",
  always: "allow_always",
  n: "reject",
  no: "reject",
  r: "reject_always",
};

/**
 * Asks about the stopped call (and, before start, every other literal call that needs
 * approval) and records each answer. An empty or unknown answer records nothing for that call.
 */
export async function askApproval(session: Answerer, stopped: NonNullable<StopReport["stopped"]>): Promise<void> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const where = stopped.before_start ? "The script did not start" : "The script stopped";
    const calls = [
      { call: stopped.call, line: stopped.line, why: stopped.why, request_id: stopped.request_id },
      ...(stopped.also_needs_approval ?? []),
    ];
    process.stderr.write(`\n${where}: ${calls.length === 1 ? "this call needs" : `${calls.length} calls need`} your approval.\n`);
    let approved = 0;
    for (const c of calls) {
      process.stderr.write(`\n  ${c.call?.tool} ${JSON.stringify(c.call?.input ?? {})}\n  (${c.why ?? "policy"}${c.line ? `, line ${c.line}` : ""})\n`);
      const answer = (await rl.question("Allow it? [y]es once, [a]lways in this session, [n]o, [r]eject always: ")).trim().toLowerCase();
      const decision = CHOICES[answer];
      if (!decision) {
        process.stderr.write("No answer recorded for this call.\n");
        continue;
      }
      await session.answer(c.request_id!, decision);
      if (decision.startsWith("allow")) approved++;
    }
    process.stderr.write(approved ? "Approved. Run the script again: a stopped script is not resumed.\n" : "Nothing approved: refused calls will answer `denied`.\n");
  } finally {
    rl.close();
  }
}
