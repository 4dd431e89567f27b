/**
 * `tools plan` inside the shell, and the preflight that stops a script before it starts (README
 * "Approvals": a literal call that needs approval stops the script before it starts,
 * `before_start: true`; docs/security.md "The preflight" for its bounds).
 */
import { raiseRequest } from "../call/index.js";
import type { Catalog } from "../catalog/index.js";
import { callKey, planScript, TURN_MS, type Policy } from "../policy/index.js";
import type { CommandIo, SubcommandHandler } from "../shell/index.js";
import { ToolCallError } from "../tool/index.js";
import type { ApprovalRequest } from "../policy/index.js";
import type { ShellHost } from "./host.js";
import type { Session } from "./session.js";
import type { ShellCall } from "./shell-call.js";
import { replayedCalls } from "./replay.js";

/** True for a gated literal call a resumed step's replay answers (see `replayedCalls`). */
export type ReplayedCalls = (command: string, input: Record<string, unknown>) => boolean;

/** What preflight decided. */
export interface PreflightOutcome {
  /** A literal call that needs approval: the script must not start. */
  stop?: {
    tool: string;
    input: Record<string, unknown>;
    line: number;
    why?: string;
    requestId: string;
    /** The other literal calls of the script that need approval too (each with its request). */
    others?: Array<{ tool: string; input: Record<string, unknown>; line: number; why?: string; requestId: string }>;
  };
  /** Lines of literal calls (input as written), to name the line of a call stopped at run time. */
  lines: Array<{ command: string; input: Record<string, unknown>; line: number }>;
  /** Every command the script names that resolves to a tool, literal input or not. */
  commands?: string[];
}

const USAGE = "Usage: tools plan <<'EOF' … EOF   or   tools plan FILE   — prints each tools call the script would make, with its risk; runs nothing\n";

/** The `tools plan` handler of one shell call. */
export function planCommand(policy: Policy, session: Session, call: ShellCall): SubcommandHandler {
  return async (args: string[], io: CommandIo) => {
    if (args[0] === "--help" || args[0] === "-h") return { stdout: USAGE, stderr: "", exitCode: 0 };
    let script: string;
    if (args.length > 0 && args[0] !== "-") {
      if (args.length > 1) throw new ToolCallError("invalid_input", `tools plan takes one file or a script on stdin. ${USAGE.trim()}`);
      try {
        script = await io.fs.readFile(io.fs.resolvePath(io.cwd, args[0]));
      } catch {
        throw new ToolCallError("invalid_input", `tools plan: cannot read ${args[0]} in the session filesystem`);
      }
    } else {
      script = io.stdin;
      if (!script.trim()) throw new ToolCallError("invalid_input", `tools plan: no script on stdin. ${USAGE.trim()}`);
    }
    let plan;
    try {
      ({ plan } = await planScript(script, call.catalog, policy, { sessionId: session.id, sessionMetadata: session.metadata, signal: call.signal }));
    } catch (err) {
      if (call.signal.aborted) throw new ToolCallError("stopped", "tools plan: the shell call was stopped (its time limit) while the script was read");
      if (err instanceof RangeError) throw new ToolCallError("invalid_input", `tools plan: ${err.message}`);
      throw new ToolCallError("invalid_input", `tools plan: the script does not parse: ${(err as Error).message}`);
    }
    return { stdout: JSON.stringify(plan, null, 2) + "\n", stderr: "", exitCode: 0 };
  };
}

/**
 * Literal calls asked about before the start, at most: no shell call makes more nested calls than
 * its call limit (50 by default), so asking more would only grow the approval book. Further ones
 * are asked when the script reaches them.
 */
export const MAX_PREFLIGHT_REQUESTS = 50;

/**
 * Preflight: plans the script; the literal calls that need approval (and have no answer covering
 * them) raise approval requests — one per distinct call, at most {@link MAX_PREFLIGHT_REQUESTS} —
 * and the script does not start. A script that does not parse or is too long is left to the
 * engine (it reports the error). Time spent is linear in the script's length and the event loop
 * gets turns meanwhile; an aborted `signal` ends the reading (the caller reports its time limit).
 * Each request's `tool_call_id` is `<toolCallId>:preflight:line_<N>` (the shell call's id).
 * `stdin` is the shell call's own stdin, read by a call at the script's top given no input words.
 * `replayed` (a resumed durable step, see `replayedCalls`) says which gated calls already ran and
 * will be answered from the step's record: those are not asked again.
 */
