/**
 * The change log: every change a person makes through the HTTP API, the console or the CLI —
 * servers, saved scripts, triggers, sessions — recorded as a `change.made` event of the session
 * `changes`, with who made it and through which surface. `toolshell events changes` prints it;
 * the console shows it as that session's timeline. Answers to approvals are recorded in their own
 * session (`approval.answered`, with `by` and `surface`).
 *
 * See docs/sessions.md → Who acted.
 */
import type { SessionEvent } from "../call/index.js";

/** The session whose timeline is the change log. No API client may create a session of this id. */
export const CHANGES_SESSION = "changes";

/** Who acted and through which surface. */
export interface Actor {
  /** `api`, `console`, `cli`, `mcp`, … */
  surface: string;
  /** The token's name (`server.tokens[].name`, else `token-N`), the MCP client, or the local user for the CLI. */
  by: string;
}

const SHELL_OR_ANSWER = /^\/v1\/sessions\/[^/]+\/(bash|tool-approvals|questions)(\/|$)/;

/**
 * What a mutating API request changes, in words, or undefined when it is not a change of the
 * log (a shell call, an approval answer or a question's answer is in its session's timeline; a
 * webhook delivery is a trigger run). `name` is the body's `name`, when it has one; `patch` the
 * body of a change (its fields are named); `known` gives a trigger's name for its id.
 */
export function describeChange(method: string, path: string, name?: string, patch?: Record<string, unknown>, known?: (id: string) => string | undefined): string | undefined {
  if (method === "GET" || method === "HEAD" || method === "OPTIONS") return undefined;
  if (SHELL_OR_ANSWER.test(path) || path.startsWith("/v1/webhooks/")) return undefined;
  const p = path.split("/").map((x) => {
    try {
      return decodeURIComponent(x);
    } catch {
      return x;
    }
  });
  const named = name ? ` ${name}` : "";
  if (p[2] === "servers") {
    if (method === "POST" && p.length === 3) return `server${named} added`;
    if (method === "PUT") return `server ${p[3]} changed`;
    if (method === "DELETE") return `server ${p[3]} removed`;
  }
  if (p[2] === "sessions" && method === "POST" && p.length === 3) return `session${named} created`;
  if (p[2] === "agents" && p[4] === "scripts") {
    const agent = p[3];
    if (method === "POST" && p.length === 5) return `script${named} saved (agent ${agent})`;
    if (method === "PUT" || method === "PATCH") return `script ${p[5]} saved (agent ${agent})`;
    if (method === "DELETE") return `script ${p[5]} archived (agent ${agent})`;
  }
  if (p[2] === "agents" && p[4] === "triggers") {
    const agent = p[3];
    // The trigger by its name (the console sends its id), and what a change changed.
    const trigger = known?.(p[5]) ?? p[5];
    const fields = Object.keys(patch ?? {});
    const how = fields.length === 1 && fields[0] === "enabled" ? (patch!.enabled ? "enabled" : "disabled") : fields.length ? `changed (${fields.sort().join(", ")})` : "changed";
    if (method === "POST" && p.length === 5) return `trigger${named} created (agent ${agent})`;
    if (method === "POST" && p[6] === "run") return `trigger ${trigger} run now (agent ${agent})`;
    if (method === "PATCH") return `trigger ${trigger} ${how} (agent ${agent})`;
    if (method === "DELETE") return `trigger ${trigger} deleted (agent ${agent})`;
  }
  return `${method} ${path}`;
}

/** The event recording a change (session `changes`). */
export function changeEvent(actor: Actor, change: { method: string; path: string; status: number; what: string; replica?: string }): SessionEvent {
  return { session_id: CHANGES_SESSION, at: new Date().toISOString(), type: "change.made", surface: actor.surface, by: actor.by, ...change };
}
