/**
 * Approval requests and answers of one session.
 *
 * - `allow`: one exact call (tool + canonical input), used once, lapses after one hour.
 * - `allow_always`: the tool, for the session.
 * Both allow answers are bound to the tool's definition the person was shown (`definition`, see
 * `definitionHash`): a tool redefined afterwards asks again. Refusals cover the tool by name.
 * - `reject`: refuses that exact call (once, within the hour): it answers `denied`.
 * - `reject_always`: the tool answers `denied` for the session.
 * Silence is not approval: a pending request approves nothing.
 *
 * Scope: a request raised inside a saved script records the script versions it ran in (name,
 * version, SHA-256 of the body; outermost first) and the person is shown them. Its `allow`,
 * `allow_always` and `once()` answers then hold only inside those exact versions: a script saved
 * again (another body) asks again. This is what binds a trigger's answers to the script a person
 * saw, since every call of a trigger's run is made inside its saved script. Refusals (`reject`,
 * `reject_always`) hold for the whole session: refusing more than was shown is safe. An answer
 * given outside any saved script holds for the whole session, scripts included — except in a
 * trigger's run, whose scope is exclusive: only answers given to requests its runs raised hold
 * there, never one given to another shell call of its session.
 *
 * See README → Approvals; docs/security.md → Answers are bound to what was shown.
 */
import { randomUUID } from "node:crypto";
import { allowSubject, callKey } from "./canonical.js";

import { DECISIONS, type Decision } from "./decisions.js";

export { DECISIONS, type Decision };

/** One saved script version a call was made in. */
export interface ScriptVersionRef {
  name: string;
  version: number;
  /** SHA-256 (hex) of the body that ran. */
  body_sha256: string;
}

/** Where a call is made: the chain of saved script versions around it, and its key. */
export interface ApprovalScope {
  /** A stable key of the chain (answers are bound to it). */
  key: string;
  /** The saved script versions, outermost first. */
  scripts: ScriptVersionRef[];
  /** The trigger whose run makes the call, when one does. */
  trigger?: { id: string; name?: string };
  /**
   * Only answers given in this scope hold here: a trigger's run is covered by no answer given
   * elsewhere in its session (a shell call someone ran there, with the same script or not).
   */
  exclusive?: boolean;
}

/** A request raised for a stopped call. */
export interface ApprovalRequest {
  id: string;
  session_id: string;
  /** The command, e.g. `tools github delete-branch`. */
  tool: string;
  /** The tool's own name, e.g. `delete_branch`. */
  tool_name: string;
  /** What the answer is about when it differs from `tool`: the command bound to its server's identity (see `approvalSubject`). */
  subject?: string;
  /**
   * The hash of the tool's definition the person is shown (`definitionHash`: name, description,
   * schemas, hints, a saved script's body): allow answers hold only while the tool is defined so.
   */
  definition?: string;
  input: Record<string, unknown>;
  why?: string;
  line?: number;
  /** The nested call id, e.g. `call_bash_2:tools:0:delete_branch`, or the shell call id before start. */
  tool_call_id: string;
  /** The scope key when the call was made inside saved scripts: allow answers hold only there. */
  scope?: string;
  /** The saved script versions the call was made in, outermost first (shown to the person). */
  scripts?: ScriptVersionRef[];
  /** The trigger whose run made the call (its answers hold for its runs only). */
  trigger?: { id: string; name?: string };
  created_at: string;
  status: "pending" | "answered";
  decision?: Decision;
  answered_at?: string;
  /** Who answered, through which surface, when known (docs/sessions.md "Who acted"). */
  answered_by?: { by: string; surface: string };
}

/**
 * Checks that `decision` is one of the four answers (README "Approvals").
 * @throws Error naming the four when it is not.
 */
export function checkDecision(decision: string): asserts decision is Decision {
  if (!(DECISIONS as readonly string[]).includes(decision)) {
    throw new Error(`decision must be allow, allow_always, reject or reject_always, got ${JSON.stringify(decision)}`);
  }
}

/** How long an `allow` answer stays good, in milliseconds (one hour). */
export const ALLOW_TTL_MS = 3600_000;

/** The serialisable state of an approval book (for stores). */
export interface ApprovalSnapshot {
  requests: ApprovalRequest[];
  grants: Array<{ key: string; expires: number }>;
  refusals: Array<{ key: string; expires: number }>;
  alwaysTools: string[];
  deniedTools: string[];
  approvedOnce: string[];
}

/** A request answered already (by another person, or the same one twice): nothing changed. */
export class AnsweredError extends Error {
  /** `req` was answered before this answer came: says how, by whom (when known) and when. */
  constructor(req: ApprovalRequest) {
    const who = req.answered_by ? ` by ${req.answered_by.by} (${req.answered_by.surface})` : "";
    super(`approval request ${req.id} was already answered: ${req.decision}${who}${req.answered_at ? ` at ${req.answered_at}` : ""}`);
  }
}

