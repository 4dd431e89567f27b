/**
 * The one schema of the config file (`toolshell.config.json`, `.mcp.json`, VS Code's `mcp.json`,
 * Claude Desktop's file): every key, its type, its default and its rule. The TypeScript types
 * below are derived from it, and `schema/toolshell.config.schema.json` is generated from it
 * (`npm run schema`; json-schema.ts).
 *
 * What a schema cannot say is done around it (load.ts, servers.ts): `${VAR}` expansion before,
 * keys of other clients (kept and noted) and near misses (errors) beside, relative paths and
 * folders that must exist after.
 *
 * See README → Configuration; docs/agents.md → Configuration; docs/sessions.md → Config keys; MCP
 * spec 2025-11-25 "Transports" and "Authorization".
 */
import * as z from "zod";
import { strictObject } from "./messages.js";
import { foldName } from "../tool/text.js";
import { tokensSchema } from "./tokens-schema.js";
import { triggerSchema, triggersSchema } from "./triggers-schema.js";

/** Default nested calls per shell call (README "Configuration"). */
export const DEFAULT_CALL_LIMIT = 50;
/** Default time limit of one shell call, in milliseconds. */
export const DEFAULT_TIMEOUT_MS = 120_000;
/** Default bound of what one shell call prints, stdout and stderr together, in bytes (16 MiB; docs/security.md "Bounded output"). */
export const DEFAULT_MAX_OUTPUT_BYTES = 16 * 1024 * 1024;
/** The range `maxOutputBytes` may take: 64 KiB to 256 MiB. */
export const MAX_OUTPUT_BYTES_RANGE = { min: 64 * 1024, max: 256 * 1024 * 1024 } as const;
/** Default bound of the bytes one session's files hold together in memory (64 MiB; docs/security.md "What each limit defends"). */
export const DEFAULT_MAX_SESSION_FILE_BYTES = 64 * 1024 * 1024;
/** The range `maxSessionFileBytes` may take: 1 MiB to 1 GiB. */
export const MAX_SESSION_FILE_BYTES_RANGE = { min: 1024 * 1024, max: 1024 * 1024 * 1024 } as const;
/** Default time to start a server and list its tools, in milliseconds. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
/** Default time one `tools/call` may take, in milliseconds. */
export const DEFAULT_CALL_TIMEOUT_MS = 60_000;
/** Default port of `toolshell serve`. */
export const DEFAULT_PORT = 8787;
/** Default host of `toolshell serve`: loopback only. */
export const DEFAULT_HOST = "127.0.0.1";
/** Default largest request body of the HTTP API, in bytes (1 MiB). */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
export { MIN_TOKEN_LENGTH, defaultRole, TOKEN_ROLES, type TokenRole } from "./tokens-schema.js";
export { triggerSchema } from "./triggers-schema.js";
/** A server's name: its key in `mcpServers` / `servers`, and the first word of `tools <server> …` (at most 64 characters: it names tools, logs and the console's pages). */
export const SERVER_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** What {@link SERVER_NAME} says, for people. */
const SERVER_NAME_RULE = 'a server name must be 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit';

/** Names toolshell's own `tools` words and sources take (`tools search`, `tools scripts …`); no server may have one. */
export const RESERVED_SERVER_NAMES: readonly string[] = ["search", "plan", "help", "scripts", "local"];

/** Key names that would reach an object's prototype rather than name anything: refused as server names, config keys and tool-input fields. */
export const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

/** Why `name` cannot name a server, or undefined when it can (README "Configuration"; `_` and `-` are one letter). */
export function serverNameProblem(name: string): string | undefined {
  if (PROTOTYPE_KEYS.has(name)) return `server name "${name}" is not allowed (it would reach an object's prototype, not name a server): rename it`;
  if (!SERVER_NAME.test(name)) return `${SERVER_NAME_RULE}${name.length > 64 ? ` (this one has ${name.length})` : ""}`;
  if (RESERVED_SERVER_NAMES.includes(foldName(name))) return `server name "${name}" is reserved (${RESERVED_SERVER_NAMES.join(", ")}): rename it`;
  return undefined;
}

