/**
 * Saved scripts as a source of tools: `tools scripts NAME k=v` runs one in a nested shell over
 * the same session filesystem, with the same `tools` command and the caller's shell call (its
 * budget, approvals, stop state). The input is checked against the script's schema and arrives
 * on stdin as JSON; what the script prints is its result.
 *
 * See docs/sessions.md → Saved scripts.
 */
import { createHash } from "node:crypto";
import type { ApprovalScope, ScriptVersionRef } from "../policy/index.js";
import { currentOrigins, withOrigin, type Session } from "../runtime/index.js";
import type { ScriptRecord, Store } from "../store/index.js";
import { jsonSchemaValidator, ToolCallError, type CatalogTool, type InvokeContext, type ToolOutput, type ToolSource } from "../tool/index.js";

/** The source's name: `tools scripts …`. */
export const SCRIPTS_SOURCE = "scripts";

/** How deep saved scripts may call each other (the caller's shell is depth 0). */
export const MAX_SCRIPT_DEPTH = 4;

/** Characters of a failed script's stderr kept in its error message. */
const STDERR_TAIL = 1500;

/**
 * Put before every saved script's body: inside a saved script there is no `curl` and no
 * `toolshell` command, whatever the session's shell has. One line, so line numbers shift by one.
 */
export const SCRIPT_PRELUDE =
  'curl() { echo "curl: not available inside a saved script" >&2; return 127; }; ' +
  'toolshell() { echo "toolshell: not available inside a saved script" >&2; return 127; }\n';

/**
 * The saved script versions the code running now is inside, outermost first (from the call
 * lineage that `withOrigin` keeps, which also gives tools `ctx.session.parent`).
 */
function runningScripts(): ScriptVersionRef[] {
  return currentOrigins()
    .filter((o) => o.kind === "saved_script")
    .map((o) => ({ name: o.id, version: o.version ?? 0, body_sha256: o.sha256 ?? "" }))
    .reverse();
}

/** How deep the code running now is in saved scripts (0 outside any). */
export function scriptDepth(): number {
  return runningScripts().length;
}

/**
 * The approval scope of the code running now: the saved script versions around it (name,
 * version, SHA-256 of the body), or undefined outside any saved script. A person's allow answers
 * to a call made here hold only inside these exact versions (see policy/approvals.ts); a host
 * gives this to `createToolShell({ approvalScope })`.
 */
export function scriptApprovalScope(): ApprovalScope | undefined {
  const chain = runningScripts();
  // A trigger's run (trigger-run.ts marks it) is a scope of its own: exclusive, see approvals.ts.
  const trigger = currentOrigins().find((o) => o.kind === "trigger");
  if (!chain.length && !trigger) return undefined;
  const scripts = chain.length ? `scripts:${createHash("sha256").update(chain.map((s) => s.body_sha256).join("/")).digest("hex")}` : "";
  if (!trigger) return { key: scripts, scripts: chain };
  const key = [`trigger:${trigger.id}`, scripts].filter(Boolean).join("/");
  return { key, scripts: chain, trigger: { id: trigger.id, ...(trigger.name ? { name: trigger.name } : {}) }, exclusive: true };
}

/** SHA-256 (hex) of a saved script's body: what answers given for it or inside it are bound to. */
export function bodySha256(body: string): string {
  return createHash("sha256").update(body, "utf8").digest("hex");
}

/** The agent a session belongs to: `metadata.agent_id`, else `default`. */
export function agentOf(session: Session): string {
  const a = session.metadata.agent_id;
  return typeof a === "string" && a ? a : "default";
}

function tail(s: string, n: number): string {
  const t = s.trim();
  return t.length > n ? "…" + t.slice(t.length - n) : t;
}

/**
 * Runs a saved script's body in the session's shell: same filesystem, same `tools` command and
 * shell call (found through async context), stdin = the input as JSON, fresh variables.
 * @throws ToolCallError `call_limit` past {@link MAX_SCRIPT_DEPTH}; `stopped` when the caller's
 *         shell call stopped while it ran (an approval, the call limit, the time limit);
 *         `tool_error` when it exits non-zero (with the end of its stderr).
 */