export async function preflight(
  script: string,
  catalog: Catalog,
  policy: Policy,
  session: Session,
  signal?: AbortSignal,
  toolCallId = "preflight",
  stdin?: string,
  replayed?: ReplayedCalls,
): Promise<PreflightOutcome> {
  let calls;
  try {
    // The shell call's own stdin is what a call at the top of the script reads.
    ({ calls } = await planScript(script, catalog, policy, { sessionId: session.id, sessionMetadata: session.metadata, signal, stdin }));
  } catch {
    return { lines: [] };
  }
  const lines = calls.filter((c) => c.input && c.resolved).map((c) => ({ command: c.tool, input: c.input!, line: c.line }));
  const commands = [...new Set(calls.filter((c) => c.resolved).map((c) => c.tool))];
  // A call whose literal input fails the schema will answer invalid_input: nobody is asked about it.
  const asking: typeof calls = [];
  const seen = new Set<string>();
  for (const c of calls) {
    if (c.risk !== "needs_approval" || !c.input || !c.resolved || c.invalid) continue;
    // Already ran in an earlier attempt of this step: the replay answers it, nothing to ask.
    if (replayed?.(c.tool, c.input)) continue;
    // The same call written twice is one question (the book would find the pending one anyway,
    // at the cost of a scan of every request per call).
    const key = callKey(c.tool, c.input);
    if (seen.has(key)) continue;
    seen.add(key);
    asking.push(c);
    if (asking.length >= MAX_PREFLIGHT_REQUESTS) break;
  }
  if (asking.length === 0) return { lines, commands };
  // Every literal call that needs approval is asked about now, so one round of answers covers
  // the whole script.
  const requests: Array<{ tool: string; input: Record<string, unknown>; line: number; why?: string; requestId: string }> = [];
  let turn = performance.now();
  for (const c of asking) {
    // A store persists each request as it is raised: other sessions get turns in between.
    if (performance.now() - turn >= TURN_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      turn = performance.now();
    }
    // Raised as the call pipeline's policy step raises it: the answer is looked up the same way.
    const requestId = raiseRequest(
      policy,
      session,
      {
        sessionId: session.id,
        command: c.tool,
        tool: c.resolved!.tool,
        given: c.input!,
        line: c.line,
        // Named after the shell call, so two scripts' requests for the same line never share an id.
        callId: `${toolCallId}:preflight:line_${c.line}`,
      },
      c.why,
      true,
    );
    requests.push({ tool: c.tool, input: c.input!, line: c.line, why: c.why, requestId });
  }
  const [first, ...others] = requests;
  return { lines, commands, stop: { ...first, others } };
}

/**
 * The approvals a script waits for before it starts, asked now without running anything (see
 * `Session.approvalsBeforeStart`): the host's preflight, holding the session as a shell call does.
 * A request an earlier run of a saved script this script calls left pending is asked too: a call
 * inside a saved script is asked when reached (docs/sessions.md), and its answer holds only
 * inside that script version (the card says which). Never throws: an unreadable script asks nothing.
 * With `stepId` (the durable step the script will run as): when that step was interrupted, the
 * calls that completed in it are replayed, not asked about again (as the shell call's own preflight).
 */
export async function approvalsBeforeStart(session: Session, host: ShellHost, script: string, toolCallId: string, stepId?: string): Promise<ApprovalRequest[]> {
  try {
    return await session.holding(async () => {
      const replayed = stepId ? await stepReplays(host, session.id, stepId) : undefined;
      const pre = await host.preflight(script, await session.freshCatalog(), session, AbortSignal.timeout(host.timeoutMs), toolCallId, undefined, replayed);
      const ids = pre.stop ? [pre.stop.requestId, ...(pre.stop.others ?? []).map((o) => o.requestId)] : [];
      const book = host.policy.book(session.id);
      const named = new Set(pre.commands ?? []);
      for (const r of book.pending()) if (r.scripts?.length && named.has(`tools scripts ${r.scripts[0].name}`) && !ids.includes(r.id)) ids.push(r.id);
      return ids.map((id) => book.get(id)).filter((r): r is ApprovalRequest => r !== undefined);
    });
  } catch {
    return [];
  }
}

/** The replayed calls of a durable shell step that did not complete (undefined: none, or no store). */
async function stepReplays(host: ShellHost, sessionId: string, stepId: string): Promise<ReplayedCalls | undefined> {
  const store = host.store;
  if (!store) return undefined;
  const step = await store.getStep(sessionId, stepId);
  if (!step || step.kind !== "shell" || step.status === "completed") return undefined;
  return replayedCalls(await store.recordedCalls(sessionId, step.toolCallId));
}
