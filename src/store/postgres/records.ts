/**
 * Saved scripts, triggers and trigger runs in the PostgreSQL store: the same records and rules as
 * the SQLite store (docs/sessions.md "Saved scripts", "Triggers"), mapped by ../rows.ts. Saving a
 * script locks its row, so two processes saving one name at once make two versions, never one
 * number twice.
 */
import type { Pool } from "pg";
import { clampLimit, json, newScriptId, NO_FIELDS, now, parse, scriptRecord, versionRow, type Row } from "../rows.js";
import type { ScriptInput, ScriptRecord, ScriptVersion, SharedKind, SharedRecord, TriggerRecord, TriggerRunRecord } from "../types.js";
import { inTransaction } from "./queue.js";

type Query = Pick<Pool, "query">;

const BY_KEY = "SELECT * FROM scripts WHERE agent_id = $1 AND (id = $2 OR name = $2)";

async function scriptAt(db: Query, agentId: string, idOrName: string, version?: number): Promise<ScriptRecord | undefined> {
  const s = (await db.query(BY_KEY, [agentId, idOrName])).rows[0] as Row | undefined;
  if (!s) return undefined;
  const v = (await db.query("SELECT * FROM script_versions WHERE script_id = $1 AND version = $2", [s.id, version ?? s.version])).rows[0] as Row | undefined;
  return v ? scriptRecord(s, v) : undefined;
}

/** Scripts of an agent by name, archived ones only when asked. */
export async function listScripts(db: Query, agentId: string, includeArchived: boolean): Promise<ScriptRecord[]> {
  const r = await db.query(
    `SELECT s.*, v.version AS v_version, v.description, v.input_schema, v.body FROM scripts s
     JOIN script_versions v ON v.script_id = s.id AND v.version = s.version
     WHERE s.agent_id = $1 ${includeArchived ? "" : "AND s.archived = 0"} ORDER BY s.name`,
    [agentId],
  );
  return r.rows.map((x: Row) => scriptRecord(x, { ...x, version: x.v_version }));
}

/** A script by id or name, at its current version or `version`. */
export function getScript(db: Query, agentId: string, idOrName: string, version?: number): Promise<ScriptRecord | undefined> {
  return scriptAt(db, agentId, idOrName, version);
}

/** Saves a new script, or a new version of one (which unarchives it). */
export function saveScript(pool: Pool, agentId: string, input: ScriptInput): Promise<ScriptRecord> {
  return inTransaction(pool, async (c) => {
    const t = now();
    let s = (await c.query(`${BY_KEY} FOR UPDATE`, [agentId, input.name])).rows[0] as Row | undefined;
    let version: number | undefined;
    if (!s) {
      const ins = await c.query(
        "INSERT INTO scripts (id, agent_id, name, version, archived, created_at, updated_at) VALUES ($1, $2, $3, 1, 0, $4, $4) ON CONFLICT (agent_id, name) DO NOTHING RETURNING *",
        [newScriptId(), agentId, input.name, t],
      );
      s = ins.rows[0] as Row | undefined;
      if (s) version = 1;
      // Another process made it between the look-up and the insert: this save is its next version.
      else s = (await c.query(`${BY_KEY} FOR UPDATE`, [agentId, input.name])).rows[0] as Row;
    }
    let schema = input.input_schema;
    if (version === undefined) {
      version = Number(s.version) + 1;
      schema ??= parse<Record<string, unknown> | undefined>((await c.query("SELECT input_schema FROM script_versions WHERE script_id = $1 AND version = $2", [s.id, s.version])).rows[0]?.input_schema as string | undefined, undefined);
      await c.query("UPDATE scripts SET version = $1, archived = 0, updated_at = $2 WHERE id = $3", [version, t, s.id]);
    }
    await c.query("INSERT INTO script_versions (script_id, version, description, input_schema, body, created_at, created_by) VALUES ($1, $2, $3, $4, $5, $6, $7)", [
      s.id,
      version,
      input.description,
      json(schema ?? NO_FIELDS),
      input.body,
      t,
      input.created_by ?? "api",
    ]);
    return (await scriptAt(c, agentId, s.id))!;
  });
}

/** Every version of a script, oldest first ([] when there is no such script). */
export async function scriptVersions(db: Query, agentId: string, idOrName: string): Promise<ScriptVersion[]> {
  const s = (await db.query(BY_KEY, [agentId, idOrName])).rows[0] as Row | undefined;
  if (!s) return [];
  const r = await db.query("SELECT * FROM script_versions WHERE script_id = $1 ORDER BY version", [s.id]);
  return r.rows.map((v: Row) => versionRow(s.id, v));
}

/** Archives or unarchives a script; undefined when there is none. */
export async function setScriptArchived(db: Query, agentId: string, idOrName: string, archived: boolean): Promise<ScriptRecord | undefined> {
  const s = (await db.query(BY_KEY, [agentId, idOrName])).rows[0] as Row | undefined;
  if (!s) return undefined;
  await db.query("UPDATE scripts SET archived = $1, updated_at = $2 WHERE id = $3", [archived ? 1 : 0, now(), s.id]);
  return scriptAt(db, agentId, s.id);
}

