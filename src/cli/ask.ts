/**
 * Asking a person at the terminal about a stopped call: y (allow once), a (allow always for the
 * session), n (reject), r (reject always). A stopped script is not resumed: on yes the person is
 * told to run it again.
 *
 * Rule source: issue 4 → The person's side ("`toolshell run` on a terminal asks y / n / always").
 */
import { createInterface } from "node:readline/promises";
import type { Session, StopReport } from "../runtime/index.js";

const CHOICES: Record<string, "allow" | "allow_always" | "reject" | "reject_always"> = {
  y: "allow",
  yes: "allow",
  a: "allow_always",
  always: "allow_always",
  n: "reject",
  no: "reject",
  r: "reject_always",
};

/** Asks about one stopped call and records the answer. An empty or unknown answer records nothing. */
export async function askApproval(session: Session, stopped: NonNullable<StopReport["stopped"]>): Promise<void> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const where = stopped.before_start ? "The script did not start" : "The script stopped";
    process.stderr.write(`\n${where}: this call needs your approval (${stopped.why ?? "policy"})${stopped.line ? ` at line ${stopped.line}` : ""}:\n  ${stopped.call?.tool} ${JSON.stringify(stopped.call?.input ?? {})}\n`);
    const answer = (await rl.question("Allow it? [y]es once, [a]lways in this session, [n]o, [r]eject always: ")).trim().toLowerCase();
    const decision = CHOICES[answer];
    if (!decision) {
      process.stderr.write("No answer recorded; nothing was approved.\n");
      return;
    }
    session.answer(stopped.request_id!, decision);
    process.stderr.write(decision.startsWith("allow") ? "Approved. Run the script again: a stopped script is not resumed.\n" : "Refused: the call will answer `denied`.\n");
  } finally {
    rl.close();
  }
}
