/**
 * `toolshell approvals` and `toolshell approve`: pending requests across the store's sessions,
 * and answering one by its id wherever it was raised (request ids are unique in a store).
 *
 * People see the tool, the input (through `showInput`, every hidden character escaped and
 * flagged), the session and why; never internal keys (`subject`, the tool bound to its server's
 * identity, nor `scope`). See README → The CLI; docs/security.md. An id that is not pending (or
 * not the `--session`'s) is "not found": exit 1, as docs/sessions.md's exit codes give it.
 */
import { checkDecision, type ApprovalRequest } from "../policy/index.js";
import { describeFlags, showInput, showName } from "../display/show-input.js";
import type { Host } from "../server/host.js";
import { answerAsShown, ApprovalDetailsReader, type RanCall } from "../server/approval-card.js";
import { cliActor } from "./ask.js";
import { CliError } from "./cli-error.js";

/** A request as `--json` gives it: its meaningful fields, the raw input and `display`. */
function forMachines(r: ApprovalRequest, display: unknown): Record<string, unknown> {
  const { subject: _subject, scope: _scope, ...rest } = r;
  return { ...rest, display };
}

/**
 * The pending requests of every session (or of `session`), oldest first: one block per request
 * for a person, or a JSON array with `json`.
 */
export async function listApprovals(host: Host, options: { session?: string; json?: boolean }): Promise<string> {
  const pending = (await host.store.pendingApprovals())
    .filter((r) => options.session === undefined || r.session_id === options.session)
    .sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0));
  const shown = pending.map((r) => ({ r, display: showInput(r.input, { pretty: true }) }));
  // Still JSON, parsed the same, but no invisible or bidirectional character reaches the terminal raw.
  if (options.json) return showInput(shown.map(({ r, display }) => forMachines(r, display)), { pretty: true }).text + "\n";
  if (!pending.length) return `no pending approval requests${options.session === undefined ? "" : ` in session ${options.session}`}\n`;
  const reader = new ApprovalDetailsReader(host);
  const blocks: string[] = [];
  for (const { r, display } of shown) {
    const d = await reader.read(r);
    const tool = showName(r.tool);
    const where = d.where.kind === "trigger" ? `trigger ${showName(d.where.trigger_name).text}` : `session ${showName(r.session_id).text}`;
    const script = d.script?.saved ? `saved script ${showName(d.script.saved.name).text}@${d.script.saved.version}` : "the script";
    const ran = (c: RanCall) => `${showName(c.tool).text} ${showInput(c.input).text}${c.at ? ` at ${c.at}` : ""}`;
    const lines = [
      `${r.id}  ${tool.text}`,
      ...(d.description ? [`  ${showName(d.description).text}`] : []),
      `  ${where}, asked ${r.created_at}${d.line ? `, line ${d.line} of ${script}` : ""}`,
      `  ${d.risk}`,
      ...(r.scripts?.length ? [`  in saved scripts ${r.scripts.map((s) => `${showName(s.name).text}@${s.version}`).join(" > ")}`] : []),
      ...display.text.split("\n").map((l, i) => (i ? `  ${l}` : `  input ${l}`)),
      ...[...tool.warnings, ...describeFlags(display.flags)].map((w) => `  warning: ${w}`),
      ...(d.in_flight ? [`  warning: ${showName(d.in_flight.warning).text}`] : []),
      ...(d.already_ran ? [`  already ran${d.already_ran.at ? ` at ${d.already_ran.at}` : ""}: this exact call (same tool, same input); allowing it runs it again`] : []),
      ...d.ran_before.map((c) => `  ran before this stop: ${ran(c)}`),
      `  ${d.scope.allow_always}`,
      `  ${d.scope.reject_always}`,
      `  after the answer: ${d.after_answer}`,
      `  answer: toolshell approve ${r.id} allow|allow_always|reject|reject_always`,
    ];
    blocks.push(lines.join("\n") + "\n");
  }
  return blocks.join("\n");
}

/**
 * Answers the pending request `requestId` in whichever session raised it; with `session`, only
 * when it is that session's. @throws CliError `not_found` when no pending request has that id (exit 1).
 */
export async function approveById(host: Host, requestId: string, decision: string, options: { session?: string }): Promise<{ answered: ApprovalRequest; covers?: string }> {
  // The decision first: a person who typed `maybe` learns the four answers, whatever the id.
  checkDecision(decision);
  const found = (await host.store.pendingApprovals()).find((r) => r.id === requestId);
  if (!found) throw new CliError("not_found", `no pending approval request ${requestId} in the store ${host.store.location} (answered already, or never asked here; \`toolshell approvals\` lists those waiting)`);
  if (options.session !== undefined && found.session_id !== options.session) {
    throw new CliError("not_found", `approval request ${requestId} belongs to session ${found.session_id}, not to session ${options.session} (--session)`);
  }
  // The person at the store answers any session's request, as an operator does through the API
  // (docs/security.md "Who acts for whom"): the session is opened for whoever owns it.
  const result = await answerAsShown(host, host.session(found.session_id, {}, { anyOwner: true }), found, decision, cliActor());
  // A trigger's run stopped on this request goes on by the same rule as an answer through the
  // API (TriggerService.answered, docs/sessions.md → Triggers): waited for here, as this
  // process may exit right after.
  await host.triggers.answered(found.session_id, requestId);
  return result;
}