const wholeNumber = (min: number, max: number, message: string) => z.int({ error: message }).min(min, { error: message }).max(max, { error: message });
/** Strings, numbers and booleans, as strings (clients write `"N": 3` in `env`). */
const stringish = z.union([z.string(), z.number(), z.boolean()], { error: "expected a string" }).transform(String);
const stringMap = (values: z.ZodType<string, unknown> = stringish) => z.record(z.string(), values, { error: (iss) => (iss.code === "invalid_type" ? "expected an object of strings" : undefined) });
const millis = (dflt: number) => z.int({ error: "expected a positive whole number of milliseconds" }).min(1, { error: "expected a positive whole number of milliseconds" }).default(dflt);

/** An `http://` or `https://` URL (the message tells which of the two is wrong). */
const httpUrl = z
  .string()
  .superRefine((s, ctx) => {
    let url: URL;
    try {
      url = new URL(s);
    } catch {
      ctx.addIssue({ code: "custom", message: `"${s}" is not a URL`, input: s });
      return;
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") ctx.addIssue({ code: "custom", message: "must be http:// or https://", input: s });
    // fetch refuses a URL with credentials (WHATWG Fetch, "Request constructor"); not quoted: it holds them.
    else if (url.username || url.password) ctx.addIssue({ code: "custom", message: "holds a user name or password, which fetch refuses to send: give them as a header instead (\"headers\": { \"Authorization\": \"Basic …\" })", input: "" });
  })
  .meta({ format: "uri", pattern: "^https?://" });

const TRANSPORTS = ["stdio", "http", "sse", "streamable-http", "streamableHttp", "streamable_http"] as const;
const transport = z.enum(TRANSPORTS, { error: (iss) => `${JSON.stringify(iss.input)} is not one of "stdio", "http", "sse"` });

/** `oauth` of a remote server: how to sign in, or `false` to never try. */
export const oauthSchema = z
  .union(
    [
      z.literal(false),
      strictObject({
        clientId: z.string().min(1).optional().describe("A client id registered with the server's authorization server (default: dynamic client registration)."),
        clientSecret: z.string().min(1).optional().describe("The secret of `clientId`, for a confidential client (redacted from every output)."),
        clientMetadataUrl: z
          .string()
          .refine((v) => {
            try {
              const u = new URL(v);
              return u.protocol === "https:" && u.pathname !== "/";
            } catch {
              return false;
            }
          }, "expected an https URL with a path (a Client ID Metadata Document)")
          .optional()
          .describe("The https URL of this client's Client ID Metadata Document, used as the client id where the authorization server supports them (`client_id_metadata_document_supported`)."),
        scope: z.string().min(1).optional().describe("Scopes to ask for, space-separated (default: those the server's challenge names)."),
        callbackPort: wholeNumber(1, 65535, "expected a port number from 1 to 65535").optional().describe("The loopback port of the sign-in redirect (default: one the system picks)."),
      }).refine((o) => !o.clientSecret || o.clientId !== undefined, { message: "needs clientId", path: ["clientSecret"] }),
    ],
    { error: "expected an object or false" },
  )
  .describe("OAuth sign-in to a remote server (see README \"Sign-in\"); `false`: never try OAuth for this server.");

const serverEntryShape = {
  type: transport.optional().describe("stdio | http (Streamable HTTP, falling back to HTTP+SSE) | sse (HTTP+SSE only); streamable-http, streamableHttp and streamable_http mean http. Default: stdio with `command`, http with `url`."),
  transport: transport.optional().describe("Another spelling of `type`."),
  command: z
    .string()
    .refine((s) => s.trim() !== "", { error: "must not be empty" })
    .meta({ minLength: 1 })
    .optional()
    .describe("stdio: the program to start (relative to `cwd` when it has a slash, else looked up on PATH)."),
  args: z.array(stringish, { error: "expected an array of strings" }).optional().describe("stdio: its arguments."),
  env: stringMap().optional().describe("stdio: added to a safe default environment (HOME, PATH, SHELL, TERM, USER, LOGNAME). Values are redacted from every output."),
  cwd: z.string().optional().describe("stdio: its working folder, relative to the config's folder (the default)."),
  url: httpUrl.optional().describe("HTTP: the server's endpoint."),
  headers: stringMap().optional().describe("HTTP: sent with every request. Values are redacted from every output."),
  load: z
    .enum(["eager", "on_demand", "on-demand"], { error: (iss) => `${JSON.stringify(iss.input)} is not "eager" or "on_demand"` })
    .default("eager")
    .describe("eager: started with the host; on_demand: listed as (not loaded) until a command or search names it."),
  connectTimeoutMs: millis(DEFAULT_CONNECT_TIMEOUT_MS).describe("Start + initialise + list tools, in milliseconds; past it: `unavailable`."),
  callTimeoutMs: millis(DEFAULT_CALL_TIMEOUT_MS).describe("One `tools/call`, in milliseconds; past it: `unavailable`."),
  trust: z.boolean().optional().describe("How this server's tool annotations are taken (see README \"Approvals\")."),
  disabled: z.boolean().default(false).describe("Leave the server out."),
  oauth: oauthSchema.optional(),
};

/** The keys a server entry may have; any other is another client's, kept as written. */
export const SERVER_ENTRY_KEYS: readonly string[] = Object.keys(serverEntryShape);

/**
 * One server entry, as written → its transport and settings. The entry's other keys (other
 * clients' settings) are kept in `raw`. Checks that need two keys at once are here too.
 */
export const serverEntrySchema = z
  .looseObject(serverEntryShape, { error: (iss) => (iss.code === "invalid_type" ? 'expected an object with "command" or "url"' : undefined) })
  .meta({
    id: "server",
    description: "One MCP server: stdio (`command`, `args`, `env`, `cwd`) or HTTP (`url`, `headers`, `oauth`). Other keys (other clients' settings) are kept as written.",
    anyOf: [{ required: ["command"] }, { required: ["url"] }],
  })
  .transform((e, ctx) => {
    const raw: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(e)) if (!SERVER_ENTRY_KEYS.includes(k)) raw[k] = v;
    const common = {
      load: e.load === "on-demand" ? ("on_demand" as const) : e.load,
      connectTimeoutMs: e.connectTimeoutMs,
      callTimeoutMs: e.callTimeoutMs,
      ...(e.trust !== undefined ? { trust: e.trust } : {}),
      disabled: e.disabled,
      raw,
    };
    const fail = (message: string, path: string[] = []) => {
      ctx.addIssue({ code: "custom", message, path, input: e });
      return z.NEVER;
    };
    if (e.command !== undefined && e.url !== undefined) return fail('has both "command" and "url"; keep one');
    const given = e.type ?? e.transport;
    const type: "stdio" | "http" | "sse" | undefined =
      given === undefined ? (e.command !== undefined ? "stdio" : e.url !== undefined ? "http" : undefined) : given === "stdio" ? "stdio" : given === "sse" ? "sse" : "http";
    if (type === undefined) return fail('expected "command" (stdio) or "url" (HTTP)');
    if (type === "stdio") {
      if (e.command === undefined) return fail("a stdio server needs a command", ["command"]);
      if (e.oauth !== undefined) return fail('only for servers with a "url" (OAuth signs in to remote servers)', ["oauth"]);
      return { type, command: e.command, args: e.args ?? [], env: e.env ?? {}, ...(e.cwd !== undefined ? { cwd: e.cwd } : {}), ...common };
    }
    if (e.url === undefined) return fail(`a ${type} server needs a url`, ["url"]);
    return { type, url: new URL(e.url).href, headers: e.headers ?? {}, ...(e.oauth !== undefined ? { oauth: e.oauth } : {}), ...common };
  });

