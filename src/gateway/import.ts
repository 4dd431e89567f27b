/**
 * Importing the MCP servers of other clients: Claude Desktop, Cursor, Claude Code and VS Code
 * keep their servers in JSON files (the `mcpServers` format, or VS Code's `servers`). The
 * gateway reads them so one `toolshell mcp` entry can front them all.
 *
 * Where each client keeps its servers (user-level first, then the project's):
 * | client          | macOS                                                         | Linux                                      | Windows                                         |
 * | --------------- | ------------------------------------------------------------- | ------------------------------------------ | ----------------------------------------------- |
 * | claude-desktop  | ~/Library/Application Support/Claude/claude_desktop_config.json | ~/.config/Claude/claude_desktop_config.json | %APPDATA%\Claude\claude_desktop_config.json    |
 * | cursor          | ~/.cursor/mcp.json, then ./.cursor/mcp.json                    | same                                       | %USERPROFILE%\.cursor\mcp.json, ./.cursor/mcp.json |
 * | claude-code     | ~/.claude.json (`mcpServers`, and `projects[<cwd>].mcpServers`), then ./.mcp.json | same            | %USERPROFILE%\.claude.json, ./.mcp.json        |
 * | vscode          | ~/Library/Application Support/Code/User/mcp.json, then ./.vscode/mcp.json | ~/.config/Code/User/mcp.json, ./.vscode/mcp.json | %APPDATA%\Code\User\mcp.json, ./.vscode/mcp.json |
 *
 * An entry that runs toolshell's own gateway (`toolshell mcp`) is left out, so the gateway never
 * fronts itself. VS Code and Cursor expand their predefined variables (`${workspaceFolder}`,
 * `${workspaceFolderBasename}`, `${userHome}`, `${pathSeparator}`, `${/}`) against the workspace
 * they have open; the import does the same against the workspace it reads from (`cwd`), so an
 * entry means the same wherever the merged config is written. An entry using what only the editor
 * knows (`${input:…}` prompts, `${command:…}`, `${config:…}`, the open file) is left out with a
 * note naming the key, never passed on with another meaning. `${env:NAME}` and `${NAME}` are kept:
 * toolshell expands them from the environment when it reads the config.
 *
 * See docs/agents.md → Importing other clients' servers.
 */
import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { readConfigJson } from "../config/index.js";
import { foldName } from "../tool/index.js";

import { CLIENTS, type ClientName } from "./clients.js";

export { CLIENTS, type ClientName };

/** Where to look: the platform, the home folder, the project folder and the environment. */
export interface ImportPlace {
  platform?: NodeJS.Platform;
  home?: string;
  cwd?: string;
  env?: Record<string, string | undefined>;
}

/** A config file of a client, and which key of it holds servers. */
export interface ClientConfigFile {
  client: ClientName;
  file: string;
  /** `user` or `project` scope. */
  scope: "user" | "project";
}

/**
 * The config files a client may keep servers in, user scope first, whether or not they exist.
 * @throws Error naming the known clients when `client` is not one of them.
 */
export function clientConfigFiles(client: string, place: ImportPlace = {}): ClientConfigFile[] {
  const platform = place.platform ?? process.platform;
  const home = place.home ?? os.homedir();
  const cwd = place.cwd ?? process.cwd();
  const env = place.env ?? process.env;
  const appData = env.APPDATA ?? path.join(home, "AppData", "Roaming");
  const user = (file: string): ClientConfigFile => ({ client: client as ClientName, file, scope: "user" });
  const project = (file: string): ClientConfigFile => ({ client: client as ClientName, file, scope: "project" });
  switch (client) {
    case "claude-desktop":
      if (platform === "darwin") return [user(path.join(home, "Library", "Application Support", "Claude", "claude_desktop_config.json"))];
      if (platform === "win32") return [user(path.join(appData, "Claude", "claude_desktop_config.json"))];
      return [user(path.join(env.XDG_CONFIG_HOME ?? path.join(home, ".config"), "Claude", "claude_desktop_config.json"))];
    case "cursor":
      return [user(path.join(home, ".cursor", "mcp.json")), project(path.join(cwd, ".cursor", "mcp.json"))];
    case "claude-code":
      return [user(path.join(home, ".claude.json")), project(path.join(cwd, ".mcp.json"))];
    case "vscode": {
      const userDir =
        platform === "darwin"
          ? path.join(home, "Library", "Application Support", "Code", "User")
          : platform === "win32"
            ? path.join(appData, "Code", "User")
            : path.join(env.XDG_CONFIG_HOME ?? path.join(home, ".config"), "Code", "User");
      return [user(path.join(userDir, "mcp.json")), project(path.join(cwd, ".vscode", "mcp.json"))];
    }
    default:
      throw new Error(`unknown client ${JSON.stringify(client)}; known: ${CLIENTS.join(", ")}`);
  }
}

/** What an import found. */
export interface ImportResult {
  /** Server entries by name, as written in the client's files (later files win on a name). */
  servers: Record<string, Record<string, unknown>>;
  /** The files read. */
  files: string[];
  /** Lines worth telling the user (skipped entries, unreadable files). */
  notes: string[];
}

/** The variables VS Code and Cursor fill in from the editor's state, not the workspace's folder. */
const EDITOR_ONLY = /^(input|command|config):|^(file|fileBasename|fileBasenameNoExtension|fileDirname|fileDirnameBasename|fileExtname|fileWorkspaceFolder|relativeFile|relativeFileDirname|lineNumber|columnNumber|selectedText|execPath|defaultBuildTask|cwd)$|^workspaceFolder(Basename)?:/;

