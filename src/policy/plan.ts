/**
 * Planning a script without running it: every `tools` call written out literally, with its line,
 * input and risk; calls whose input is built at run time; and whether anything could hide a call
 * from reading (`complete: false`). Used by `tools plan` and by the preflight that stops a script
 * before it starts (README "Approvals"; docs/security.md "The preflight"). The reading itself is
 * in script-reader.ts.
 */
import type { Catalog } from "../catalog/index.js";
import { asksForHelp, buildInput, checkKnownFields, refuseUnsafeInput } from "../shell/index.js";
import type { CatalogTool } from "../tool/index.js";
import { callKey } from "./canonical.js";
import type { Policy } from "./policy.js";
import type { Why } from "./judge.js";
import { readScript, type FoundCall } from "./script-reader.js";
import { callsInText } from "./text-calls.js";
import { Turns } from "./turns.js";

export { MAX_SCRIPT_CHARS } from "./script-reader.js";

/** One call a plan lists. */
export interface PlanCall {
  tool: string;
  input: Record<string, unknown> | null;
  risk: "read_only" | "changes" | "needs_approval" | "blocked" | "checked_at_run_time";
  why?: Why;
  where: "script";
  line: number;
  /** True when a person's answer already covers the call (it will run without asking). */
  approved?: boolean;
  /** Why the call is checked at run time, or why it will be refused. */
  note?: string;
}

/** A plan: the calls and whether the reading saw everything. */
export interface Plan {
  calls: PlanCall[];
  complete: boolean;
  /** Why the plan is incomplete (commands that can hide calls), one line each. */
  hidden?: string[];
}

/** Internal: a literal call with its resolved tool (for preflight). */
export interface PlannedCall extends PlanCall {
  resolved?: { tool: CatalogTool; command: string };
  /** The literal input does not pass the schema: the call will fail with `invalid_input`. */
  invalid?: boolean;
}

const NOT_CALLS = new Set(["plan", "search", "--help", "-h", "help"]);

/**
 * Plans a script: parses it with the engine's own parser, resolves each `tools` call written out
 * literally (loading on-demand servers it names), builds its input as the command would, and asks
 * the policy (without using up one-off answers). Runs nothing. Cost is linear in the script's
 * length; the event loop gets a turn every 20 ms of work and `ctx.signal` is honoured throughout.
 * @throws RangeError when the script is longer than MAX_SCRIPT_CHARS; Error when it does not
 *   parse (the message is the parser's) or when `ctx.signal` is aborted (its reason).
 */