const serverGroup = (description: string) =>
  z
    .record(z.string().regex(SERVER_NAME, { error: SERVER_NAME_RULE }), serverEntrySchema, {
      error: (iss) => (iss.code === "invalid_type" ? "expected an object of servers by name" : undefined),
    })
    .optional()
    .describe(description);

/** The two keys servers are written under: `mcpServers` (Claude Desktop, Cursor, Claude Code) and `servers` (VS Code). */
export const serverGroupsShape = {
  mcpServers: serverGroup("MCP servers by name (the format of Claude Desktop, Cursor, Claude Code). A server `s` with tool `x` is called as `tools s x`."),
  servers: serverGroup("MCP servers by name in VS Code's `mcp.json` format (`type`: stdio | http | sse)."),
};

/** A server name used in both groups is an error at its second place. */
export function checkDuplicateNames(o: { mcpServers?: Record<string, unknown>; servers?: Record<string, unknown> }, ctx: z.RefinementCtx): void {
  for (const name of Object.keys(o.servers ?? {})) {
    if (o.mcpServers && Object.hasOwn(o.mcpServers, name)) ctx.addIssue({ code: "custom", path: ["servers", name], message: `server "${name}" is also defined at mcpServers.${name}`, input: o });
  }
}

const override = z.enum(["always", "never", "block"], { error: "expected always, never or block" });