/** One session's approvals. All methods are synchronous and never throw except `answer`. */
export class ApprovalBook {
  readonly sessionId: string;
  private requests = new Map<string, ApprovalRequest>();
  private grants = new Map<string, number>();
  private refusals = new Map<string, number>();
  private alwaysTools = new Set<string>();
  private deniedTools = new Set<string>();
  /** Tools with a `once()` policy a person said yes to. */
  readonly approvedOnce = new Set<string>();
  /** Called after every change (stores persist the snapshot). */
  onChange?: (snapshot: ApprovalSnapshot) => void;
  /** The clock, in epoch milliseconds (tests move it). */
  now: () => number = Date.now;

  constructor(sessionId: string, snapshot?: ApprovalSnapshot) {
    this.sessionId = sessionId;
    if (snapshot) {
      for (const r of snapshot.requests) this.requests.set(r.id, r);
      for (const g of snapshot.grants) this.grants.set(g.key, g.expires);
      for (const g of snapshot.refusals) this.refusals.set(g.key, g.expires);
      snapshot.alwaysTools.forEach((t) => this.alwaysTools.add(t));
      snapshot.deniedTools.forEach((t) => this.deniedTools.add(t));
      snapshot.approvedOnce.forEach((t) => this.approvedOnce.add(t));
    }
  }

  /** The state as plain JSON. */
  snapshot(): ApprovalSnapshot {
    return {
      requests: [...this.requests.values()],
      grants: [...this.grants].map(([key, expires]) => ({ key, expires })),
      refusals: [...this.refusals].map(([key, expires]) => ({ key, expires })),
      alwaysTools: [...this.alwaysTools],
      deniedTools: [...this.deniedTools],
      approvedOnce: [...this.approvedOnce],
    };
  }

  private changed(): void {
    try {
      this.onChange?.(this.snapshot());
    } catch {}
  }

  /**
   * Raises a request for a call, or returns the pending one for the same exact call.
   * @returns the request.
   */
  request(call: { tool: string; toolName: string; input: Record<string, unknown>; why?: string; line?: number; toolCallId: string; scope?: ApprovalScope; subject?: string; definition?: string }): ApprovalRequest {
    const subject = call.subject ?? call.tool;
    const key = callKey(subject, call.input);
    for (const r of this.requests.values()) {
      // A tool redefined since a request was raised gets a new one: the old card showed another tool.
      if (r.status === "pending" && callKey(r.subject ?? r.tool, r.input) === key && r.scope === call.scope?.key && r.definition === call.definition) return r;
    }
    const id = `apr_${randomUUID().replace(/-/g, "").slice(0, 20)}`;
    // A tool_call_id names one pending request: answering by it must never reach another call.
    const taken = [...this.requests.values()].some((r) => r.status === "pending" && r.tool_call_id === call.toolCallId);
    const req: ApprovalRequest = {
      id,
      session_id: this.sessionId,
      tool: call.tool,
      tool_name: call.toolName,
      ...(subject !== call.tool ? { subject } : {}),
      ...(call.definition ? { definition: call.definition } : {}),
      input: call.input,
      ...(call.why ? { why: call.why } : {}),
      ...(call.line !== undefined ? { line: call.line } : {}),
      tool_call_id: taken ? `${call.toolCallId}~${id.slice(4, 12)}` : call.toolCallId,
      ...(call.scope ? { scope: call.scope.key, scripts: call.scope.scripts, ...(call.scope.trigger ? { trigger: call.scope.trigger } : {}) } : {}),
      created_at: new Date(this.now()).toISOString(),
      status: "pending",
    };
    this.requests.set(req.id, req);
    this.changed();
    return req;
  }

  /** Requests still waiting for an answer, oldest first. */
  pending(): ApprovalRequest[] {
    return [...this.requests.values()].filter((r) => r.status === "pending");
  }

  /** One request by id. */
  get(id: string): ApprovalRequest | undefined {
    return this.requests.get(id);
  }

  /**
   * Records the person's answer to a request.
   * @throws Error when the id is unknown, the request was already answered, or the decision is not one of the four.
   */
  answer(requestId: string, decision: Decision, actor?: { by: string; surface: string }): ApprovalRequest {
    // The decision first: a person who typed `maybe` learns the four answers, whatever the id.
    checkDecision(decision);
    const req = this.requests.get(requestId);
    if (!req) throw new Error(`no approval request ${requestId} in session ${this.sessionId}`);
    if (req.status !== "pending") throw new AnsweredError(req);
    const subject = req.subject ?? req.tool;
    const key = callKey(subject, req.input);
    // Allow answers are bound to the tool's definition as shown; refusals to the tool whatever it becomes.
    const allowed = allowSubject(subject, req.definition);
    const expires = this.now() + ALLOW_TTL_MS;
    // Allow answers hold where the call was shown (its script versions); refusals session-wide.
    if (decision === "allow") this.grants.set(scoped(req.scope, callKey(allowed, req.input)), expires);
    if (decision === "allow_always") this.alwaysTools.add(scoped(req.scope, allowed));
    if (decision === "reject") this.refusals.set(key, expires);
    if (decision === "reject_always") this.deniedTools.add(subject);
    // A `once()` tool's yes holds for the definition shown too (a redefined tool asks again).
    if (decision === "allow" || decision === "allow_always") this.approvedOnce.add(scoped(req.scope, allowSubject(req.tool, req.definition)));
    req.status = "answered";
    req.decision = decision;
    req.answered_at = new Date(this.now()).toISOString();
    if (actor) req.answered_by = { by: actor.by, surface: actor.surface };
    this.changed();
    return req;
  }

