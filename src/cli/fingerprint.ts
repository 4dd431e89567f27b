/**
 * The warm host's config fingerprint (README "The CLI" → "The warm host"): a host answers only
 * requests with its own, so a changed config, tool file or toolshell build gets a new host.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The build of toolshell running this code (its file's size and time): a rebuilt or upgraded toolshell gets a new host. */
function buildStamp(): string {
  try {
    const st = statSync(fileURLToPath(import.meta.url));
    return `${st.size}:${st.mtimeMs}`;
  } catch {
    return "";
  }
}

/**
 * The local tool files a config loads (its `tools` folder, else `agent/tools` beside it): each
 * file's name, size and time, so a tool file changed, added or deleted makes a new fingerprint.
 * Read without loading the config (the client stays light): a file that is not plain JSON counts
 * for the default folder only.
 */
function toolFilesStamp(configFile: string, text: string): string {
  let folder = "agent/tools";
  try {
    const v = (JSON.parse(text) as { tools?: unknown }).tools;
    if (typeof v === "string") folder = v;
  } catch {}
  const dir = path.resolve(path.dirname(path.resolve(configFile)), folder);
  try {
    return readdirSync(dir)
      .sort()
      .map((f) => {
        const st = statSync(path.join(dir, f));
        return `${f}:${st.size}:${st.mtimeMs}`;
      })
      .join("\n");
  } catch {
    return "";
  }
}

/**
 * The config's fingerprint: its bytes, the values of the `${NAME}` variables it names, its local
 * tool files (name, size, time) and the build of toolshell itself. A host answers only requests
 * with its own fingerprint, so a changed config or tool file gets a new host.
 */
export function configFingerprint(configFile: string): string {
  const text = readFileSync(configFile, "utf8");
  const names = [...new Set([...text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]))].sort();
  return createHash("sha256")
    .update(buildStamp())
    .update(text)
    .update(toolFilesStamp(configFile, text))
    .update(JSON.stringify(names.map((n) => [n, process.env[n] ?? null])))
    .digest("hex");
}

