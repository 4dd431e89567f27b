/**
 * Editing a config file's servers in place (`toolshell servers add|update|remove` with no host
 * running, and to keep a running host's change): one entry of `mcpServers` (or VS Code's
 * `servers`) is set or removed with jsonc-parser's edits, so the rest of the file — its other
 * keys, order, indentation and, in a VS Code `mcp.json`, its comments — stays as written. The
 * next text is checked in full, with the rules of loading the file, before anything is written,
 * and written atomically (a temporary file renamed over it), so a bad entry leaves the file as it
 * was.
 *
 * See README → Configuration, Changing servers while running.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { parseConfig, parseConfigText, type ToolshellConfig } from "./load.js";
import { setProperty } from "./layout-edits.js";
import { ConfigError, keyPath } from "./messages.js";
import { parseServerEntry } from "./servers.js";

/** One server entry of a config file, as written. */
export interface WrittenServer {
  name: string;
  /** The group it sits in: `mcpServers`, or VS Code's `servers`. */
  group: "mcpServers" | "servers";
  /** The entry as written (variables not expanded). */
  entry: unknown;
}

/** The file's text and JSON, and its server entries as written. */
export interface ConfigFileServers {
  file: string;
  text: string;
  json: Record<string, unknown>;
  servers: WrittenServer[];
}

/**
 * Reads a config file's server entries as written, `mcpServers` first, in file order.
 * @throws Error naming the file when it cannot be read or is not JSON; ConfigError when the top
 *   level is not an object.
 */
export function readConfigServers(file: string): ConfigFileServers {
  const full = realpathSync(path.resolve(file));
  let text: string;
  try {
    text = readFileSync(full, "utf8");
  } catch (err) {
    throw new Error(`${full}: cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { cause: err });
  }
  const json = parseConfigText(text, full);
  if (typeof json !== "object" || json === null || Array.isArray(json)) throw new ConfigError([{ path: "", message: "expected a JSON object" }], full);
  const o = json as Record<string, unknown>;
  const servers: WrittenServer[] = [];
  for (const group of ["mcpServers", "servers"] as const) {
    const g = o[group];
    if (typeof g !== "object" || g === null || Array.isArray(g)) continue;
    for (const [name, entry] of Object.entries(g)) servers.push({ name, group, entry });
  }
  return { file: full, text, json: o, servers };
}

/** The next text of a config file with one server set or removed, and that text's config, checked. */
export interface ServerEdit {
  file: string;
  text: string;
  config: ToolshellConfig;
}

/**
 * Sets (`entry` given) or removes (`entry` undefined) server `name` in the file's text. A new
 * server goes into the group the file already uses (`mcpServers`, else `servers`, else a new
 * `mcpServers`); an existing one stays where it is. The entry is checked first on its own
 * (`parseServerEntry`, naming its key), then the whole next text as loading it would.
 * @returns the next text and its config; nothing is written.
 * @throws ConfigError (or Error for unreadable JSON) naming the file and key; the file is untouched.
 */
export function editServerEntry(file: string, name: string, entry: unknown, env?: Readonly<Record<string, string | undefined>>): ServerEdit {
  const current = readConfigServers(file);
  const full = current.file;
  const baseDir = path.dirname(full);
  const at = current.servers.find((s) => s.name === name);
  const group = at?.group ?? ("mcpServers" in current.json || !("servers" in current.json) ? "mcpServers" : "servers");
  if (entry !== undefined) parseServerEntry(name, entry, { baseDir, file: full, env, key: keyPath([name], group) });
  const jsonc = createRequire(import.meta.url)("jsonc-parser") as typeof import("jsonc-parser");
  const indent = /^[ \t]+(?=["}\]])/m.exec(current.text)?.[0] ?? "  ";
  const eol = current.text.includes("\r\n") ? "\r\n" : "\n";
  let text = setProperty(jsonc, current.text, [group, name], entry, { indent, eol });
  if (text === undefined) {
    const edits = jsonc.modify(current.text, [group, name], entry, { formattingOptions: { insertSpaces: !indent.startsWith("\t"), tabSize: indent.startsWith("\t") ? 1 : indent.length, eol } });
    text = jsonc.applyEdits(current.text, edits);
  }
  if (!text.endsWith(eol) && current.text.endsWith(eol)) text += eol;
  const config = parseConfig(parseConfigText(text, full), { baseDir, file: full, env });
  return { file: full, text, config };
}

/**
 * Writes a config file's next text atomically: a temporary file beside it (same mode) renamed
 * over it, so a host watching the file never reads half of it.
 * @throws Error naming the file when it cannot be written (the old text stays).
 */
export function writeConfigText(file: string, text: string): void {
  const full = realpathSync(path.resolve(file));
  const tmp = path.join(path.dirname(full), `.${path.basename(full)}.${randomBytes(4).toString("hex")}.tmp`);
  try {
    // Created private (the text may hold secrets), then given the file's own mode.
    writeFileSync(tmp, text, { flag: "wx", mode: 0o600 });
    chmodSync(tmp, statSync(full).mode & 0o777);
    renameSync(tmp, full);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw new Error(`${full}: cannot write: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { cause: err });
  }
}
