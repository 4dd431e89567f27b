/**
 * Replicas as one system (docs/deployment.md "What is shared"): what one replica, the console or
 * the CLI changes reaches every replica on the same store without a restart.
 *
 * - **Servers**: the config file is each host's own record; servers added, changed or removed
 *   through the HTTP API or the console live in the store (`shared_state`, kind `server`). The
 *   servers in force are the file's, with the store's entries over them: an entry set there
 *   replaces the file's entry of that name or adds a server; `{ removed: true }` takes a file's
 *   server out. A later edit of the file (`toolshell servers add`) keeps what the store holds.
 * - **Triggers** created or changed anywhere (the CLI included) are scheduled by every replica.
 * - **Following**: each replica reads a change count every `pollMs` (1 s); when it grew, it reads
 *   the shared state again and applies it.
 * - **Tool lists**: a server's `tools/list_changed` reaches the one replica whose connection got
 *   it; that replica records it (`shared_state`, kind `tools`) and every other replica lists the
 *   server's tools again (MCP spec "Tools" → List Changed Notification).
 * - **Replicas**: each long-running host writes a heartbeat (`shared_state`, kind `replica`) every
 *   5 s; one not seen for 15 s is not live (a replica killed with SIGKILL), and its record is
 *   removed after an hour.
 *
 * See docs/deployment.md → What is shared; README → Changing servers while running.
 */
import { hostname } from "node:os";
import { randomUUID } from "node:crypto";
import { parseServerEntry, type ServerConfig, type ToolshellConfig } from "../config/index.js";
import { McpServerSource } from "../mcp/index.js";
import type { ToolShell } from "../runtime/index.js";
import type { SharedRecord, Store } from "../store/index.js";

/** A replica not seen for this long is not live. */
export const REPLICA_STALE_MS = 15_000;
const HEARTBEAT_MS = 5_000;
const FORGET_MS = 3_600_000;

/** A live replica as the store knows it. */
export interface ReplicaInfo {
  id: string;
  /** `serve` (HTTP API) or `mcp` (the MCP gateway). */
  kind: string;
  url: string;
  pid: number;
  host: string;
  started_at: string;
  seen_at: string;
}

/** Every replica the store still has a heartbeat of, `live` when seen within {@link REPLICA_STALE_MS} (oldest start first). */
export async function knownReplicas(store: Store, now = Date.now()): Promise<Array<ReplicaInfo & { live: boolean }>> {
  const rows = await store.listShared("replica");
  return rows
    .map((r) => ({ ...(r.data as unknown as ReplicaInfo), id: r.key, seen_at: r.updated_at, live: now - Date.parse(r.updated_at) <= REPLICA_STALE_MS }))
    .sort((a, b) => a.started_at.localeCompare(b.started_at));
}

/** The replicas seen within {@link REPLICA_STALE_MS} (oldest start first). */
export async function liveReplicas(store: Store, now = Date.now()): Promise<ReplicaInfo[]> {
  return (await knownReplicas(store, now)).filter((r) => r.live).map(({ live: _live, ...r }) => r);
}

/**
 * The servers in force: the file's, with the store's entries over them (see the file comment).
 * @param report told of a stored entry that does not parse (it is left out).
 */
export function mergeServers(config: Pick<ToolshellConfig, "baseDir" | "file">, fileServers: readonly ServerConfig[], stored: readonly SharedRecord[], env?: Record<string, string | undefined>, report: (message: string) => void = () => {}): ServerConfig[] {
  const byName = new Map(stored.map((r) => [r.key, r.data]));
  const parsed = new Map<string, ServerConfig>();
  for (const [name, data] of byName) {
    if (data.removed || data.entry === undefined) continue;
    try {
      parsed.set(name, parseServerEntry(name, data.entry, { baseDir: config.baseDir, file: config.file, env }));
    } catch (err) {
      report(`the stored entry of server ${name} was left out: ${(err as Error).message}`);
    }
  }
  const out: ServerConfig[] = [];
  for (const s of fileServers) {
    const d = byName.get(s.name);
    if (d?.removed) continue;
    out.push(parsed.get(s.name) ?? s);
  }
  for (const [name, s] of parsed) if (!fileServers.some((f) => f.name === name)) out.push(s);
  return out;
}

/**
 * Drops each removal made through the API of a server the config file no longer has: it hides
 * nothing now, and a server written into the file again must be in force (the file is the
 * record; `toolshell servers remove` edits the file and ends the server through the API, which
 * records such a removal). Quiet: no host's servers change by it.
 */
export async function dropMootRemovals(store: Store, fileServers: readonly ServerConfig[]): Promise<void> {
  for (const r of await store.listShared("server")) {
    if (r.data.removed && !fileServers.some((s) => s.name === r.key)) await store.putShared("server", r.key, null, { quiet: true });
  }
}

