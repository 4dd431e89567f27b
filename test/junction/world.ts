/**
 * The junction suite's world: one folder with a config naming every tool kind (a local tool, the
 * junction MCP server over stdio, over Streamable HTTP, and over Streamable HTTP behind OAuth), a
 * log file every tool appends to when it runs, and the saved script `purge`.
 *
 * The OAuth-protected server is named twice more: `jsign1`, `jsign2`… are the same server under
 * names nobody signed in to, one per sign-in row ({@link World.freshSignIn}); `joauth` is the one
 * the other rows call, signed in before them ({@link signInWorld}). One world per test file; each path uses its own item
 * ids, so paths never see each other's calls.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseServersConfig, type HttpServerConfig } from "../../src/config/index.js";
import { signIn } from "../../src/mcp/auth/flow.js";
import { SignInBroker, type CredentialStore } from "../../src/mcp/auth/index.js";
import { openHost } from "../../src/server/index.js";
import { openStore, type Store } from "../../src/store/index.js";
import { startJunctionHttpServer, type JunctionHttpServer } from "../fixtures/mcp/junction-server.js";
import { startOAuthServer, type OAuthFixture } from "../fixtures/mcp/oauth-server.js";
import { tsxCommand } from "../fixtures/mcp/index.js";
import { approve } from "../mcp/oauth-helpers.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const FIXTURES = path.resolve(here, "../fixtures");

/** The saved script of the `saved script` tool kind: its one call is built at run time from its input. */
export const PURGE_SCRIPT = { name: "purge", description: "Removes an item through the stdio server.", input_schema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] }, body: 'tools jstdio remove id="$(jq -r .id)"\n' };
/** Every saved script of the world: `purge`, `greet` (the stdio server asks the person), `count` (progress). */
export const SAVED_SCRIPTS = [
  PURGE_SCRIPT,
  { name: "greet", description: "Asks the person a name through the stdio server.", input_schema: { type: "object", properties: {} }, body: "tools jstdio ask\n" },
  { name: "count", description: "Counts n steps through the stdio server.", input_schema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] }, body: "tools jstdio steps \"$(jq -c '{n}')\"\n" },
];

/** Saves every script of the world for the agent `default` (a host's store, or one opened for it). */
export async function saveScripts(store: { saveScript(agent: string, script: (typeof SAVED_SCRIPTS)[number]): Promise<unknown> }): Promise<void> {
  for (const s of SAVED_SCRIPTS) await store.saveScript("default", s);
}

export interface World {
  dir: string;
  /** The config file (every surface reads this one). */
  config: string;
  /** The store (SQLite) of the hosts that keep one. */
  store: string;
  /** The store every host of the world opens: `store`, or the database URL the config names. */
  storeUrl: string;
  /** The file every tool appends `<kind> remove <id>` to when it runs. */
  log: string;
  http: JunctionHttpServer;
  /** The authorization server of the OAuth-protected junction server (`joauth`, `jsignN`). */
  oauth: OAuthFixture;
  /** A name of the OAuth-protected server nobody signed in to yet (each call another one). */
  freshSignIn(): string;
  /** The environment every process of the world gets (`JUNCTION_LOG` for the local tool). */
  env: NodeJS.ProcessEnv;
  /** The lines of the log so far. */
  ran(): string[];
  close(): Promise<void>;
}

/** The names of the OAuth-protected server left for sign-in rows (one per surface of a world). */
const SIGN_IN_NAMES = ["jsign1", "jsign2", "jsign3", "jsign4", "jsign5", "jsign6"];

/**
 * Signs each of `principals` in to `joauth` (the person approving at once), the tokens kept in
 * `credentials` (a host's store's): the rows other than sign-in call it signed in. A session acts
 * for its `metadata.principal`, else its agent, else `default`; one made through the HTTP API or
 * `mcp --http` for its token's name (`token-1` here). README "Sign-in".
 */
export async function signInWorld(world: World, credentials: CredentialStore, principals = ["default", "token-1"]): Promise<void> {
  const config = parseServersConfig(JSON.parse(readFileSync(world.config, "utf8")) as Record<string, unknown>, { baseDir: world.dir }).find((s) => s.name === "joauth") as HttpServerConfig;
  const broker = new SignInBroker();
  try {
    for (const principal of principals) await signIn(config, principal, { store: credentials, broker }, { onUrl: approve });
  } finally {
    await broker.close();
  }
}

/** The API token of the worlds' `toolshell serve` and `toolshell mcp --http` processes. */
export const TOKEN = "junction-test-token-0123456789";

/** An agent-role API token of the same processes: it reaches only its own sessions (docs/security.md "Who acts for whom"). */
export const AGENT_TOKEN = "junction-agent-token-0123456789";

/**
 * Compound secrets in the config (docs/security.md "Secrets"): a DSN whose password and a libpq
 * string whose `password=` value are redacted wherever they show; `words` are parts that are not
 * credentials and stay readable.
 */
