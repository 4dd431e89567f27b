/**
 * A config written to another folder keeps its meaning: relative paths in a config resolve
 * against the folder of its file (README "Configuration"), so moving the text moves what they
 * name. {@link rebaseConfig} rewrites them for the new folder — the `tools`, `skills`, `store`,
 * `logDir` and `server.tls` paths (and the `tools`/`skills` folders found by default), and each
 * stdio server's `cwd` (set to the old folder when it had none: its relative arguments were read
 * there). Values holding `${…}` are left as written (they are filled in where the config loads).
 *
 * See docs/agents.md ("Importing your MCP client's servers", `--write`).
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { isPostgresUrl } from "./store-location.js";

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** The raw config `config` (as in a file in `fromDir`) with its paths rewritten for a file in `toDir`. */
export function rebaseConfig(config: Json, fromDir: string, toDir: string): Json {
  const from = path.resolve(fromDir);
  const to = path.resolve(toDir);
  if (from === to) return config;
  const moved = (v: unknown): unknown => {
    if (typeof v !== "string" || v.includes("${") || path.isAbsolute(v)) return v;
    return path.relative(to, path.resolve(from, v)) || ".";
  };
  const out: Json = { ...config };
  for (const key of ["tools", "skills", "logDir"]) if (key in out) out[key] = moved(out[key]);
  // The folders used when the config names none: named now, or the new folder would look in its own.
  for (const key of ["tools", "skills"]) if (!(key in out) && existsSync(path.join(from, "agent", key))) out[key] = moved(path.join("agent", key));
  if (typeof out.store === "string" && out.store !== ":memory:" && !isPostgresUrl(out.store)) out.store = moved(out.store);
  if (isObject(out.server) && isObject(out.server.tls)) out.server = { ...out.server, tls: { ...out.server.tls, cert: moved(out.server.tls.cert), key: moved(out.server.tls.key) } };
  for (const group of ["mcpServers", "servers"]) {
    const servers = out[group];
    if (!isObject(servers)) continue;
    out[group] = Object.fromEntries(
      Object.entries(servers).map(([name, entry]) => {
        if (!isObject(entry) || typeof entry.command !== "string") return [name, entry];
        return [name, { ...entry, cwd: entry.cwd === undefined ? moved(".") : moved(entry.cwd) }];
      }),
    );
  }
  return out;
}