const record = <T>(r: Row | undefined): T | undefined => (r ? parse<T | undefined>(r.data, undefined) : undefined);

/** Triggers by agent and name (of one agent when asked). */
export async function listTriggers(db: Query, agentId?: string): Promise<TriggerRecord[]> {
  const r = agentId
    ? await db.query("SELECT data FROM triggers WHERE agent_id = $1 ORDER BY name", [agentId])
    : await db.query("SELECT data FROM triggers ORDER BY agent_id, name");
  return r.rows.map((x: Row) => record<TriggerRecord>(x)).filter((x): x is TriggerRecord => !!x);
}

/** A trigger by id. */
export async function getTrigger(db: Query, id: string): Promise<TriggerRecord | undefined> {
  return record((await db.query("SELECT data FROM triggers WHERE id = $1", [id])).rows[0]);
}

/** A trigger by agent and name. */
export async function findTrigger(db: Query, agentId: string, name: string): Promise<TriggerRecord | undefined> {
  return record((await db.query("SELECT data FROM triggers WHERE agent_id = $1 AND name = $2", [agentId, name])).rows[0]);
}

/** Inserts or replaces a trigger (by id). */
export async function putTrigger(db: Query, t: TriggerRecord): Promise<void> {
  await db.query(
    `INSERT INTO triggers (id, agent_id, name, data, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (id) DO UPDATE SET agent_id = excluded.agent_id, name = excluded.name, data = excluded.data, updated_at = excluded.updated_at`,
    [t.id, t.agent_id, t.name, json(t), t.created_at, t.updated_at],
  );
}

/** Sets only a trigger's run times, in one statement (the other fields stay as stored). */
export async function setTriggerTimes(db: Query, id: string, times: Pick<TriggerRecord, "last_run_at" | "next_run_at">): Promise<void> {
  await db.query("UPDATE triggers SET data = (data::jsonb || $2::jsonb)::text WHERE id = $1", [id, json(times)]);
}

/** Deletes a trigger; true when there was one. */
export async function deleteTrigger(db: Query, id: string): Promise<boolean> {
  return ((await db.query("DELETE FROM triggers WHERE id = $1", [id])).rowCount ?? 0) > 0;
}

/** Inserts or replaces a trigger run (by id). */
export async function putTriggerRun(db: Query, run: TriggerRunRecord): Promise<void> {
  await db.query(
    `INSERT INTO trigger_runs (id, trigger_id, started_at, data) VALUES ($1, $2, $3, $4)
     ON CONFLICT (id) DO UPDATE SET trigger_id = excluded.trigger_id, started_at = excluded.started_at, data = excluded.data`,
    [run.id, run.trigger_id, run.started_at, json(run)],
  );
}

/** A trigger run by id. */
export async function getTriggerRun(db: Query, id: string): Promise<TriggerRunRecord | undefined> {
  return record((await db.query("SELECT data FROM trigger_runs WHERE id = $1", [id])).rows[0]);
}

/** Runs of a trigger, newest first; `limit` default 100, at most 10,000. */
export async function listTriggerRuns(db: Query, triggerId: string, limit?: number): Promise<TriggerRunRecord[]> {
  const r = await db.query("SELECT data FROM trigger_runs WHERE trigger_id = $1 ORDER BY started_at DESC, ord DESC LIMIT $2", [triggerId, clampLimit(limit, 100, 10_000)]);
  return r.rows.map((x: Row) => record<TriggerRunRecord>(x)).filter((x): x is TriggerRunRecord => !!x);
}

/** The shared records of one kind (docs/deployment.md "What is shared"). */
export async function listShared(db: Query, kind: SharedKind): Promise<SharedRecord[]> {
  const r = await db.query("SELECT key, data, updated_at FROM shared_state WHERE kind = $1 ORDER BY key", [kind]);
  return r.rows.map((x: Row) => ({ kind, key: String(x.key), data: parse<Record<string, unknown>>(x.data, {}), updated_at: String(x.updated_at) }));
}

/** Sets or (null) deletes a shared record; unless `quiet`, the change count grows in the same transaction. */
export function putShared(pool: Pool, kind: SharedKind, key: string, data: Record<string, unknown> | null, quiet: boolean): Promise<void> {
  return inTransaction(pool, async (c) => {
    if (data === null) await c.query("DELETE FROM shared_state WHERE kind = $1 AND key = $2", [kind, key]);
    else
      await c.query(
        "INSERT INTO shared_state (kind, key, data, updated_at) VALUES ($1, $2, $3, $4) ON CONFLICT (kind, key) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at",
        [kind, key, json(data), now()],
      );
    if (!quiet) await c.query("UPDATE change_count SET n = n + 1 WHERE id = 1");
  });
}

/** Makes the change count grow. */
export async function noteChange(db: Query): Promise<void> {
  await db.query("UPDATE change_count SET n = n + 1 WHERE id = 1");
}

/** The change count. */
export async function changeCount(db: Query): Promise<number> {
  const r = (await db.query("SELECT n FROM change_count WHERE id = 1")).rows[0] as Row | undefined;
  return Number(r?.n ?? 0);
}