export async function planScript(
  script: string,
  catalog: Catalog,
  policy: Policy,
  ctx: { sessionId: string; sessionMetadata: Record<string, unknown>; signal?: AbortSignal; stdin?: string },
): Promise<{ plan: Plan; calls: PlannedCall[] }> {
  const turns = new Turns(ctx.signal);
  const found = await readScript(script, turns, ctx.stdin);
  const calls: PlannedCall[] = [];
  let complete = found.hidden.length === 0;
  /** Calls whose input the reading cannot prove and that may be gated (reasons for `hidden`). */
  const unproven: string[] = [];
  /** Calls a one-off answer covers, planned so far (the answer covers the first of them only). */
  const oneOffs = new Set<string>();
  // Something may run text as code: every call spelled out in the script's text is asked about too.
  const all: Array<FoundCall & { inText?: boolean }> = [...found.calls];
  if (!complete) {
    const seen = new Set(found.calls.filter((c) => c.words).map((c) => `${c.line}\u0000${c.words!.join("\u0000")}`));
    // xargs, find -exec and parallel add words to the call: its text is not its input.
    const adding = new Set(found.calls.filter((c) => c.via === "xargs" || c.via === "find" || c.via === "parallel").map((c) => c.line));
    for (const t of callsInText(script)) {
      if (adding.has(t.line)) continue;
      const key = `${t.line}\u0000${t.words.join("\u0000")}`;
      if (seen.has(key)) continue;
      seen.add(key);
      all.push({ words: t.words, partial: t.words, line: t.line, stdin: { kind: "unknown", enclosing: false, why: "a text run as code" }, inText: true });
    }
  }
  for (const c of all) {
    const words = c.words ?? c.partial;
    if (words.length === 0 || NOT_CALLS.has(words[0])) {
      if (!c.words) {
        complete = false;
        unproven.push(`tools${words.length ? ` ${words[0]}` : ""} … (line ${c.line}): its words are built while the script runs, so what it calls is not known before the run`);
      }
      continue;
    }
    if (words[0] === "scripts" && ((c.words && words.length === 1) || words[1] === "save" || words[1] === "--help")) continue;
    await turns.step();
    let resolved: Awaited<ReturnType<Catalog["resolve"]>> | undefined;
    try {
      resolved = await catalog.resolve(words, ctx.signal);
    } catch {
      resolved = undefined;
    }
    // `tools SERVER` lists the server's tools; with its tool word built at run time (`tools memory
    // $x`, a function's "$@") it is a call of a tool not known before the run.
    if (resolved && resolved.kind === "source") {
      if (c.words) continue;
      resolved = undefined;
    }
    if (c.inText && resolved?.kind !== "tool") continue;
    const command = resolved?.kind === "tool" ? resolved.command : `tools ${words.slice(0, 2).join(" ")}`;
    // A help page is no call (the command's own rule: a tool with a `help` field takes `--help` as input).
    if (resolved?.kind === "tool" && asksForHelp(resolved.tool, resolved.rest)) continue;
    const savedScript = resolved?.kind === "tool" && resolved.tool.source === "scripts";
    if (savedScript) {
      complete = false;
      unproven.push(`${command} (line ${c.line}): a saved script: the calls of its body are read when it runs`);
    }
    // A call given no input words (or `-`) reads stdin: known only when the script writes it out.
    const rest = resolved?.kind === "tool" ? resolved.rest : [];
    const readsStdin = !c.inText && (rest.length === 0 || rest.includes("-"));
    const stdinText = !readsStdin || c.stdin.kind === "none" ? "" : c.stdin.kind === "literal" ? c.stdin.text : undefined;
    const runTime = (note: string) => ({
      tool: command,
      input: null,
      risk: "checked_at_run_time" as const,
      where: "script" as const,
      line: c.line,
      note,
      ...(resolved?.kind === "tool" ? { resolved: { tool: resolved.tool, command } } : {}),
    });
    if (!c.words || stdinText === undefined || !resolved || resolved.kind !== "tool") {
      // Stdin the reading cannot see — from around the call (a group, loop, function's caller), or
      // the call's own redirection from a file or a text built at run time; only a pipe straight
      // into the call is left to the run-time check (docs/security.md "The preflight").
      const unseen = stdinText === undefined && c.stdin.kind === "unknown" && (c.stdin.enclosing || c.stdin.why !== "a pipe");
      if (unseen && c.words && resolved?.kind === "tool" && !c.via) complete = false;
      // A call whose input the reading cannot prove (a pipe into it, an input word built at run
      // time) cannot be asked before the start: unless no input could make it gated, the plan is
      // incomplete, naming the call (docs/security.md "The preflight").
      if (!c.via && (!resolved || resolved.kind !== "tool" || (await mayBeGated(policy, resolved.tool, command, ctx, c.line)))) {
        complete = false;
        unproven.push(`${command} (line ${c.line}): ${!resolved ? "does not resolve before the run" : !c.words ? "its input is built while the script runs" : `its input comes from ${c.stdin.kind === "unknown" ? c.stdin.why : "stdin"}`}, and it may need approval`);
      }
      calls.push(
        runTime(
          !resolved
            ? "the command does not resolve now"
            : c.via
              ? `called through ${c.via}`
              : !c.words
                ? "the input is built while the script runs"
                : unseen && c.stdin.kind === "unknown"
                  ? `the input comes from stdin the reading cannot see (${c.stdin.why})`
                  : "the input comes from stdin",
        ),
      );
      continue;
    }
    const tool = resolved.tool;
    // `input` is what the script gives (what a person is shown and an answer covers); `parsed`
    // is what the schema makes of it (what the tool's own approval predicate judges).
    let input: Record<string, unknown>;
    let parsed: Record<string, unknown>;
    let note: string | undefined;
    try {
      input = buildInput(tool, { args: resolved.rest, stdin: stdinText });
      refuseUnsafeInput(input);
      checkKnownFields(tool, input);
      const checked = await tool.validate(input);
      if (!checked.ok) note = `invalid input: ${checked.errors.join("; ")}`;
      parsed = checked.ok ? checked.value : input;
    } catch (err) {
      input = parsed = {};
      note = `invalid input: ${(err as Error).message}`;
    }
    // Stdin written around the call may be read in part by other commands first: a text that is
    // no valid input leaves the call's input unseen.
    if (note && readsStdin && c.stdin.kind === "literal" && c.stdin.enclosing) {
      complete = false;
      calls.push(runTime("the input comes from stdin the reading cannot see (a text other commands around it may read first)"));
      continue;
    }
    if (c.inText && !note) note = "written in a text the script may run as code";
    // Through a runner that passes its words as they are, the call is judged as written; `tools`
    // run by its path runs whatever file is there then (a script can write it): incomplete.
    if (c.via && !note) note = `called through ${c.via}`;
    if (c.via?.includes("/")) {
      complete = false;
      unproven.push(`${command} (line ${c.line}): ${c.via} runs a file by its path; a script can write that file`);
    }
    const j = await policy.peek({ tool, command, given: input, input: parsed, sessionId: ctx.sessionId, sessionMetadata: ctx.sessionMetadata, callId: `plan:${c.line}` });
    // A one-off `allow` covers one call: a second copy of the call in the script asks when it is
    // reached (the book holds one such answer per call, so asking before the start could not
    // cover both): the plan is incomplete and says so.
    if (j.oneOff) {
      const key = callKey(command, input);
      if (oneOffs.has(key) && !note) {
        note = "a one-off answer covers an earlier copy of this call: this one asks when it is reached";
        complete = false;
        unproven.push(`${command} (line ${c.line}): ${note}`);
      }
      oneOffs.add(key);
    }
    const risk: PlanCall["risk"] = j.risk === "blocked" || j.rejected ? "blocked" : j.risk === "needs_approval" && j.approved ? (tool.hints.readOnly ? "read_only" : "changes") : j.risk;
    calls.push({
      tool: command,
      input,
      risk,
      ...(j.why && risk === "needs_approval" ? { why: j.why } : {}),
      where: "script",
      line: c.line,
      ...(j.approved ? { approved: true } : {}),
      ...(note ? { note } : j.risk === "blocked" && j.message ? { note: j.message } : {}),
      resolved: { tool, command },
      ...(note?.startsWith("invalid input") ? { invalid: true } : {}),
    });
  }
  turns.check();
  const plan: Plan = {
    calls: calls.map(({ resolved: _r, invalid: _i, ...rest }) => rest),
    complete: complete && !calls.some((c) => c.risk === "checked_at_run_time" && c.note?.startsWith("called through")),
    ...(found.hidden.length || unproven.length ? { hidden: [...found.hidden, ...unproven] } : {}),
  };
  return { plan, calls };
}

/**
 * Whether some input could make a call of `tool` need approval (or be blocked): an approval
 * predicate judges each input; otherwise the policy's answer for the tool does not depend on the
 * input, so asking with none tells (an `allow_always` covering the tool counts as ungated).
 */
async function mayBeGated(policy: Policy, tool: CatalogTool, command: string, ctx: { sessionId: string; sessionMetadata: Record<string, unknown> }, line: number): Promise<boolean> {
  if (tool.approval?.kind === "predicate") return true;
  try {
    const j = await policy.peek({ tool, command, given: {}, input: {}, sessionId: ctx.sessionId, sessionMetadata: ctx.sessionMetadata, callId: `plan:${line}` });
    return j.risk === "blocked" || j.rejected === true || (j.risk === "needs_approval" && !j.approved);
  } catch {
    return true;
  }
}
