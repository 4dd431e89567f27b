/**
 * Reading a script without running it: every `tools` call written out literally, with its line,
 * input and risk; calls whose input is built at run time; and whether anything could hide a call
 * from reading (`complete: false`). Used by `tools plan` and by the preflight that stops a script
 * before it starts.
 *
 * Rule source: seed "Tools in Shell" → Approvals ("When a call written out in full in the script
 * … needs a person's answer, the script does not start at all"; `tools plan`, its JSON, `risk`,
 * `why`, `complete`); issue 4 → Before the script starts, `tools plan`, No way around it.
 */
import { parse } from "../shell/just-bash.js";
import type { Catalog } from "../catalog/index.js";
import { buildInput, checkKnownFields, refuseUnsafeInput } from "../shell/index.js";
import type { CatalogTool } from "../tool/index.js";
import type { Policy } from "./policy.js";
import type { Why } from "./judge.js";

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

type Node = { type?: string; [key: string]: unknown };

/** Commands that can run text or other commands as code: a call inside them is hidden from reading. */
const HIDING = new Set(["eval", "source", ".", "bash", "sh", "alias", "xargs", "exec", "command", "builtin", "env", "nohup", "timeout", "time", "nice", "trap", "parallel", "watch"]);

function literalOf(word: unknown): string | undefined {
  if (!word || typeof word !== "object") return undefined;
  const parts = (word as { parts?: Node[] }).parts;
  if (!Array.isArray(parts)) return undefined;
  let out = "";
  for (const p of parts) {
    if (p.type === "Literal" || p.type === "SingleQuoted" || p.type === "Escaped") out += String(p.value);
    else if (p.type === "DoubleQuoted") {
      const inner = literalOf({ parts: p.parts });
      if (inner === undefined) return undefined;
      out += inner;
    } else return undefined;
  }
  return out;
}

function walk(node: unknown, visit: (n: Node, parent: Node | undefined, index: number) => void, parent?: Node, index = 0): void {
  if (Array.isArray(node)) {
    node.forEach((n, i) => walk(n, visit, parent, i));
    return;
  }
  if (!node || typeof node !== "object") return;
  const n = node as Node;
  if (typeof n.type === "string") visit(n, parent, index);
  for (const [k, v] of Object.entries(n)) {
    if (k === "type" || k === "line" || typeof v !== "object" || v === null) continue;
    walk(v, visit, typeof n.type === "string" ? n : parent, 0);
  }
}

/** What the analysis found before judging: literal and run-time `tools` calls, and hiding commands. */
interface Found {
  calls: Array<{ words: string[] | undefined; partial: string[]; line: number; readsStdin: boolean; via?: string }>;
  hidden: string[];
}

function find(script: string): Found {
  const ast = parse(script);
  const found: Found = { calls: [], hidden: [] };
  walk(ast, (n, parent) => {
    if (n.type === "FunctionDef") {
      const name = String((n as { name?: unknown }).name ?? "");
      if (name === "tools" || name.endsWith("/tools")) found.hidden.push(`a function named ${name} (line ${n.line ?? "?"})`);
      return;
    }
    if (n.type === "ProcessSubstitution") return;
    if (n.type !== "SimpleCommand") return;
    const line = typeof n.line === "number" ? n.line : 0;
    if (!n.name) return;
    const name = literalOf(n.name);
    const args = (n.args as unknown[]) ?? [];
    const lits = args.map(literalOf);
    if (name === undefined) {
      found.hidden.push(`a command word built at run time (line ${line})`);
      return;
    }
    const base = name.split("/").pop()!;
    const pipeline = parent && parent.type === "Pipeline" ? (parent.commands as Node[]) : undefined;
    const notFirst = pipeline ? pipeline.indexOf(n) > 0 : false;
    const redirs = ((n.redirections as Array<{ operator: string }>) ?? []).map((r) => r.operator);
    const stdinRedirected = redirs.some((op) => op === "<" || op === "<<" || op === "<<-" || op === "<<<" || op === "<&");
    if (base === "tools") {
      const partial: string[] = [];
      for (const l of lits) {
        if (l === undefined) break;
        partial.push(l);
      }
      const allLiteral = lits.every((l) => l !== undefined);
      found.calls.push({ words: allLiteral ? (lits as string[]) : undefined, partial, line, readsStdin: notFirst || stdinRedirected || lits.includes("-"), via: name !== "tools" ? name : undefined });
      return;
    }
    const hides = HIDING.has(base) || (base === "find" && lits.some((l) => l === "-exec" || l === "-execdir" || l === "-ok" || l === "-okdir"));
    if (hides) {
      found.hidden.push(`${base} (line ${line})`);
      const at = lits.findIndex((l) => l === "tools" || (l ?? "").endsWith("/tools"));
      if (at >= 0) {
        const rest: string[] = [];
        for (const l of lits.slice(at + 1)) {
          if (l === undefined) break;
          rest.push(l);
        }
        found.calls.push({ words: undefined, partial: rest, line, readsStdin: true, via: base });
      }
    }
  });
  return found;
}