export async function runSavedScript(session: Session, script: ScriptRecord, input: Record<string, unknown>, ctx: InvokeContext): Promise<ToolOutput> {
  const level = scriptDepth() + 1;
  if (level > MAX_SCRIPT_DEPTH) {
    throw new ToolCallError("call_limit", `saved scripts call each other at most ${MAX_SCRIPT_DEPTH} deep; tools scripts ${script.name} would be level ${level}`);
  }
  const sha256 = bodySha256(script.body);
  const r = await withOrigin({ kind: "saved_script", id: script.name, version: script.version, sha256 }, () =>
    session.engine.exec(SCRIPT_PRELUDE + script.body, {
      signal: ctx.signal,
      stdin: JSON.stringify(input) + "\n",
      env: { TOOLSHELL_SCRIPT: script.name, TOOLSHELL_SCRIPT_VERSION: String(script.version), TOOLSHELL_SCRIPT_DEPTH: String(level) },
    }),
  );
  if (ctx.signal.aborted) {
    throw new ToolCallError("stopped", `the shell call stopped while saved script ${script.name} ran; see the report`);
  }
  if (r.exitCode !== 0) {
    throw new ToolCallError("tool_error", `saved script ${script.name} exited with ${r.exitCode}${r.stderr.trim() ? `: ${tail(r.stderr, STDERR_TAIL)}` : ""}`);
  }
  return { kind: "text", text: r.stdout, raw: { stdout: r.stdout, stderr: r.stderr, exit_code: r.exitCode } };
}

/** The saved scripts of one session's agent, as the catalog sees them. */
export class ScriptsSource implements ToolSource {
  readonly name = SCRIPTS_SOURCE;
  readonly kind = "scripts" as const;
  private readonly cache = new Map<string, CatalogTool>();

  constructor(
    private readonly store: Store,
    private readonly session: Session,
  ) {}

  state() {
    return "ready" as const;
  }

  /** The agent's scripts as last read (see {@link refresh}). */
  private scripts: ScriptRecord[] = [];

  /** Reads the agent's scripts that are not archived, newest version of each (before every shell call). */
  async refresh(): Promise<void> {
    try {
      this.scripts = await this.store.listScripts(agentOf(this.session));
    } catch {
      // The store is down: the scripts read last stay listed.
    }
  }

  /** The agent's scripts, as of the last {@link refresh}. */
  tools(): CatalogTool[] {
    return this.scripts.map((s) => this.tool(s));
  }

  async load(): Promise<void> {}

  private tool(s: ScriptRecord): CatalogTool {
    const key = `${s.id}@${s.version}`;
    const hit = this.cache.get(key);
    if (hit) return hit;
    let validator: ReturnType<typeof jsonSchemaValidator> | undefined;
    const session = this.session;
    const store = this.store;
    const sha256 = bodySha256(s.body);
    const tool: CatalogTool = {
      name: s.name,
      source: SCRIPTS_SOURCE,
      grouped: true,
      description: s.description || `Saved script ${s.name} (v${s.version}).`,
      inputSchema: s.input_schema,
      hints: {},
      hintsDeclared: false,
      // The body is part of the definition an answer for `tools scripts NAME` is bound to.
      revision: sha256,
      // The script itself asks nothing: every `tools` call inside it is judged on its own.
      approval: { kind: "never" },
      async validate(input) {
        try {
          validator ??= jsonSchemaValidator(s.input_schema);
        } catch (err) {
          return { ok: false, errors: [`the saved script's input schema does not compile: ${(err as Error).message}`] };
        }
        return validator(input);
      },
      async invoke(input, ctx) {
        // The version current when the call is made, which must be the body this call was judged
        // with: one saved since (by another session) was never judged, nor shown to a person.
        const current = await store.getScript(agentOf(session), s.id) ?? s;
        if (current.archived) throw new ToolCallError("unknown_command", `saved script ${s.name} is archived`);
        if (bodySha256(current.body) !== sha256) {
          throw new ToolCallError("unavailable", `saved script ${s.name} was saved again (v${current.version}) after this call was checked against v${s.version}; run it again`, true);
        }
        refuseUnvouched(current, ctx.session.metadata);
        return runSavedScript(session, current, input, ctx);
      },
    };
    this.cache.set(key, tool);
    return tool;
  }
}

/**
 * A trigger acting for a principal other than its agent's (an operator's trigger in an agent's
 * namespace) runs only script versions saved before that principal last changed it: a version
 * saved since (by the agent, whose tokens can save its scripts) was never seen by the person
 * whose sign-ins the run uses (docs/security.md "Who acts for whom").
 * @throws ToolCallError `denied` naming the version and what to do.
 */
function refuseUnvouched(script: ScriptRecord, metadata: Record<string, unknown>): void {
  const trigger = currentOrigins().find((o) => o.kind === "trigger" && o.vouchedAt);
  if (!trigger?.vouchedAt || script.updated_at <= trigger.vouchedAt) return;
  const who = typeof metadata.principal === "string" ? metadata.principal : "its principal";
  throw new ToolCallError(
    "denied",
    `saved script ${script.name} v${script.version} was saved at ${script.updated_at}, after ${who} last changed trigger ${trigger.name ?? trigger.id} (${trigger.vouchedAt}); ` +
      `a trigger acting for ${who} runs only script versions saved before that: ${who} (or an operator) changes the trigger to accept this version`,
  );
}