export const SECRETS = {
  env: { JUNCTION_DSN: "postgresql://admin:JunctionPw4242@db.internal/prod", JUNCTION_LIBPQ: "host=db.internal user=admin password=JunctionLibpq77" },
  parts: ["JunctionPw4242", "JunctionLibpq77"],
  words: ["admin", "db.internal"],
};

/** The world's `maxOutputBytes`: 64 KiB, the least a config may set. */
export const OUTPUT_BOUND = 65536;

/** The world's `maxSessionFileBytes`: 1 MiB, the least a config may set. */
export const FILES_BOUND = 1048576;

/** Makes a world (`extra` merged into its config); `close()` stops its HTTP server and removes its folder. */
export async function makeWorld(extra: Record<string, unknown> = {}): Promise<World> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "junction-"));
  const log = path.join(dir, "ran.log");
  writeFileSync(log, "");
  mkdirSync(path.join(dir, ".toolshell"), { recursive: true });
  const http = await startJunctionHttpServer(log);
  const oauth = await startOAuthServer();
  const protectedServer = await startJunctionHttpServer(log, { tag: "oauth", oauth });
  const signIns = Object.fromEntries(SIGN_IN_NAMES.map((name) => [name, { url: protectedServer.url, trust: true }]));
  const stdio = tsxCommand(path.join(FIXTURES, "mcp/junction-server.ts"));
  const config = path.join(dir, "toolshell.config.json");
  writeFileSync(
    config,
    JSON.stringify(
      {
        mcpServers: {
          jstdio: { ...stdio, env: { JUNCTION_LOG: log, ...SECRETS.env }, trust: true },
          jhttp: { url: http.url, trust: true },
          joauth: { url: protectedServer.url, trust: true },
          ...signIns,
        },
        tools: path.join(FIXTURES, "junction/tools"),
        // With more than one token each says its role (docs/security.md "Who acts for whom").
        server: { tokens: [{ name: "token-1", token: TOKEN, role: "operator" }, { name: "agent-1", token: AGENT_TOKEN, role: "agent" }] },
        // The least bound a config may set (docs/security.md "Bounded output"), so the
        // output-bound row passes it with a small script on every surface.
        maxOutputBytes: OUTPUT_BOUND,
        // The least bound of a session's files (docs/security.md "What each limit defends"), for the session-files row.
        maxSessionFileBytes: FILES_BOUND,
        // Every host of the world writes its servers' logs here (the server-log row reads them).
        logDir: path.join(dir, "logs"),
        ...extra,
      },
      null,
      2,
    ),
  );
  let signedIn = 0;
  // The local tool reads JUNCTION_LOG from its process: this one (library surfaces) and children.
  process.env.JUNCTION_LOG = log;
  return {
    dir,
    config,
    store: path.join(dir, ".toolshell/state.db"),
    storeUrl: typeof extra.store === "string" ? extra.store : path.join(dir, ".toolshell/state.db"),
    log,
    http,
    oauth,
    freshSignIn: () => {
      const name = SIGN_IN_NAMES[signedIn++];
      if (!name) throw new Error(`the world names ${SIGN_IN_NAMES.length} servers for sign-in rows: add names to SIGN_IN_NAMES`);
      return name;
    },
    env: { ...process.env, JUNCTION_LOG: log },
    ran: () => readFileSync(log, "utf8").split("\n").filter(Boolean),
    close: async () => {
      await http.close();
      await protectedServer.close();
      await oauth.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A world ready for the rows of a surface that runs its own host (a `serve`, a gateway, the
 * CLI): its store has the saved scripts and the sign-in of `joauth`. The store is returned open;
 * the caller closes it before its host opens the file, or keeps reading it.
 */
export async function readyWorld(): Promise<{ world: World; store: Store }> {
  const world = await makeWorld();
  const store = await openStore(world.store);
  await saveScripts(store);
  await signInWorld(world, store.credentials);
  return { world, store };
}

/**
 * Another principal's session (docs/security.md "Who acts for whom"): `principal` creates session
 * `session` in the world's store through a host of its own, runs `call` (a call needing approval),
 * answers `allow_always` and runs it again, so the call ran once and the session holds an answer
 * that would let it run unasked. The surface under test then must not open that session.
 */
export async function plantSession(world: World, session: string, principal: string, call: string): Promise<void> {
  const host = await openHost({ config: world.config, store: world.storeUrl });
  try {
    const theirs = host.shell.session(session, { principal });
    const stopped = await theirs.bash(call);
    const request = (stopped.tools as { stopped?: { request_id?: string } } | undefined)?.stopped?.request_id;
    if (!request) throw new Error(`planting ${session}: the call did not stop for approval: ${stopped.stderr}`);
    await theirs.answer(request, "allow_always");
    const ran = await theirs.bash(call);
    if (ran.exit_code !== 0) throw new Error(`planting ${session}: the approved call failed: ${ran.stderr}`);
  } finally {
    await host.close();
  }
}