/** What {@link followSharedState} needs. */
export interface FollowOptions {
  shell: ToolShell;
  store: Store;
  /** The config file's servers now (the config watcher changes them). */
  fileServers: () => readonly ServerConfig[];
  /** Schedules what the store's triggers say now (the trigger service's `sync`). */
  syncTriggers?: () => Promise<void>;
  /** Announce this process as a replica: its kind and URL. */
  replica?: { kind: string; url: string };
  /** How often the change count is read (default 1,000 ms). */
  pollMs?: number;
  env?: Record<string, string | undefined>;
  /** Told what could not be applied (default: a line on stderr). */
  report?: (message: string) => void;
  /** Told which servers changed here because another process changed them in the store (default: nothing). */
  told?: (message: string) => void;
}

/** A running follower. */
export interface SharedStateFollower {
  /** True when this follower announces its process as a live replica. */
  readonly announced: boolean;
  /** Reads the shared state and applies it now (after a change this process made, or a file reload). */
  apply(): Promise<void>;
  /** Resolves when the apply under way (if any) is done. */
  settled(): Promise<void>;
  /** Stops following and removes this replica's heartbeat. Never rejects. */
  close(): Promise<void>;
}

/**
 * Applies the shared state once, then follows the change count (see the file comment).
 * @throws Error when the first read of the store fails.
 */
export async function followSharedState(o: FollowOptions): Promise<SharedStateFollower> {
  const report = o.report ?? ((m: string) => process.stderr.write(`toolshell: ${m}\n`));
  let seen = await o.store.changeCount();
  let running: Promise<void> = Promise.resolve();
  let closed = false;
  const id = `rep_${randomUUID().replace(/-/g, "").slice(0, 16)}`;
  // What this replica last saw of each server's tool list change (its stamp in the store).
  const toolStamps = new Map((await o.store.listShared("tools")).map((r) => [r.key, r.updated_at]));
  const offTools = o.shell.onToolsChanged((server, cause) => {
    if (cause !== "server" || closed) return;
    void o.store.putShared("tools", server, { replica: id, at: new Date().toISOString() }).catch(() => {});
  });
  const relistChanged = async () => {
    for (const r of await o.store.listShared("tools")) {
      if (toolStamps.get(r.key) === r.updated_at) continue;
      toolStamps.set(r.key, r.updated_at);
      if (r.data.replica === id) continue;
      const source = o.shell.sources.find((s) => s.name === r.key);
      if (source instanceof McpServerSource) source.relist();
    }
  };
  const applyNow = async () => {
    await relistChanged().catch((err: unknown) => report(`the changed tool lists were not read: ${(err as Error).message}`));
    const stored = await o.store.listShared("server");
    const servers = mergeServers(o.shell.config, o.fileServers(), stored, o.env, report);
    const before = new Map(o.shell.config.servers.map((s) => [s.name, JSON.stringify(s)]));
    try {
      await o.shell.setServers(servers);
      const after = new Map(o.shell.config.servers.map((s) => [s.name, JSON.stringify(s)]));
      const changed = [...new Set([...before.keys(), ...after.keys()])].filter((n) => before.get(n) !== after.get(n)).sort();
      if (changed.length) o.told?.(`servers changed from the store (another replica, the API, the console or the CLI): ${changed.map((n) => `${n} ${!after.has(n) ? "removed" : !before.has(n) ? "added" : "changed"}`).join(", ")}`);
    } catch (err) {
      report(`the shared servers were not all applied: ${o.shell.redactor.text((err as Error).message)}`);
    }
    if (o.syncTriggers) {
      try {
        await o.syncTriggers();
      } catch (err) {
        report(`the triggers were not all scheduled: ${(err as Error).message}`);
      }
    }
  };
  const apply = () => {
    const next = running.then(applyNow, applyNow);
    running = next.catch(() => {});
    return next;
  };
  await apply();
  const poll = setInterval(() => {
    void (async () => {
      if (closed) return;
      const n = await o.store.changeCount();
      if (n === seen) return;
      seen = n;
      await apply();
    })().catch(() => {});
  }, o.pollMs ?? 1000);
  poll.unref();
  let beat: NodeJS.Timeout | undefined;
  if (o.replica) {
    const info = { kind: o.replica.kind, url: o.replica.url, pid: process.pid, host: hostname(), started_at: new Date().toISOString() };
    const heartbeat = async () => {
      if (closed) return;
      await o.store.putShared("replica", id, info, { quiet: true });
      for (const r of await o.store.listShared("replica")) {
        if (Date.now() - Date.parse(r.updated_at) > FORGET_MS) await o.store.putShared("replica", r.key, null, { quiet: true });
      }
    };
    await heartbeat();
    // Steps begun from now on name this replica as their holder.
    o.store.holder = id;
    beat = setInterval(() => void heartbeat().catch(() => {}), HEARTBEAT_MS);
    beat.unref();
  }
  return {
    announced: !!o.replica,
    apply,
    settled: () => running,
    async close() {
      if (closed) return;
      closed = true;
      offTools();
      clearInterval(poll);
      if (beat) clearInterval(beat);
      await running;
      if (o.replica) {
        if (o.store.holder === id) delete o.store.holder;
        await o.store.putShared("replica", id, null, { quiet: true }).catch(() => {});
      }
    },
  };
}