/** The clients whose configs use VS Code's predefined variables. */
const EDITOR_CLIENTS: readonly string[] = ["vscode", "cursor"];

/**
 * Expands an editor's predefined variables in an entry against the workspace the import reads.
 * @returns the expanded entry, or why it is left out (`env.TOKEN uses "${input:token}" …`).
 */
export function expandEditorVariables(entry: Record<string, unknown>, workspace: { folder: string; home: string; platform: NodeJS.Platform }, editor = "VS Code"): { entry: Record<string, unknown> } | { leftOut: string } {
  let leftOut: string | undefined;
  const sep = workspace.platform === "win32" ? "\\" : "/";
  const walk = (value: unknown, where: string): unknown => {
    if (typeof value === "string") {
      return value.replace(/\$\{([^}]*)\}/g, (whole, inner: string) => {
        if (inner === "workspaceFolder") return workspace.folder;
        if (inner === "workspaceFolderBasename") return path.basename(workspace.folder);
        if (inner === "userHome") return workspace.home;
        if (inner === "pathSeparator" || inner === "/") return sep;
        if (EDITOR_ONLY.test(inner)) {
          const why = inner.startsWith("input:") ? `an input prompt ${editor} asks the person for` : "a value only the editor knows";
          leftOut ??= `${where} uses "${whole}", ${why}, which toolshell cannot fill in: put the value in an environment variable, write \${NAME} and add the server to the config yourself`;
        }
        return whole;
      });
    }
    if (Array.isArray(value)) return value.map((v, i) => walk(v, `${where}[${i}]`));
    if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, where ? `${where}.${k}` : k)]));
    return value;
  };
  const out = walk(entry, "") as Record<string, unknown>;
  return leftOut ? { leftOut } : { entry: out };
}

/** True when an entry runs toolshell's own gateway (`toolshell mcp …`). */
export function isToolshellGateway(entry: Record<string, unknown>): boolean {
  const words = [entry.command, ...(Array.isArray(entry.args) ? entry.args : [])].map((w) => String(w ?? ""));
  const i = words.findIndex((w) => /(^|[\\/])toolshell(\.js|\.cmd)?$/.test(w) || /toolshell[\\/]dist[\\/]cli[\\/]main\.js$/.test(w));
  return i >= 0 && words.slice(i + 1).includes("mcp");
}

/**
 * Reads the servers of one client from its files (see {@link clientConfigFiles}). Missing files
 * are skipped; a file that is not JSON is a note, not an error.
 * @throws Error for an unknown client name.
 */
export function importClientServers(client: string, place: ImportPlace = {}): ImportResult {
  const out: ImportResult = { servers: {}, files: [], notes: [] };
  const cwd = path.resolve(place.cwd ?? process.cwd());
  const workspace = { folder: cwd, home: place.home ?? os.homedir(), platform: place.platform ?? process.platform };
  for (const f of clientConfigFiles(client, place)) {
    if (!existsSync(f.file)) continue;
    let json: unknown;
    try {
      // VS Code's mcp.json may hold comments; errors name the line and column.
      json = readConfigJson(f.file);
    } catch (err) {
      out.notes.push(`not read: ${(err as Error).message}`);
      continue;
    }
    if (!json || typeof json !== "object") continue;
    out.files.push(f.file);
    const o = json as Record<string, unknown>;
    const groups: unknown[] = [o.mcpServers, o.servers];
    if (client === "claude-code" && f.scope === "user" && o.projects && typeof o.projects === "object") {
      const proj = (o.projects as Record<string, { mcpServers?: unknown }>)[cwd];
      if (proj) groups.push(proj.mcpServers);
    }
    for (const g of groups) {
      if (!g || typeof g !== "object" || Array.isArray(g)) continue;
      for (const [name, entry] of Object.entries(g as Record<string, unknown>)) {
        if (!entry || typeof entry !== "object") continue;
        if (isToolshellGateway(entry as Record<string, unknown>)) {
          out.notes.push(`${f.file}: ${name}: left out (it is toolshell's own gateway)`);
          continue;
        }
        if (!EDITOR_CLIENTS.includes(client)) {
          out.servers[name] = entry as Record<string, unknown>;
          continue;
        }
        const expanded = expandEditorVariables(entry as Record<string, unknown>, workspace, client === "cursor" ? "Cursor" : "VS Code");
        if ("leftOut" in expanded) {
          delete out.servers[name];
          out.notes.push(`${f.file}: ${name}: left out: ${expanded.leftOut}`);
        } else out.servers[name] = expanded.entry;
      }
    }
  }
  if (out.files.length === 0) out.notes.push(`no config of ${client} found (looked in ${clientConfigFiles(client, place).map((f) => f.file).join(", ")})`);
  return out;
}

/**
 * Merges imported servers into a toolshell config object: servers already in the config keep
 * their entry; imported ones are added under `mcpServers`.
 * @returns the merged config and the names added / kept out.
 */
export function mergeImported(config: Record<string, unknown>, imported: Record<string, Record<string, unknown>>): { config: Record<string, unknown>; added: string[]; skipped: string[] } {
  const own = { ...((config.mcpServers as Record<string, unknown>) ?? {}) };
  const taken = new Set([...Object.keys(own), ...Object.keys((config.servers as Record<string, unknown>) ?? {})].map(foldName));
  const added: string[] = [];
  const skipped: string[] = [];
  for (const [name, entry] of Object.entries(imported)) {
    if (taken.has(foldName(name))) {
      skipped.push(name);
      continue;
    }
    own[name] = entry;
    taken.add(foldName(name));
    added.push(name);
  }
  return { config: { ...config, mcpServers: own }, added, skipped };
}
