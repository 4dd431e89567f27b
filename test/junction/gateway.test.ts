/**
 * The junction matrix (paths.ts) through the built MCP gateway (run `npm run build` first), an
 * MCP SDK client calling its `bash` tool: `toolshell mcp` over stdio (a gateway process per
 * session, as each client starts its own) and one `toolshell mcp --http` serving every session;
 * each with a client of the 2025 era and one pinned to 2026-07-28.
 */
import { spawn } from "node:child_process";
import { after } from "node:test";
import type { Store } from "../../src/store/index.js";
import { CLI } from "./drivers/cli.js";
import { gatewaySurface, type GatewayReach } from "./drivers/gateway.js";
import { junctionMatrix, type Opened } from "./paths.js";
import { readyWorld, type World } from "./world.js";

const clients: Array<{ close(): Promise<void> }> = [];
let opened: Promise<{ world: World; store: Store; http: string; stop(): Promise<void> }> | undefined;
const world = () =>
  (opened ??= (async () => {
    const { world: w, store } = await readyWorld();
    const child = spawn(process.execPath, [CLI, "mcp", "--http", "0", "--config", w.config], { cwd: w.dir, stdio: ["ignore", "ignore", "pipe"], env: w.env });
    let err = "";
    const http = await new Promise<string>((resolve, reject) => {
      child.stderr!.on("data", (c: Buffer) => {
        err += c.toString();
        const m = /serving Streamable HTTP at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err);
        if (m) resolve(m[1]);
      });
      child.once("exit", (code) => reject(new Error(`toolshell mcp --http exited (${code}):\n${err}`)));
    });
    const stop = async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.kill("SIGTERM");
      await exited;
    };
    return { world: w, store, http, stop };
  })());
after(async () => {
  if (!opened) return;
  const { world: w, store, stop } = await opened;
  await Promise.allSettled(clients.map((c) => c.close()));
  await stop();
  await store.close();
  await w.close();
});

const surface = (reach: (http: string) => GatewayReach) => async (): Promise<Opened> => {
  const { world: w, store, http } = await world();
  return {
    world: w,
    surface: async (session) => {
      const s = await gatewaySurface(w, store, session, reach(http));
      clients.push(s);
      return s;
    },
  };
};

const notApplicable = { "resumed step": "the gateway's bash tool takes only `command`: each tools/call is a shell call of its own, with no step id a client can ask for again" };
// A stdio client starts a gateway (and its servers) per session, seconds each on a loaded
// machine: the transport is the stdio part, the kinds are the same code as over HTTP below.
// Sign-in runs too: a stdio gateway is its own host, listening for the redirect while it runs;
// and the rows of one kind only (the client names its session, `--session`, so it can name another's).
const ownKind = (row: { kinds?: unknown }) => row.kinds !== undefined;
junctionMatrix("gateway over stdio", surface(() => ({ stdio: true })), { notApplicable, cells: (k, row) => k.name === "MCP over stdio" || row.needs === "sign-in" || ownKind(row) });
// Over HTTP a client does not name its session: it is `mcp_<Mcp-Session-Id>` (or, for a 2026
// client, a name within its token's principal), so there is no other principal's session to open.
junctionMatrix("gateway over HTTP", surface((url) => ({ url })), { notApplicable: { ...notApplicable, "session owner": "an HTTP client's session is named by the gateway (mcp_<Mcp-Session-Id>), never another principal's" } });

// A client pinned to 2026-07-28 (test/gateway/era-2026.test.ts): the person answers through an
// `input_required` result instead of a request on the call's stream, and the retry resumes the
// script as a durable step; approving, a one-off reject (the resumed step's held call is denied
// by the answer given for it, and the same call's next try is refused too, as everywhere) and the
// events listed come out the same. Sign-in comes as a URL-mode `input_required` the SDK fulfils
// through the same handler (test/gateway/sign-in-2026.test.ts).
const era2026 = (row: { name: string; needs?: string }) => /^(approve once|reject|events listed):/.test(row.name) || row.needs === "sign-in";
junctionMatrix("gateway 2026-07-28 over stdio", surface(() => ({ stdio: true, era: "2026-07-28" })), { notApplicable, cells: (k, row) => (k.name === "MCP over stdio" || row.needs === "sign-in") && era2026(row) });
junctionMatrix("gateway 2026-07-28 over HTTP", surface((url) => ({ url, era: "2026-07-28" })), { notApplicable, cells: (_k, row) => era2026(row) });