const NOT_CALLS = new Set(["plan", "search", "--help", "-h", "help"]);

/**
 * Plans a script: parses it with the engine's own parser, resolves each `tools` call written out
 * literally (loading on-demand servers it names), builds its input as the command would, and asks
 * the policy (without using up one-off answers). Runs nothing.
 * @throws Error when the script does not parse (the message is the parser's).
 */
export async function planScript(
  script: string,
  catalog: Catalog,
  policy: Policy,
  ctx: { sessionId: string; sessionMetadata: Record<string, unknown>; signal?: AbortSignal },
): Promise<{ plan: Plan; calls: PlannedCall[] }> {
  const found = find(script);
  const calls: PlannedCall[] = [];
  let complete = found.hidden.length === 0;
  for (const c of found.calls) {
    const words = c.words ?? c.partial;
    if (words.length === 0 || NOT_CALLS.has(words[0])) {
      if (!c.words) complete = false;
      continue;
    }
    if (words[0] === "scripts" && (words.length === 1 || words[1] === "save" || words[1] === "--help")) continue;
    let resolved: Awaited<ReturnType<Catalog["resolve"]>> | undefined;
    try {
      if (ctx.signal?.aborted) break;
      resolved = await catalog.resolve(words, ctx.signal);
    } catch {
      resolved = undefined;
    }
    if (resolved && resolved.kind === "source") continue;
    const command = resolved?.kind === "tool" ? resolved.command : `tools ${words.slice(0, 2).join(" ")}`;
    if (resolved?.kind === "tool" && (resolved.rest.includes("--help") || resolved.rest[0] === "-h")) continue;
    const savedScript = resolved?.kind === "tool" && resolved.tool.source === "scripts";
    if (savedScript) complete = false;
    if (!c.words || c.readsStdin || !resolved || resolved.kind !== "tool" || c.via) {
      calls.push({
        tool: command,
        input: null,
        risk: "checked_at_run_time",
        where: "script",
        line: c.line,
        note: !resolved ? "the command does not resolve now" : c.via ? `called through ${c.via}` : c.readsStdin ? "the input comes from stdin" : "the input is built while the script runs",
        ...(resolved?.kind === "tool" ? { resolved: { tool: resolved.tool, command } } : {}),
      });
      continue;
    }
    const tool = resolved.tool;
    let input: Record<string, unknown>;
    let note: string | undefined;
    try {
      input = buildInput(tool, { args: resolved.rest, stdin: "" });
      refuseUnsafeInput(input);
      checkKnownFields(tool, input);
      const checked = await tool.validate(input);
      if (!checked.ok) note = `invalid input: ${checked.errors.join("; ")}`;
      else input = checked.value;
    } catch (err) {
      input = {};
      note = `invalid input: ${(err as Error).message}`;
    }
    const j = await policy.peek({ tool, command, input, sessionId: ctx.sessionId, sessionMetadata: ctx.sessionMetadata, callId: `plan:${c.line}` });
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
  const plan: Plan = {
    calls: calls.map(({ resolved: _r, invalid: _i, ...rest }) => rest),
    complete: complete && !calls.some((c) => c.risk === "checked_at_run_time" && c.note?.startsWith("called through")),
    ...(found.hidden.length ? { hidden: found.hidden } : {}),
  };
  return { plan, calls };
}
