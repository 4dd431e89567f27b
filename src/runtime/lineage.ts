/**
 * What started a call — the saved scripts it runs inside, the trigger or parent session of its
 * session — for `ctx.session.parent` (README "ctx"). Saved scripts mark their run with
 * {@link withOrigin}; async context carries it to every nested call the script makes.
 */
import { contextSlot } from "../async/context.js";
import { principalOf } from "../mcp/index.js";
import type { CallOrigin, CallSessionInfo } from "../tool/index.js";

const origins = contextSlot<CallOrigin[]>("toolshell.origins");

/** Runs `fn` with `origin` as the innermost thing that started the calls made inside it. */
export function withOrigin<T>(origin: CallOrigin, fn: () => T): T {
  return origins.run([origin, ...(origins.get() ?? [])], fn);
}

/** What started the code running now, innermost first (empty outside any saved script). */
export function currentOrigins(): CallOrigin[] {
  return origins.get() ?? [];
}

const str = (v: unknown): string | undefined => (typeof v === "string" && v ? v : undefined);

/**
 * Who a session acts for, from its metadata (see `CallSessionInfo.auth`): the principal whose
 * credentials its calls use (the same rule as OAuth sign-in, `principalOf`), its agent, and the
 * client the surface saw.
 */
export function authOf(metadata: Record<string, unknown>): CallSessionInfo["auth"] {
  const agentId = str(metadata.agent_id);
  const client = str(metadata.client);
  return { principal: principalOf(metadata), ...(agentId ? { agentId } : {}), ...(client ? { client } : {}) };
}

/** What started the session itself: a trigger (`trigger_id`, `trigger_name`) or a parent session (`parent_session_id`). */
export function sessionOrigins(metadata: Record<string, unknown>): CallOrigin[] {
  const out: CallOrigin[] = [];
  const trigger = str(metadata.trigger_id);
  if (trigger) out.push({ kind: "trigger", id: trigger, ...(str(metadata.trigger_name) ? { name: str(metadata.trigger_name) } : {}) });
  const parent = str(metadata.parent_session_id);
  if (parent) out.push({ kind: "session", id: parent });
  return out;
}

/**
 * What started a call, innermost first: the saved scripts and trigger run around it, then what
 * started its session, each once (a trigger's run is marked both ways).
 */
export function parentsOf(metadata: Record<string, unknown>): CallOrigin[] {
  const here = currentOrigins();
  return [...here, ...sessionOrigins(metadata).filter((o) => !here.some((h) => h.kind === o.kind && h.id === o.id))];
}

/** Opening a stored session the caller does not own (docs/security.md "Who acts for whom"). */
export class SessionOwnerError extends Error {
  readonly code = "forbidden";
}

/** Who opens a session: the principal it acts for, and the agent it names when it names one. */
export interface SessionOpener {
  principal: string;
  agent?: string;
}

/**
 * The opener a surface's metadata names (`principalOf`, `agent_id`); undefined with `anyOwner`,
 * when the surface checked reach itself (the HTTP API's `mayReach`, the CLI's approvals).
 */
export function openerOf(metadata: Record<string, unknown>, open: { anyOwner?: boolean } = {}): SessionOpener | undefined {
  if (open.anyOwner) return undefined;
  const agent = str(metadata.agent_id);
  return { principal: principalOf(metadata), ...(agent ? { agent } : {}) };
}

/**
 * Why `opener` may not open session `id`, whose stored (or live) metadata says it acts for
 * another principal or agent, or undefined when it may. A stored session belongs to the principal
 * that created it: a surface opening it for anyone else is refused, never handed that principal's
 * answers, files or events (docs/security.md "Who acts for whom"). It acts for one agent too (its
 * saved scripts, its triggers): an opener naming another agent is refused rather than running as
 * that agent in this session. `opener` undefined: any owner is accepted ({@link openerOf}).
 */
export function ownerRefusal(id: string, opener: SessionOpener | undefined, stored: Record<string, unknown>): SessionOwnerError | undefined {
  if (opener === undefined) return undefined;
  const owner = principalOf(stored);
  if (owner !== opener.principal) return new SessionOwnerError(`session ${id} acts for principal ${JSON.stringify(owner)} (its metadata's principal, else its agent_id), not ${JSON.stringify(opener.principal)} who opens it: open it with the same principal or agent_id in its metadata (or pass the Session object itself), or choose another session id`);
  const agent = str(stored.agent_id);
  if (opener.agent && agent && agent !== opener.agent) return new SessionOwnerError(`session ${id} serves agent ${JSON.stringify(agent)}, not ${JSON.stringify(opener.agent)} who opens it: open it for the same agent_id, or choose another session id`);
  return undefined;
}
