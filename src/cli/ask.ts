/**
 * Asking a person at the terminal about a stopped call: y (allow once), a (allow always for the
 * session), n (reject), r (reject always). A script held before it started is run again at once
 * when every call asked about was allowed (as the gateway does); a script that stopped midway is
 * not resumed, and the person is told to run it again.
 *
 * See README → Approvals.
 */
import { userInfo } from "node:os";
import { createInterface } from "node:readline/promises";
import { describeScripts, type ApprovalRequest } from "../policy/index.js";
import { describeFlags, showInput, showName } from "../display/show-input.js";
import type { StopReport } from "../runtime/index.js";

/** Records a person's answer (on this process's session, or through the warm host). */
export interface Answerer {
  answer(requestId: string, decision: "allow" | "allow_always" | "reject" | "reject_always", actor?: { surface: string; by: string }): unknown;
  /** The session's pending requests, when the session is in this process (they name the saved scripts a call ran in). */
  pendingApprovals?(): Promise<ApprovalRequest[]>;
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
 * Each input is shown through `showInput`: hidden characters escaped and named. `io` defaults
 * to the terminal (stdin, stderr).
 * @returns true when every call asked about was allowed.
 */
export async function askApproval(
  session: Answerer,
  stopped: NonNullable<StopReport["stopped"]>,
  io: { input: NodeJS.ReadableStream; output: NodeJS.WritableStream } = { input: process.stdin, output: process.stderr },
): Promise<boolean> {
  const rl = createInterface({ input: io.input, output: io.output });
  const out = io.output;
  try {
    const where = stopped.before_start ? "The script did not start" : "The script stopped";
    const calls = [
      { call: stopped.call, line: stopped.line, why: stopped.why, request_id: stopped.request_id },
      ...(stopped.also_needs_approval ?? []),
    ];
    out.write(`\n${where}: ${calls.length === 1 ? "this call needs" : `${calls.length} calls need`} your approval.\n`);
    let approved = 0;
    for (const c of calls) {
      // Escaped and flagged: a terminal must not act on, hide or reorder what the person approves.
      const shown = showInput(c.call?.input ?? {});
      const name = showName(c.call?.tool ?? "");
      const warnings = [...name.warnings, ...describeFlags(shown.flags)].map((l) => `  ⚠ ${l}\n`).join("");
      const request = (await session.pendingApprovals?.())?.find((r) => r.id === c.request_id);
      const scripts = request ? describeScripts(request) : undefined;
      out.write(`\n  ${name.text} ${shown.text}\n${warnings}${scripts ? `  ${scripts}\n` : ""}  (${c.why ?? "policy"}${c.line ? `, line ${c.line}` : ""})\n`);
      const answer = (await rl.question("Allow it? [y]es once, [a]lways in this session, [n]o, [r]eject always: ")).trim().toLowerCase();
      const decision = CHOICES[answer];
      if (!decision) {
        out.write("No answer recorded for this call.\n");
        continue;
      }
      await session.answer(c.request_id!, decision, cliActor());
      if (decision.startsWith("allow")) approved++;
    }
    const all = approved === calls.length;
    const rest = calls.length - approved;
    const refused = rest ? ` ${rest} of ${calls.length} call${calls.length > 1 ? "s" : ""} not allowed: a refused one will answer \`denied\`, one left unanswered asks again.` : "";
    if (all && stopped.before_start) out.write("Approved. Running the script (it had not started).\n");
    else if (!approved) out.write("Nothing approved: refused calls will answer `denied`.\n");
    else if (stopped.before_start) out.write(`Approved ${approved} of ${calls.length}; the script has not started and does not run now.${refused} Run it again when ready.\n`);
    else out.write(`Approved${rest ? ` ${approved} of ${calls.length}` : ""}. Run the script again: a stopped script is not resumed.${refused}\n`);
    return all;
  } finally {
    rl.close();
  }
}

/** Who answers from this command line: the local user, through the CLI (docs/sessions.md "Who acted"). */
export function cliActor(): { surface: string; by: string } {
  let by = process.env.USER ?? "local";
  try {
    by = userInfo().username || by;
  } catch {}
  return { surface: "cli", by };
}