/** `approval`: when a person is asked before a call runs (README "Approvals"). Kept as written; the policy reads it. */
export const approvalSchema = strictObject({
  mode: z
    .enum(["normal", "protective", "off"], { error: "expected normal, protective or off" })
    .optional()
    .describe("normal (default): ask for destructive or open-world-changing calls and where a tool's policy asks; protective: ask for anything not read-only; off: ask only where an override says `always`."),
  tools: z.record(z.string(), override).optional().describe("Per-tool overrides by command (`github delete-branch`) or top-level name: always | never | block."),
  servers: z.record(z.string(), override).optional().describe("Per-server overrides: always | never | block."),
  trustAnnotations: z.boolean().optional().describe("How the servers' tool annotations are taken (see README \"Approvals\")."),
}).describe("Tool Approval: when a person is asked before a call runs.");

/** `server`: the HTTP API of `toolshell serve` (docs/sessions.md). */
export const httpApiSchema = strictObject({
  host: z.string({ error: "expected a host name or address" }).min(1, { error: "expected a host name or address" }).default(DEFAULT_HOST).describe("Address to listen on (loopback by default)."),
  port: wholeNumber(0, 65535, "expected a port number from 0 to 65535").default(DEFAULT_PORT).describe("Port to listen on; 0 picks a free one."),
  tokens: tokensSchema,
  maxBodyBytes: wholeNumber(1024, 512 * 1024 * 1024, "expected a whole number of bytes from 1024 to 536870912").default(DEFAULT_MAX_BODY_BYTES).describe("Largest request body, in bytes."),
  tls: strictObject(
    {
      cert: z.string({ error: "expected the path of a PEM certificate file" }).min(1, { error: "expected the path of a PEM certificate file" }),
      key: z.string({ error: "expected the path of a PEM private key file" }).min(1, { error: "expected the path of a PEM private key file" }),
    },
    'expected { "cert": "FILE.pem", "key": "FILE.pem" }',
  )
    .optional()
    .describe("Serve HTTPS with this certificate and key (PEM files; relative paths from the config's folder). The console's sign-in needs HTTPS off loopback (docs/deployment.md)."),
  trustProxy: z
    .boolean({ error: "expected true or false" })
    .default(false)
    .describe("Behind a TLS-terminating proxy: believe its X-Forwarded-Proto (the browser's scheme) and X-Forwarded-For (the client's address). Leave false when clients reach serve directly."),
  wakeAgent: strictObject(
    {
      url: httpUrl,
      headers: stringMap(z.string()).default({}),
    },
    'expected { "url": "http(s)://…", "headers"?: {…} }',
  )
    .optional()
    .describe("Where a failed or stopped trigger run's report is POSTed."),
})
  .transform(({ tokens, ...rest }) => ({
    ...rest,
    /** The accepted tokens. */
    tokens: tokens.map((x) => (typeof x === "string" ? x : x.token)),
    /** Who each token is (same order): its `name`, else `token-N` by its place. */
    tokenNames: tokens.map((x, i) => (typeof x === "string" ? `token-${i + 1}` : x.name)),
    /** Each token's role as written (same order); one without is settled by `defaultRole` once every token is known. */
    tokenRoles: tokens.map((x) => (typeof x === "string" ? undefined : x.role)),
  }))
  .describe("`toolshell serve`: the HTTP API and its bearer tokens.");

