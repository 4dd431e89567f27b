/**
 * Sign-in through the MCP gateway: when a script's call met an MCP server that needs the
 * person's sign-in, and the client supports URL-mode elicitation, the gateway asks the person to
 * open the authorization URL (`elicitation/create` with `mode: "url"`), waits for the sign-in to
 * finish on the host's loopback listener, and tells the client with
 * `notifications/elicitation/complete`. The script is not run again (part of it may have run):
 * the result says to run it again.
 *
 * See MCP spec 2025-11-25 "Elicitation" → URL Mode (capability `elicitation.url`, `elicitationId`,
 * completion notification); README → Sign-in.
 */
import { randomUUID } from "node:crypto";
import type { ServerContext } from "@modelcontextprotocol/server";
import type { Session, ToolShell } from "../runtime/index.js";

/** How long the gateway waits for the person to finish a sign-in they accepted (milliseconds). */
export const SIGN_IN_WAIT_MS = 5 * 60_000;

/** True when the client declared URL-mode elicitation (`capabilities.elicitation.url`). */
export function supportsUrlElicitation(capabilities: { elicitation?: Record<string, unknown> } | undefined): boolean {
  const e = capabilities?.elicitation;
  return !!e && typeof e === "object" && e.url !== undefined;
}

/** One sign-in the gateway asked about, as the `bash` result reports it. */
export interface SignInNote {
  server: string;
  /** The client's answer: accept, decline, cancel, or `error: …`. */
  action: string;
  signed_in: boolean;
  next: string;
}

/**
 * Asks the person, through URL-mode elicitation, about each sign-in the session's calls left
 * pending. Returns what happened (empty when nothing was pending). Never throws.
 */
export async function askSignIns(shell: ToolShell, session: Session, ctx: ServerContext, waitMs = SIGN_IN_WAIT_MS): Promise<SignInNote[]> {
  const notes: SignInNote[] = [];
  for (const pending of shell.oauth.broker.pending({ sessionId: session.id })) {
    const elicitationId = randomUUID();
    const waited = shell.oauth.broker.wait(pending.server, pending.principal, AbortSignal.any([ctx.mcpReq.signal, AbortSignal.timeout(waitMs)]));
    let action: string;
    try {
      const result = await ctx.mcpReq.send(
        {
          method: "elicitation/create",
          params: { mode: "url", elicitationId, url: pending.url, message: `The MCP server "${pending.server}" needs you to sign in. Open the link to sign in; then the agent can run its script again.` },
        },
        { signal: ctx.mcpReq.signal, timeout: waitMs },
      );
      action = result.action;
    } catch (err) {
      action = `error: ${err instanceof Error ? err.message : String(err)}`;
    }
    let signedIn = false;
    if (action === "accept") {
      signedIn = (await waited).ok;
      if (signedIn) {
        await ctx.mcpReq.notify({ method: "notifications/elicitation/complete", params: { elicitationId } }).catch(() => {});
      }
    }
    notes.push({
      server: pending.server,
      action,
      signed_in: signedIn,
      next: signedIn ? "signed in: run the script again (a new one for what is left)" : `not signed in: the person can run \`toolshell auth ${pending.server}\``,
    });
  }
  return notes;
}
