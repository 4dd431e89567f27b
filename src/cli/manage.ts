/**
 * What `toolshell scripts …` and `toolshell triggers …` share: the store beside the config
 * (opened by file, so these commands work whether or not a `toolshell serve` is running on the
 * same store), the `--agent` and `--json` options, readable tables, and errors that say what
 * went wrong — as `toolshell: …` for people, or as the JSON error line
 * `{"error":{"code","message"}}` with `--json`.
 *
 * Exit codes: 0 done; 1 bad input or nothing found (the error says which); 2 the store or
 * config could not be opened; 3 a run stopped for a person's approval.
 *
 * See README → The CLI.
 */
import type { Store } from "../store/index.js";
import { terminalJson, terminalText } from "../display/show-input.js";
import { shownTime } from "../display/time.js";
// The leaf module, not tool/index.js: the CLI registers these commands on every run, a warm `exec` too.
import { ToolCallError } from "../tool/types.js";
import type { CommonOptions } from "./commands.js";
import { CliError } from "./cli-error.js";

/** Options every `scripts` / `triggers` subcommand takes. */
export interface ManageOptions {
  /** The agent whose scripts or triggers these are (default `default`). */
  agent?: string;
  /** Print JSON (the HTTP API's shapes) instead of tables. */
  json?: boolean;
}

function write(stream: NodeJS.WriteStream, text: string): Promise<void> {
  return new Promise((resolve) => (text ? stream.write(text, () => resolve()) : resolve()));
}

/**
 * Prints `value` as one JSON document (with `--json`) or `text` (for people), through the
 * terminal escaping (`terminalText`): names, bodies and outputs come from scripts and servers.
 */
export function print(o: ManageOptions, value: unknown, text: () => string): Promise<void> {
  return write(process.stdout, o.json ? terminalJson(JSON.stringify(value, null, 2)) + "\n" : terminalText(text()));
}

/**
 * Checks an agent id the way the HTTP API checks `{agent_id}`.
 * @throws CliError `invalid_input`.
 */
export async function agentId(o: ManageOptions): Promise<string> {
  const { DEFAULT_AGENT } = await import("../store/index.js");
  const { ID } = await import("../server/app.js");
  const agent = o.agent ?? DEFAULT_AGENT;
  if (!ID.test(agent)) throw new CliError("invalid_input", `--agent must be 1-128 letters, digits, ".", "_", ":" or "-", got ${JSON.stringify(agent)}`);
  return agent;
}

/**
 * Runs `fn` over the store named by the config (`store`, default `<config dir>/.toolshell/state.db`)
 * or `--store FILE`, closes it, and sets `process.exitCode`. `create` opens a store that does not
 * exist yet (saving, creating); otherwise a missing store is "nothing found". Never throws.
 */
export async function withStore(options: CommonOptions, o: ManageOptions & { create?: boolean }, fn: (store: Store, agent: string) => Promise<number | void>): Promise<void> {
  let store: Store | undefined;
  try {
    const agent = await agentId(o);
    const { openCliStore, storePath, storeMissing } = await import("./sessions.js");
    let file: string;
    try {
      file = await storePath(options);
    } catch (err) {
      throw new CliError("unavailable", (err as Error).message);
    }
    if (storeMissing(file) && !o.create) throw new CliError("not_found", `no store at ${file} (nothing has been saved with this config yet)`);
    try {
      store = await openCliStore(file);
    } catch (err) {
      throw new CliError("unavailable", (err as Error).message);
    }
    process.exitCode = (await fn(store, agent)) ?? 0;
  } catch (err) {
    process.exitCode = await fail(o, err);
  } finally {
    await store?.close().catch(() => {});
  }
}

/** Reports an error on stderr (JSON with `--json`) and returns its exit code. */
export async function fail(o: ManageOptions, err: unknown): Promise<number> {
  const e =
    err instanceof CliError
      ? err
      : err instanceof ToolCallError
        ? new CliError(err.code === "unknown_command" ? "not_found" : "invalid_input", err.message)
        : new CliError("unavailable", err instanceof Error ? err.message : String(err));
  await write(process.stderr, o.json ? terminalJson(JSON.stringify({ error: { code: e.code, message: e.message } })) + "\n" : terminalText(`toolshell: ${e.message}\n`));
  return e.exitCode;
}

/**
 * Parses a JSON object given on the command line (`--input`, `--payload`, `--input-schema`).
 * @throws CliError `invalid_input` naming the option.
 */
export function jsonObject(text: string, option: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (err) {
    throw new CliError("invalid_input", `${option} is not JSON: ${(err as Error).message}`);
  }
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw new CliError("invalid_input", `${option} must be a JSON object`);
  return v as Record<string, unknown>;
}

const MAX_CELL = 60;

/** A plain-text table: a header row, then one row per item; long cells but the last end in "…". */
export function table(headers: string[], rows: string[][]): string {
  // The last column is never cut: nothing after it needs aligning, and it holds what a person
  // reads in full (a run's failure, a server's note, a description).
  const cells = rows.map((r) => r.map((c, i) => (c.length > MAX_CELL && i < headers.length - 1 ? c.slice(0, MAX_CELL - 1) + "…" : c).replace(/\s+/g, " ")));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i]?.length ?? 0)));
  const line = (r: string[]) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join("  ").trimEnd();
  return [line(headers), ...cells.map(line)].join("\n") + "\n";
}

/** An ISO time as `YYYY-MM-DD HH:MM:SS` (UTC; display/time.ts), or `-`. */
export function when(iso: string | undefined): string {
  return iso ? shownTime(iso, true) : "-";
}

/** Reads all of stdin. */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * Records a change made from the command line in the change log (server/changes.ts): what, by
 * the local user, through the CLI. Never throws: the change itself is done.
 */
export async function recordCliChange(store: Store, command: string, what: string): Promise<void> {
  try {
    const { changeEvent } = await import("../server/changes.js");
    const { cliActor } = await import("./ask.js");
    store.appendEvent(changeEvent(cliActor(), { method: "CLI", path: `toolshell ${command}`, status: 0, what }));
  } catch {}
}
