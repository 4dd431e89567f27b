/**
 * Approval requests and answers of one session.
 *
 * - `allow`: one exact call (tool + canonical input), used once, lapses after one hour.
 * - `allow_always`: the tool, for the session.
 * - `reject`: refuses that exact call (once, within the hour): it answers `denied`.
 * - `reject_always`: the tool answers `denied` for the session.
 * Silence is not approval: a pending request approves nothing.
 *
 * Rule source: DESIGN.md "Words" (approval answer); seed "Tools in Shell" → Approvals ("A
 * one-off approval covers that exact call (the tool and its input) once"); issue 4 → Answers,
 * `once()` semantics.
 */
import { randomUUID } from "node:crypto";
import { callKey } from "./canonical.js";

/** The person's answer. */
export type Decision = "allow" | "allow_always" | "reject" | "reject_always";

/** A request raised for a stopped call. */
export interface ApprovalRequest {
  id: string;
  session_id: string;
  /** The command, e.g. `tools github delete-branch`. */
  tool: string;
  /** The tool's own name, e.g. `delete_branch`. */
  tool_name: string;
  input: Record<string, unknown>;
  why?: string;
  line?: number;
  /** The nested call id, e.g. `call_bash_2:tools:0:delete_branch`, or the shell call id before start. */
  tool_call_id: string;
  created_at: string;
  status: "pending" | "answered";
  decision?: Decision;
  answered_at?: string;
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
  request(call: { tool: string; toolName: string; input: Record<string, unknown>; why?: string; line?: number; toolCallId: string }): ApprovalRequest {
    const key = callKey(call.tool, call.input);
    for (const r of this.requests.values()) {
      if (r.status === "pending" && callKey(r.tool, r.input) === key) return r;
    }
    const id = `apr_${randomUUID().replace(/-/g, "").slice(0, 20)}`;
    // A tool_call_id names one pending request: answering by it must never reach another call.
    const taken = [...this.requests.values()].some((r) => r.status === "pending" && r.tool_call_id === call.toolCallId);
    const req: ApprovalRequest = {
      id,
      session_id: this.sessionId,
      tool: call.tool,
      tool_name: call.toolName,
      input: call.input,
      ...(call.why ? { why: call.why } : {}),
      ...(call.line !== undefined ? { line: call.line } : {}),
      tool_call_id: taken ? `${call.toolCallId}~${id.slice(4, 12)}` : call.toolCallId,
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
  answer(requestId: string, decision: Decision): ApprovalRequest {
    // The decision first: a person who typed `maybe` learns the four answers, whatever the id.
    if (!["allow", "allow_always", "reject", "reject_always"].includes(decision)) {
      throw new Error(`decision must be allow, allow_always, reject or reject_always, got ${JSON.stringify(decision)}`);
    }
    const req = this.requests.get(requestId);
    if (!req) throw new Error(`no approval request ${requestId} in session ${this.sessionId}`);
    if (req.status !== "pending") throw new Error(`approval request ${requestId} was already answered (${req.decision})`);
    const key = callKey(req.tool, req.input);
    const expires = this.now() + ALLOW_TTL_MS;
    if (decision === "allow") this.grants.set(key, expires);
    if (decision === "allow_always") this.alwaysTools.add(req.tool);
    if (decision === "reject") this.refusals.set(key, expires);
    if (decision === "reject_always") this.deniedTools.add(req.tool);
    if (decision === "allow" || decision === "allow_always") this.approvedOnce.add(req.tool);
    req.status = "answered";
    req.decision = decision;
    req.answered_at = new Date(this.now()).toISOString();
    this.changed();
    return req;
  }

  /** True when the tool is approved for the session (`allow_always`). */
  allowsAlways(tool: string): boolean {
    return this.alwaysTools.has(tool);
  }

  /** True when the tool is refused for the session (`reject_always`). */
  deniesAlways(tool: string): boolean {
    return this.deniedTools.has(tool);
  }

  /** True when an unexpired one-off `allow` covers this exact call (does not use it). */
  hasGrant(tool: string, input: unknown): boolean {
    return this.peekOneOff(this.grants, tool, input);
  }

  /** Uses the one-off `allow` for this exact call. @returns true when one was there and unexpired. */
  useGrant(tool: string, input: unknown): boolean {
    return this.takeOneOff(this.grants, tool, input);
  }

  /** True when an unexpired one-off `reject` refuses this exact call (does not use it). */
  hasRefusal(tool: string, input: unknown): boolean {
    return this.peekOneOff(this.refusals, tool, input);
  }

  /** Uses a one-off `reject` for this exact call. @returns true when the call is refused. */
  useRefusal(tool: string, input: unknown): boolean {
    return this.takeOneOff(this.refusals, tool, input);
  }

  private peekOneOff(answers: Map<string, number>, tool: string, input: unknown): boolean {
    const exp = answers.get(callKey(tool, input));
    return exp !== undefined && exp > this.now();
  }

  /** Removes the one-off answer for this exact call; true when it was there and unexpired. */
  private takeOneOff(answers: Map<string, number>, tool: string, input: unknown): boolean {
    const key = callKey(tool, input);
    const exp = answers.get(key);
    if (exp === undefined) return false;
    answers.delete(key);
    this.changed();
    return exp > this.now();
  }
}