  /**
   * True when the tool is approved (`allow_always`) for the session, or, for a call made inside
   * saved scripts (`scope`), for those exact script versions.
   */
  allowsAlways(tool: string, scope?: string, exclusive = false): boolean {
    return (!exclusive && this.alwaysTools.has(tool)) || (scope !== undefined && this.alwaysTools.has(scoped(scope, tool)));
  }

  /**
   * True when a person said yes to this `once()` tool in the session (unless `exclusive`), or in
   * this scope. `tool` is the command bound to its definition (`allowSubject`).
   */
  approvedOnceIn(tool: string, scope?: string, exclusive = false): boolean {
    return (!exclusive && this.approvedOnce.has(tool)) || (scope !== undefined && this.approvedOnce.has(scoped(scope, tool)));
  }

  /** The `once()` tools a person said yes to that hold in this scope (for approval predicates). */
  approvedToolsIn(scope?: string, exclusive = false): Set<string> {
    const out = new Set<string>();
    const prefix = scope === undefined ? undefined : scoped(scope, "");
    // The names, without the definition each yes is bound to (the predicate judges names).
    const name = (t: string) => t.split("\u0000def:")[0];
    for (const t of this.approvedOnce) {
      if (!t.includes(SCOPE_SEP)) {
        if (!exclusive) out.add(name(t));
      } else if (prefix !== undefined && t.startsWith(prefix)) out.add(name(t.slice(prefix.length)));
    }
    return out;
  }

  /** True when the tool is refused for the session (`reject_always`). */
  deniesAlways(tool: string): boolean {
    return this.deniedTools.has(tool);
  }

  /** True when an unexpired one-off `allow` covers this exact call in this scope (does not use it). */
  hasGrant(tool: string, input: unknown, scope?: string, exclusive = false): boolean {
    return (!exclusive && this.peekOneOff(this.grants, tool, input)) || (scope !== undefined && this.peekOneOff(this.grants, tool, input, scope));
  }

  /** Uses the one-off `allow` for this exact call in this scope. @returns true when one was there and unexpired. */
  useGrant(tool: string, input: unknown, scope?: string, exclusive = false): boolean {
    if (scope !== undefined && this.peekOneOff(this.grants, tool, input, scope)) return this.takeOneOff(this.grants, tool, input, scope);
    return !exclusive && this.takeOneOff(this.grants, tool, input);
  }

  /** True when an unexpired one-off `reject` refuses this exact call (does not use it). */
  hasRefusal(tool: string, input: unknown): boolean {
    return this.peekOneOff(this.refusals, tool, input);
  }

  /** Uses a one-off `reject` for this exact call. @returns true when the call is refused. */
  useRefusal(tool: string, input: unknown): boolean {
    return this.takeOneOff(this.refusals, tool, input);
  }

  private peekOneOff(answers: Map<string, number>, tool: string, input: unknown, scope?: string): boolean {
    const exp = answers.get(scoped(scope, callKey(tool, input)));
    return exp !== undefined && exp > this.now();
  }

  /** Removes the one-off answer for this exact call; true when it was there and unexpired. */
  private takeOneOff(answers: Map<string, number>, tool: string, input: unknown, scope?: string): boolean {
    const key = scoped(scope, callKey(tool, input));
    const exp = answers.get(key);
    if (exp === undefined) return false;
    answers.delete(key);
    this.changed();
    return exp > this.now();
  }
}

/** Between a scope key and what it scopes (never in a command or a canonical input's start). */
const SCOPE_SEP = "\u0001";

/** `key` bound to a scope (unchanged without one). */
function scoped(scope: string | undefined, key: string): string {
  return scope === undefined ? key : `${scope}${SCOPE_SEP}${key}`;
}

/**
 * The line an approval card shows for a request made inside saved scripts, e.g. `inside saved
 * script payout v2 (body sha256 1f2e3d4c5b6a)`; undefined outside any.
 */
export function describeScripts(req: Pick<ApprovalRequest, "scripts" | "trigger">): string | undefined {
  const run = req.trigger ? `in a run of trigger ${req.trigger.name ?? req.trigger.id}` : "";
  if (!req.scripts?.length) return run ? `${run}: the answer holds for its runs only` : undefined;
  const inside = `inside saved script ${req.scripts.map((s) => `${s.name} v${s.version} (body sha256 ${s.body_sha256.slice(0, 12)})`).join(" → ")}`;
  return `${run ? `${run}, ` : ""}${inside}: the answer holds for this version${run ? " in its runs" : ""} only`;
}
