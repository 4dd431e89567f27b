/**
 * Tool Approval: the risk of every call, from hints, config overrides, the tool's own policy,
 * ratings and the person's answers.
 *
 * See README → Approvals; MCP spec 2025-06-18 "Tools" → annotations (untrusted unless from trusted
 * servers; defaults readOnlyHint false, destructiveHint true, openWorldHint true). By default the
 * servers the person configured are trusted (their declared annotations are taken; tools that
 * declare nothing are rated); `approval.trustAnnotations: false` or a server's `"trust": false`
 * opts into the stricter reading, where claims that lower caution are not taken.
 */
import { entryNames, foldName } from "../catalog/index.js";
import { isPromiseLike, type ApprovalPolicy, type ApprovalVerdict, type CatalogTool, type MaybePromise, type ToolCall } from "../tool/index.js";
import type { ApprovalBook, ApprovalRequest, ApprovalScope } from "./approvals.js";
import { allowSubject, approvalSubject, definitionHash } from "./canonical.js";
import type { CallJudge, Judgement, JudgeCall, Why } from "./judge.js";
import { RATED_CHANGES_AT, type Rater } from "./rating.js";

/** Approval mode: `normal` asks for destructive and open-world-changing calls and where a policy asks; `protective` asks for anything not read-only; `off` asks only where config says `always`. */
export type ApprovalMode = "normal" | "protective" | "off";

/** A config override for a tool or a server. */
export type Override = "always" | "never" | "block";

/** Options of the policy. */
export interface PolicyOptions {
  mode?: ApprovalMode;
  /** By tool: `server tool` (either spelling) for MCP tools, the name for top-level tools. */
  tools?: Record<string, Override>;
  /** By server name. */
  servers?: Record<string, Override>;
  /** Take the annotations of servers that say nothing about `trust` as given (default true). */
  trustAnnotations?: boolean;
  /**
   * The `trust` a server's entry says now (undefined: not written, or no such server): `true` is
   * taken as given whatever `trustAnnotations` says, `false` gets the stricter reading. Read at
   * every judgement, so servers added or changed while the host runs are judged by their current
   * entry (README "Approvals"; docs/architecture.md "The composition root").
   */
  serverTrust?: (source: string) => boolean | undefined;
  /**
   * The names of the other tools of the same source that share this tool's folded name
   * (`get-report` and `GET_REPORT`): a rule spelling one of them exactly does not cover this one.
   */
  namesakes?: (tool: CatalogTool) => string[];
  /** Rates tools that declare nothing (and untrusted claims); undefined = ratings off. */
  rater?: Rater;
  /** The approval book of a session, once loaded (see `loadBook`). */
  book(sessionId: string): ApprovalBook;
  /**
   * Loads or reloads the book of a session from where it is kept: undefined when the book in
   * hand is current (judging stays synchronous), else a promise that settles once it is.
   */
  loadBook?(sessionId: string): Promise<void> | undefined;
  /** Drops the book of a session held in memory, so the next load reads it again from where it is kept. */
  forgetBook?(sessionId: string): void;
  /**
   * Where the call being judged is made (the saved script versions around it), read when a call
   * is judged and when its request is raised; allow answers are bound to it (see approvals.ts).
   * Default: no scope, answers hold for the session.
   */
  scope?: () => ApprovalScope | undefined;
}

/** Who asks for an assessment: the session, the call and its command words. */
export interface AssessContext {
  sessionId: string;
  sessionMetadata: Record<string, unknown>;
  callId: string;
  command: string;
}

/** The static part of a call's risk: before the person's answers. */
export interface Assessment {
  risk: "read_only" | "changes" | "needs_approval" | "blocked" | "denied";
  why?: Why;
  message?: string;
}

function verdictKind(v: ApprovalVerdict): { kind: string; reason?: string } {
  if (typeof v === "boolean") return { kind: v ? "user-approval" : "approved" };
  if (typeof v === "string") return { kind: v };
  if (v && typeof v === "object" && typeof v.type === "string") return { kind: v.type, reason: v.reason };
  return { kind: "user-approval" };
}