const folder = z.string({ error: "expected a folder path" }).min(1, { error: "expected a folder path" });

/** The keys of the top level. */
const configShape = {
  $schema: z.string().optional().describe("This schema, for editors."),
  ...serverGroupsShape,
  inputs: z.array(z.unknown()).optional().describe("VS Code's input prompts; allowed so a VS Code `mcp.json` loads as is. A `${input:…}` reference is an error: toolshell cannot prompt."),
  tools: folder.optional().describe("Folder of the agent's own tools (`*.ts` / `*.js` files exporting defineTool). Default: `agent/tools` when it exists."),
  skills: folder.optional().describe("Folder of skills (`<id>/SKILL.md`). Default: `agent/skills` when it exists."),
  callLimit: wholeNumber(1, 10_000, "expected a whole number from 1 to 10000").default(DEFAULT_CALL_LIMIT).describe("Nested `tools` calls one shell call may make."),
  timeoutMs: wholeNumber(100, 24 * 3600_000, "expected a whole number from 100 to 86400000")
    .default(DEFAULT_TIMEOUT_MS)
    .describe("Time limit of one shell call, in milliseconds (also the largest `timeout_ms` the bash tool accepts)."),
  maxOutputBytes: wholeNumber(MAX_OUTPUT_BYTES_RANGE.min, MAX_OUTPUT_BYTES_RANGE.max, `expected a whole number of bytes from ${MAX_OUTPUT_BYTES_RANGE.min} (64 KiB) to ${MAX_OUTPUT_BYTES_RANGE.max} (256 MiB)`)
    .default(DEFAULT_MAX_OUTPUT_BYTES)
    .describe("What one shell call may print, stdout and stderr together, in bytes; past it the script stops with exit code 126, its output up to the bound kept."),
  maxSessionFileBytes: wholeNumber(MAX_SESSION_FILE_BYTES_RANGE.min, MAX_SESSION_FILE_BYTES_RANGE.max, `expected a whole number of bytes from ${MAX_SESSION_FILE_BYTES_RANGE.min} (1 MiB) to ${MAX_SESSION_FILE_BYTES_RANGE.max} (1 GiB)`)
    .default(DEFAULT_MAX_SESSION_FILE_BYTES)
    .describe("What one session's files may hold together in memory (and in the store), in bytes; a write past it fails as on a full disk (ENOSPC). A real folder mounted as the workspace is not counted."),
  keepVisible: z
    .array(z.string().min(1), { error: "expected an array of tool names" })
    .default([])
    .describe("Tools the model can still call directly; they stay callable from the shell too. A top-level tool by name (`web_fetch`); an MCP tool as `server tool`, `server__tool` or `mcp_server__tool`."),
  manageScripts: z.boolean().default(false).describe("Let the agent save scripts with `tools scripts save`."),
  rateUnlabeledTools: z
    .boolean()
    .default(true)
    .describe("Rate tools that declare nothing about their risk (once, cached) and ask for approval before those that look like they change things. Off: such tools run without asking in `normal` mode."),
  approval: approvalSchema.default({}),
  store: z
    .string({ error: 'expected a file path, ":memory:" or a postgres:// URL' })
    .min(1, { error: 'expected a file path, ":memory:" or a postgres:// URL' })
    .optional()
    .describe(
      'Where sessions, approvals, events and steps persist: a SQLite file, ":memory:", or a PostgreSQL database as a `postgres://` or `postgresql://` URL (several processes or replicas sharing one store; `${DATABASE_URL}` expands from the environment). Default `.toolshell/state.db`.',
    ),
  storePool: z
    .strictObject(
      {
        queries: wholeNumber(1, 1000, "expected a whole number from 1 to 1000").default(10).describe("Connections for reads and writes (default 10)."),
        leases: wholeNumber(1, 1000, "expected a whole number from 1 to 1000")
          .default(20)
          .describe("Connections that hold session leases: as many sessions run a shell call at once on this process; more wait for one (default 20)."),
      },
      { error: (iss) => (iss.code === "invalid_type" ? "expected an object" : undefined) },
    )
    .prefault({})
    .describe("PostgreSQL connections each process opens (docs/deployment.md → Sizing). Ignored for a SQLite store."),
  logDir: folder.optional().describe("Folder of the servers' stderr logs. Default `.toolshell/logs`."),
  hooks: z.unknown().optional().describe("Reserved. Hooks are given in code: createToolShell({ hooks })."),
  decisionService: z.unknown().optional().describe("Reserved. The decision service that rates tools is given in code: createToolShell({ decisionService })."),
  server: httpApiSchema.prefault({}),
  triggers: triggersSchema,
};

