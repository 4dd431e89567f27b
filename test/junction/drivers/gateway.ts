/**
 * The MCP gateway, `toolshell mcp` built and run as a process (docs/agents.md "Over HTTP" and the
 * client set-ups), driven by the MCP SDK's client as an agent's MCP client is: it calls the
 * gateway's `bash` tool with `command`, and declares form elicitation, so the person answers an
 * approval in the client's form (the gateway then runs a script stopped before start at once) and
 * answers a server's question there too. Progress comes as MCP progress notifications of the
 * `tools/call` (the client sends a `progressToken`). The session's pending approvals and events
 * are read from the world's store, as `toolshell approvals` and `toolshell events` read them.
 *
 * With `era: "2026-07-28"` the client is pinned to that protocol version (no `initialize`, no
 * `Mcp-Session-Id`): the approval comes as an `input_required` result the SDK fulfils through
 * the same form handler, and its retry carries the answer. Over HTTP such a client names its
 * toolshell session in `_meta` (src/gateway/http-modern.ts), within its token's principal.
 */
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { Client, StreamableHTTPClientTransport, type ElicitResult } from "@modelcontextprotocol/client";
import type { Decision } from "../../../src/index.js";
import type { Store } from "../../../src/store/index.js";
import { modernSessionId, SESSION_META_KEY } from "../../../src/gateway/http-modern.js";
import { tokenPrincipal } from "../../../src/gateway/request-state.js";
import { approve } from "../../mcp/oauth-helpers.js";
import type { ListedEvent, Surface, Turn } from "../paths.js";
import { TOKEN, type World } from "../world.js";
import { CLI } from "./cli.js";

/** How the client reaches the gateway: stdio (a process per session) or a running `--http` URL. */
export type GatewayReach = ({ stdio: true } | { url: string }) & { era?: "2026-07-28" };

interface BashValue {
  stdout?: string;
  stderr?: string;
  tools?: { stopped?: { reason?: string } };
  approval?: { asked?: boolean; decision?: string };
}

/** A gateway surface; `close()` ends the client (and a stdio gateway process). */
export async function gatewaySurface(world: World, store: Store, session: string, reach: GatewayReach): Promise<Surface & { close(): Promise<void> }> {
  const era = reach.era;
  const client = new Client({ name: "junction-client", version: "1.0.0" }, { capabilities: { elicitation: { form: {}, url: {} } }, ...(era ? { versionNegotiation: { mode: { pin: era } } } : {}) });
  let decision: Decision = "allow";
  let content: Record<string, unknown> | undefined;
  let approvals = 0;
  let questions = 0;
  const signIns: string[] = [];
  client.setRequestHandler("elicitation/create", async (req): Promise<ElicitResult> => {
    // URL mode (sign-in): the person opens the URL and signs in.
    if (req.params.mode === "url") {
      signIns.push(`${req.params.message} ${req.params.url}`);
      await approve(req.params.url);
      return { action: "accept" };
    }
    if (req.params.message.startsWith("The agent's script needs your approval")) {
      approvals++;
      return { action: "accept", content: { decision } };
    }
    questions++;
    return content ? { action: "accept", content: content as ElicitResult["content"] } : { action: "decline" };
  });
  const transport =
    "stdio" in reach
      ? new StdioClientTransport({ command: process.execPath, args: [CLI, "mcp", "--config", world.config, "--session", session], cwd: world.dir, env: world.env as Record<string, string>, stderr: "pipe" })
      : new StreamableHTTPClientTransport(new URL(reach.url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } });
  // A stdio gateway that will not start says why on its stderr (e.g. a session it may not open).
  let gatewayErr = "";
  if (transport instanceof StdioClientTransport) transport.stderr?.on("data", (d: Buffer) => void (gatewayErr += String(d)));
  try {
    await client.connect(transport);
  } catch (err) {
    throw new Error(`the gateway did not start: ${(err as Error).message}\n${gatewayErr}`, { cause: err });
  }
  const modernHttp = era !== undefined && !("stdio" in reach);
  const meta = { [SESSION_META_KEY]: session };
  const sessionId = "stdio" in reach ? session : modernHttp ? modernSessionId(tokenPrincipal(TOKEN), { params: { _meta: meta } }) : `mcp_${(transport as StreamableHTTPClientTransport).sessionId}`;
  const bash = async (script: string, onprogress?: (p: { message?: string }) => void): Promise<BashValue> => {
    const r = await client.callTool({ name: "bash", arguments: { command: script }, ...(modernHttp ? { _meta: meta } : {}) }, { timeout: 120_000, ...(onprogress ? { onprogress } : {}) });
    const text = (r.content as Array<{ type: string; text?: string }>).find((c) => c.type === "text")?.text ?? "{}";
    return JSON.parse(text) as BashValue;
  };
  const pending = async () => (await store.pendingApprovals()).filter((r) => r.session_id === sessionId).length;
  const out = async (r: BashValue, asked: number): Promise<Turn> => ({ asked, stdout: r.stdout ?? "", stderr: r.stderr ?? JSON.stringify(r), pending: await pending() });
  return {
    name: `gateway${era ? ` ${era}` : ""} over ${"stdio" in reach ? "stdio" : "HTTP"}`,
    async turn(script, answer) {
      decision = answer;
      approvals = 0;
      let r = await bash(script);
      // A script stopped where a built call was reached is not run again by the gateway: the
      // agent runs it again once the person said yes (docs/agents.md, "Approvals").
      for (let i = 0; i < 2 && r.tools?.stopped?.reason === "needs_approval" && r.approval?.decision?.startsWith("allow"); i++) r = await bash(script);
      return out(r, approvals);
    },
    events: async () => (await store.listEvents(sessionId, { limit: 10_000 })) as unknown as ListedEvent[],
    async question(script, answer) {
      content = answer;
      questions = 0;
      const r = await bash(script);
      content = undefined;
      return out(r, questions);
    },
    signIn: {
      way: (server) => new RegExp(`"${server}" needs you to sign in.* http\\S+/authorize\\?`),
      async run(script) {
        signIns.length = 0;
        const before = await bash(script);
        const after = await bash(script);
        return { before: { stdout: before.stdout ?? "", stderr: before.stderr ?? JSON.stringify(before) }, offered: signIns.join("\n"), after: { stdout: after.stdout ?? "", stderr: after.stderr ?? "" } };
      },
    },
    async progress(script) {
      const seen: string[] = [];
      const r = await bash(script, (p) => void (p.message && seen.push(p.message)));
      return { ...(await out(r, 0)), seen };
    },
    close: () => client.close(),
  };
}
