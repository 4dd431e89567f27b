/**
 * The HTTP gateway's 2026-07-28 face: stateless, one server instance per request (the SDK's
 * `createMcpHandler`, strict on this era; 2025 requests keep the session-per-`Mcp-Session-Id`
 * path of http-server.ts). With no `Mcp-Session-Id`, a request's toolshell session is the
 * principal's: `mcp_<principal>` for the client's bearer token (the same token, the same files,
 * approvals and events, on every replica sharing the store), or `mcp_<principal>_<name>` when the
 * request names one in `_meta["toolshell/session"]`. Questions for the person are
 * `input_required` answers whose `requestState` every replica can verify (request-state.ts).
 *
 * See MCP spec 2026-07-28 "Transports" → Streamable HTTP (no sessions; the version and the
 * client's capabilities in each request's `_meta`) and "Multi Round-Trip Requests"; docs/mcp.md →
 * Gateway, 2026-07-28 clients.
 */
import { createMcpHandler, isLegacyRequest, type AuthInfo, type McpHttpHandler } from "@modelcontextprotocol/server";
import type { ToolShell } from "../runtime/index.js";
import type { Store } from "../store/index.js";
import { createGatewayServer, followGatewayTools, type GatewayOptions } from "./mcp-server.js";
import { gatewayCodec, requestStateKeys } from "./request-state.js";

/** The `_meta` key a 2026 request may name its toolshell session with (within its principal's). */
export const SESSION_META_KEY = "toolshell/session";
const SESSION_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** The toolshell session of a 2026 request: the principal's, or one it names in `_meta`. @throws Error on a bad name. */
export function modernSessionId(principal: string, body: unknown): string {
  const base = `mcp_${principal.replace(/[^A-Za-z0-9_-]/g, "_")}`;
  const meta = (body as { params?: { _meta?: Record<string, unknown> } } | undefined)?.params?._meta;
  const name = meta?.[SESSION_META_KEY];
  if (name === undefined) return base;
  if (typeof name !== "string" || !SESSION_NAME.test(name)) throw new Error(`_meta["${SESSION_META_KEY}"] must be 1-64 characters of A-Z a-z 0-9 _ . -`);
  return `${base}_${name}`;
}

/** True when the request is 2026-07-28 traffic (the SDK's own classification of the parsed body and headers). */
export async function isModernRequest(method: string, headers: Record<string, string>, parsedBody: unknown): Promise<boolean> {
  if (method !== "POST") return false;
  return !(await isLegacyRequest(new Request("http://127.0.0.1/mcp", { method, headers }), parsedBody));
}

/**
 * The 2026 handler: each request gets a gateway server of the modern era over its principal's
 * toolshell session. `authInfo.clientId` is the principal; `authInfo.extra.session` the session.
 */
export function modernHandler(shell: ToolShell, options: GatewayOptions, store?: Partial<Pick<Store, "listShared" | "putShared">>): McpHttpHandler & { stop(): Promise<void> } {
  const keys = requestStateKeys(store?.listShared && store.putShared ? (store as Pick<Store, "listShared" | "putShared">) : undefined);
  const handler = createMcpHandler(
    async ({ authInfo }) => {
      // An agent token's session acts for its name (http-server.ts actingFor); an operator's as the config's person.
      const acting = typeof authInfo?.extra?.acting === "string" ? authInfo.extra.acting : undefined;
      const session = shell.session(String(authInfo?.extra?.session ?? "mcp_anonymous"), acting ? { principal: acting, agent_id: acting } : undefined);
      await session.ready;
      return createGatewayServer(shell, session, { ...options, era: "modern", codec: gatewayCodec(await keys()) });
    },
    { legacy: "reject" },
  );
  // Clients listening (`subscriptions/listen`) hear of servers added, changed or removed, of a
  // server's own tool list changing, and of a server loaded at start being up.
  const off = followGatewayTools(shell, () => handler.notify.toolsChanged());
  return Object.assign(handler, {
    stop: async () => {
      off();
      await handler.close();
    },
  });
}

/** The authInfo a 2026 request is served with: its principal and its toolshell session. */
export function modernAuthInfo(principal: string, session: string, acting?: string): AuthInfo {
  return { token: principal, clientId: principal, scopes: [], extra: { session, ...(acting ? { acting } : {}) } };
}