/** The top level. Keys of other clients (Claude Desktop's `globalShortcut`, …) are allowed: load.ts notes them. */
export const configSchema = z
  .looseObject(configShape, { error: (iss) => (iss.code === "invalid_type" ? "expected a JSON object" : undefined) })
  .superRefine(checkDuplicateNames)
  .meta({
    title: "toolshell configuration (toolshell.config.json)",
    description:
      "Every tool an agent has behind one `tools` command in a sandboxed bash. Relative paths resolve against this file's folder; `${VAR}`, `${VAR:-default}`, `${env:VAR}`, `${TOOLSHELL_CONFIG_DIR}`, `${workspaceFolder}` and `${userHome}` expand in server entries, `server` and `triggers`. Keys of other clients are kept as written.",
  });

/** The keys toolshell reads at the top level of a config file. */
export const TOP_LEVEL_KEYS: readonly string[] = Object.keys(configShape);

// Typed without the other clients' keys, so that a type's known keys stay known.
/** The config file as written (what {@link configSchema} accepts, other clients' keys aside). */
export type ConfigFile = z.input<z.ZodObject<typeof configShape>>;
/** The config file after the schema: defaults filled in, servers normalised, paths still as written. */
export type ParsedConfigFile = z.output<z.ZodObject<typeof configShape>>;
/** `approval`, as written (every key optional; the policy gives the defaults). */
export type ApprovalConfig = z.output<typeof approvalSchema>;
/** `server`: the HTTP API, defaults filled in. */
export type HttpApiConfig = z.output<typeof httpApiSchema>;
/** Where a failed or stopped trigger run's report goes. */
export type WakeAgentConfig = NonNullable<HttpApiConfig["wakeAgent"]>;
/** A trigger, normalised: `kind`, `cron` and `timezone` for a schedule, the script's canonical name. */
export type TriggerSpec = z.output<typeof triggerSchema>;
/** `oauth` of a remote server, when it is an object. */
export type OAuthConfig = Exclude<z.output<typeof oauthSchema>, false>;
/** One server entry after the schema (before its paths are resolved). */
export type ServerEntry = z.output<typeof serverEntrySchema>;
/** When a server connects: `eager` with the host, `on_demand` when a command or search names it. */
export type LoadMode = ServerEntry["load"];