/** The strictest of several rules for one tool: `block`, then `always`, then `never`. */
function strictest(list: Override[]): Override | undefined {
  if (list.length === 0) return undefined;
  return list.includes("block") ? "block" : list.includes("always") ? "always" : list[0];
}

/** What a call refused by a person's one-off `reject` answers (`denied`). */
export function refusedMessage(command: string): string {
  return `${command} with this input was refused by a person (reject)`;
}

/** The policy: a CallJudge for the runtime, and `assess` for plans. */
export class Policy implements CallJudge {
  #mode: ApprovalMode = "normal";
  private readonly options: PolicyOptions;
  /** Tool rules as written (matched in the one canonical form, catalog/names.ts). */
  private toolOverrides: Array<[string, Override]> = [];
  private readonly serverOverrides = new Map<string, Override>();

  constructor(options: PolicyOptions) {
    this.options = options;
    this.setRules(options);
  }

  /** The approval mode in force. */
  get mode(): ApprovalMode {
    return this.#mode;
  }

  /**
   * Replaces the rules written in the config (mode, per-tool and per-server overrides,
   * `trustAnnotations`): a running host whose config file changed judges the next call by the new
   * ones (README "Changing servers while running").
   * @returns the names of what changed (`mode`, `tools`, `servers`, `trustAnnotations`).
   */
  setRules(rules: Pick<PolicyOptions, "mode" | "tools" | "servers" | "trustAnnotations">): string[] {
    const changed: string[] = [];
    const mode = rules.mode ?? "normal";
    if (mode !== this.#mode) changed.push("mode");
    this.#mode = mode;
    const fill = (map: Map<string, Override>, entries: Record<string, Override>, key: (k: string) => string, what: string) => {
      const before = JSON.stringify([...map]);
      map.clear();
      for (const [k, v] of Object.entries(entries)) map.set(key(k), v);
      if (JSON.stringify([...map]) !== before) changed.push(what);
    };
    const tools = Object.entries(rules.tools ?? {});
    if (JSON.stringify(tools) !== JSON.stringify(this.toolOverrides)) changed.push("tools");
    this.toolOverrides = tools;
    fill(this.serverOverrides, rules.servers ?? {}, (k) => foldName(k), "servers");
    if ((rules.trustAnnotations !== false) !== (this.options.trustAnnotations !== false)) changed.push("trustAnnotations");
    this.options.trustAnnotations = rules.trustAnnotations;
    return changed;
  }

  /**
   * Whether a source's annotations are taken as given: toolshell's own sources always; a server
   * with `trust` written, as written; any other server unless `trustAnnotations` is false.
   */
  trusts(source: string): boolean {
    if (source === "local" || source === "scripts") return true;
    return this.options.serverTrust?.(source) ?? this.options.trustAnnotations !== false;
  }

  /** The approval book of a session, which must be current: inside a judgement, or after {@link openBook}. */
  book(sessionId: string): ApprovalBook {
    return this.options.book(sessionId);
  }

  /**
   * The approval book of a session, loaded (or reloaded when changed elsewhere) first. With
   * `fresh`, the book in memory is dropped and read again (another replica may have answered:
   * docs/deployment.md).
   */
  async openBook(sessionId: string, options: { fresh?: boolean } = {}): Promise<ApprovalBook> {
    if (options.fresh) this.options.forgetBook?.(sessionId);
    await this.options.loadBook?.(sessionId);
    return this.options.book(sessionId);
  }

  private override(tool: CatalogTool): Override | undefined {
    // One canonical form for every rule, however it is spaced or cased (README "Approvals" → Overrides);
    // of two tools sharing a folded name, a rule spelling one exactly covers only that one.
    const others = this.toolOverrides.length ? (this.options.namesakes?.(tool) ?? []) : [];
    const own = strictest(this.toolOverrides.filter(([k]) => entryNames(k, tool, others)).map(([, v]) => v));
    return own ?? (tool.grouped ? this.serverOverrides.get(foldName(tool.source)) : undefined);
  }

  /**
   * The risk of a call before the person's answers: config overrides, then the tool's own
   * policy, then the mode with the hints (trusted or not) and the rating. Synchronous unless an
   * approval predicate or the rater has to be awaited.
   */
  assess(tool: CatalogTool, input: Record<string, unknown>, ctx: AssessContext): MaybePromise<Assessment> {
    const override = this.override(tool);
    if (override === "block") return { risk: "blocked", message: `${ctx.command} is blocked by configuration` };
    // A tool file that did not load runs nothing (every call answers `unavailable`, tool/load.ts):
    // nobody is asked to allow a call that cannot run.
    if (tool.notLoaded) return { risk: "changes" };
    const trusted = this.trusts(tool.source);
    const readOnly = trusted ? tool.hints.readOnly === true : false;
    const base: Assessment = { risk: readOnly ? "read_only" : "changes" };
    if (override === "always") return { risk: "needs_approval", why: "policy" };
    if (override === "never") return base;
    const policy = tool.approval;
    const off = this.mode === "off";
    if (policy) {
      if (off && policy.kind !== "predicate") return base;
      if (policy.kind === "always") return { risk: "needs_approval", why: "policy" };
      if (policy.kind === "never") return base;
      if (policy.kind === "once") {
        const sc = this.currentScope();
        // Bound to the definition the person was shown, as every allow is (canonical.ts).
        const subject = allowSubject(ctx.command, definitionHash(tool));
        return this.book(ctx.sessionId).approvedOnceIn(subject, sc?.key, sc?.exclusive) ? base : { risk: "needs_approval", why: "policy" };
      }
      if (policy.kind === "predicate") return this.assessPredicate(policy.fn, tool, input, ctx, base, trusted);
    }
    return this.assessByHints(tool, base, trusted);
  }

  /** The tool's approval predicate decides; `not-applicable` falls back to the hints. */
  private async assessPredicate(
    fn: Extract<ApprovalPolicy, { kind: "predicate" }>["fn"],
    tool: CatalogTool,
    input: Record<string, unknown>,
    ctx: AssessContext,
    base: Assessment,
    trusted: boolean,
  ): Promise<Assessment> {
    const off = this.mode === "off";
    let verdict: ApprovalVerdict;
    try {
      verdict = await fn({ toolName: tool.name, input, session: { id: ctx.sessionId, metadata: ctx.sessionMetadata }, approvedTools: this.book(ctx.sessionId).approvedToolsIn(this.currentScope()?.key, this.currentScope()?.exclusive), callId: ctx.callId });
    } catch (err) {
      return { risk: "needs_approval", why: "policy", message: `the approval predicate failed: ${(err as Error).message}` };
    }
    const v = verdictKind(verdict);
    if (v.kind === "user-approval") return off ? base : { risk: "needs_approval", why: "policy", message: v.reason };
    if (v.kind === "denied") return { risk: "denied", message: v.reason ?? `${ctx.command} was denied by its approval policy` };
    if (v.kind === "approved") return base;
    // not-applicable: the hints and the mode decide.
    return this.assessByHints(tool, base, trusted);
  }

  /** The mode with the hints (trusted or not) and, where they say too little, the rating. */
  private assessByHints(tool: CatalogTool, base: Assessment, trusted: boolean): MaybePromise<Assessment> {
    if (this.mode === "off" || base.risk === "read_only") return base;
    const h = tool.hints;
    // Untrusted claims that lower caution are dropped; claims that add caution are kept.
    const destructiveDeclared = h.destructive === true || (trusted && h.destructive === false);
    const openWorldDeclared = h.openWorld === true || (trusted && h.openWorld === false);
    const declaredSome = trusted ? tool.hintsDeclared : h.destructive === true || h.openWorld === true;
    // MCP defaults (destructive, open world) apply to a tool that declared something, never to
    // one that declared nothing (README "Approvals": such tools run without asking in normal mode).
    const destructive = destructiveDeclared ? h.destructive === true : declaredSome;
    const openWorld = openWorldDeclared ? h.openWorld === true : declaredSome;
    const decide = (rated: boolean): Assessment => {
      if (destructive) return { risk: "needs_approval", why: "destructive" };
      if (openWorld) return { risk: "needs_approval", why: "open_world" };
      if (rated) return { risk: "needs_approval", why: "rated_changes" };
      if (this.mode === "protective") return { risk: "needs_approval", why: "mutating" };
      return base;
    };
    const rater = this.options.rater;
    if (rater && (!trusted || !tool.hintsDeclared) && !destructive) {
      // A rating kept once stands (rating.ts): later calls decide without waiting.
      const known = rater.known(tool);
      if (known !== undefined) return decide(known >= RATED_CHANGES_AT);
      return rater.rate(tool).then((score) => decide(score >= RATED_CHANGES_AT));
    }
    return decide(false);
  }

  /**
   * Judges one call with its real input and the session's answers. A one-off `allow` is used up
   * here (the call is about to be made); a one-off `reject` too. Synchronous when `assess` is.
   */
  judge(call: JudgeCall): MaybePromise<Judgement> {
    return this.judgeWith(call, true);
  }

  /** As `judge`, without using up one-off answers (for plans). */
  peek(call: JudgeCall): MaybePromise<Judgement> {
    return this.judgeWith(call, false);
  }

  private judgeWith(call: JudgeCall, consume: boolean): MaybePromise<Judgement> {
    const loading = this.options.loadBook?.(call.sessionId);
    if (loading) return loading.then(() => this.judgeWith(call, consume));
    const a = this.assess(call.tool, call.input, { sessionId: call.sessionId, sessionMetadata: call.sessionMetadata, callId: call.callId, command: call.command });
    return isPromiseLike(a) ? Promise.resolve(a).then((x) => this.withAnswers(call, consume, x)) : this.withAnswers(call, consume, a);
  }

  /**
   * The assessment with the session's answers (grants, refusals, allow_always, reject_always).
   * One-off answers are matched on the input as given (`call.given`), never on what a schema
   * made of it: a transform could map a different input onto the same value.
   */
  private withAnswers(call: JudgeCall, consume: boolean, a: Assessment): Judgement {
    if (a.risk === "blocked") return { risk: "blocked", message: a.message };
    if (a.risk === "denied") return { risk: "blocked", rejected: true, message: a.message };
    const book = this.book(call.sessionId);
    const subject = approvalSubject(call.command, call.tool);
    if (book.deniesAlways(subject)) return { risk: "blocked", rejected: true, message: `${call.command} was refused for this session (reject_always)` };
    if (a.risk !== "needs_approval") return { risk: a.risk, why: a.why };
    if (consume ? book.useRefusal(subject, call.given) : book.hasRefusal(subject, call.given)) {
      return { risk: "needs_approval", why: a.why, rejected: true, message: refusedMessage(call.command) };
    }
    // Where the call is made: answers given in a saved script's version hold there; a trigger's run takes only its own.
    const where = this.currentScope();
    const scope = where?.key;
    const only = where?.exclusive === true;
    // Allow answers hold only for the definition the person was shown (a redefined tool asks again).
    const allowed = allowSubject(subject, definitionHash(call.tool));
    if (book.allowsAlways(allowed, scope, only)) return { risk: "needs_approval", why: a.why, approved: true };
    const granted = consume ? book.useGrant(allowed, call.given, scope, only) : book.hasGrant(allowed, call.given, scope, only);
    if (granted) return { risk: "needs_approval", why: a.why, approved: true, oneOff: true };
    return { risk: "needs_approval", why: a.why, message: a.message };
  }

  /**
   * Raises (or reuses, for the same exact call) the approval request of a call that needs a
   * person's answer, in the current scope (the saved scripts it runs in). The request shows, and
   * its answer covers, the input as given. This is the one way a request is raised (the call
   * pipeline, the preflight before a script starts, and every surface that asks before a call go
   * through it), so a request names its call exactly as {@link judge} looks the answer up.
   * @returns the request.
   */
  requestApproval(call: Pick<ToolCall, "sessionId" | "command" | "tool" | "given" | "callId" | "line">, why?: string): ApprovalRequest {
    return this.book(call.sessionId).request({ tool: call.command, toolName: call.tool.name, input: call.given, why, line: call.line, toolCallId: call.callId, subject: approvalSubject(call.command, call.tool), definition: definitionHash(call.tool), scope: this.currentScope() });
  }

  /** The scope of the call being judged now, if any. Never throws. */
  private currentScope(): ApprovalScope | undefined {
    try {
      return this.options.scope?.();
    } catch {
      return undefined;
    }
  }

}
