/**
 * Loading `agent/tools/*.ts|.js` (file slug = tool name, default export = the tool) and reading
 * packaged skills `agent/skills/<id>/SKILL.md`.
 *
 * See README → Use it from code.
 */
import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { defineTool, isToolDefinition, markNotLoaded, type ToolDefinition } from "./define.js";
import { ToolCallError, type Skill } from "./types.js";

const TOOL_FILE = /^([A-Za-z0-9][A-Za-z0-9_.-]*)\.(ts|mts|js|mjs)$/;

/**
 * Loads every tool file in `dir` (not recursive). Files ending in `.d.ts`, `.test.*` or starting
 * with `_` are skipped. Importing a file runs its module code but never a tool's `execute`.
 * A file that fails to load (a syntax error, a throwing import, no default export made by
 * `defineTool`) does not stop the others: its tool is listed with a description saying so, and
 * every call of it answers an `unavailable` error naming the file and the cause.
 * @returns the definitions keyed by slug (`get_weather.ts` → `get_weather`).
 * @throws Error when the folder cannot be read, or two files name the same tool.
 */
export async function loadToolsDir(dir: string, options: { fresh?: boolean } = {}): Promise<Record<string, ToolDefinition>> {
  let entries: string[];
  try {
    entries = (await readdir(dir)).sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw err;
  }
  const out: Record<string, ToolDefinition> = {};
  let jiti: { import: (id: string, opts?: { default?: boolean }) => Promise<unknown> } | undefined;
  // The folder's package type, read once for all its `.js` files.
  let type: Promise<"module" | "commonjs"> | undefined;
  for (const file of entries) {
    const m = TOOL_FILE.exec(file);
    if (!m || file.endsWith(".d.ts") || /\.test\./.test(file) || file.startsWith("_")) continue;
    const slug = m[1];
    const full = path.join(dir, file);
    let mod: unknown;
    try {
      // A `.js` file is ESM only where its package says `"type": "module"`; elsewhere (npm
      // 11's `npm init -y` writes `"commonjs"`) it goes through jiti, which reads `import` and
      // `require` alike, as for `.ts` files; Node would refuse its `import` with a raw warning.
      if (m[2] === "mjs" || (m[2] === "js" && (await (type ??= packageType(dir))) === "module")) {
        // A reload (a running host's tool file changed) imports the file as it is now.
        mod = await import(pathToFileURL(full).href + (options.fresh ? `?v=${Date.now()}` : ""));
      } else {
        if (!jiti) {
          const { createJiti } = await import("jiti");
          jiti = createJiti(import.meta.url, { interopDefault: false, moduleCache: !options.fresh, fsCache: !options.fresh }) as never;
        }
        mod = await jiti!.import(full);
      }
    } catch (err) {
      mod = { default: brokenTool(full, `failed to load: ${(err as Error)?.message ?? String(err)}`) };
    }
    if (out[slug]) throw new Error(`${full}: a second file for tool ${slug}`);
    const def = (mod as { default?: unknown } | null)?.default;
    out[slug] = isToolDefinition(def) ? def : brokenTool(full, "the default export must be a tool made with defineTool()");
  }
  return out;
}

/** The `type` of the package.json nearest to `dir` (Node's rule for `.js` files): "module" or "commonjs". */
async function packageType(dir: string): Promise<"module" | "commonjs"> {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    try {
      const json = JSON.parse(await readFile(path.join(d, "package.json"), "utf8")) as { type?: unknown };
      return json?.type === "module" ? "module" : "commonjs";
    } catch (err) {
      // Unreadable or not JSON: Node would fail on it too; the file is then read as CommonJS.
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") return "commonjs";
    }
    if (path.dirname(d) === d) return "commonjs";
  }
}

/** The stand-in for a tool file that did not load: listed as such, every call answers why. */
function brokenTool(file: string, reason: string): ToolDefinition {
  // The cause's first line, and where it is when the loader gave that on the next line (jiti's
  // parse errors end `\n /path/file.ts:3:2`).
  const [first, next] = reason.split("\n");
  const at = /^\s*(\S+:\d+:\d+)\s*$/.exec(next ?? "")?.[1];
  const line = `${first.trim()}${at ? ` at ${at}` : ""}`.slice(0, 300);
  const def = defineTool({
    description: `Not available: ${path.basename(file)} did not load (${line}).`,
    // Any input: whatever a call gives, it answers why the tool is not there, not a field error.
    inputSchema: { type: "object", additionalProperties: true },
    execute: () => {
      throw new ToolCallError("unavailable", `${file}: ${line}`, false);
    },
  });
  return markNotLoaded(def, `${file}: ${line}`);
}

/**
 * Reads skill `id` from `<skillsDir>/<id>/SKILL.md`: front matter (`---` fenced `key: value`
 * lines), body, and the other files in the folder (recursive, relative paths).
 * @throws Error when the id is not a plain folder name or the skill does not exist.
 */
export async function readSkill(skillsDir: string, id: string): Promise<Skill> {
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(id) || id.includes("..")) throw new Error(`invalid skill id ${JSON.stringify(id)}`);
  const folder = path.join(skillsDir, id);
  let text: string;
  try {
    text = await readFile(path.join(folder, "SKILL.md"), "utf8");
  } catch {
    throw new Error(`no skill ${id} (looked for ${path.join(folder, "SKILL.md")})`);
  }
  const metadata: Record<string, string> = {};
  let body = text;
  const fm = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(text);
  if (fm) {
    body = text.slice(fm[0].length);
    for (const line of fm[1].split(/\r?\n/)) {
      const kv = /^([A-Za-z0-9_-]+)\s*:\s*(.*)$/.exec(line);
      if (kv) metadata[kv[1]] = kv[2].replace(/^["']|["']$/g, "");
    }
  }
  const files: string[] = [];
  const walk = async (rel: string): Promise<void> => {
    for (const e of await readdir(path.join(folder, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) await walk(r);
      else if (r !== "SKILL.md") files.push(r);
    }
  };
  await walk("");
  return {
    id,
    metadata,
    body,
    files: files.sort(),
    async readFile(relativePath: string) {
      const target = path.resolve(folder, relativePath);
      if (!target.startsWith(path.resolve(folder) + path.sep)) throw new Error(`skill ${id}: path outside the skill: ${relativePath}`);
      if (!(await stat(target)).isFile()) throw new Error(`skill ${id}: not a file: ${relativePath}`);
      return readFile(target, "utf8");
    },
  };
}
