/**
 * The workspace guard: a workspace (the real folder scripts can write) must not hold, or sit
 * inside, anything the host itself runs or reads as code or configuration. A script that could
 * write such a path could make the host run its code outside every sandbox (the next time an MCP
 * server starts) or change what the host trusts (config, tools, skills, approvals).
 *
 * What is guarded, and in which direction, is listed in docs/security.md ("The workspace guard").
 * The host calls {@link checkWorkspace} when it starts; a host that reloads its config calls it
 * again with the new config before using it.
 */
import { existsSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import os from "node:os";
import { fileURLToPath } from "node:url";
import type { ServerConfig, ToolshellConfig } from "../config/index.js";

/** Options of {@link checkWorkspace}: the host's own paths that a config does not hold. */
export interface WorkspaceGuardOptions {
  toolsDir?: string;
  skillsDir?: string;
  storePath?: string;
  /** The host's environment: servers inherit its `PATH` and `HOME` (default `process.env`). */
  hostEnv?: Readonly<Record<string, string | undefined>>;
  /** Other clients' config files the servers were imported from, read again at every start. */
  importFiles?: string[];
}

/**
 * One guarded path. `holds`: refused when the workspace is the path or holds it. `both`: also
 * refused when the workspace lies inside it (a folder code or configuration is loaded from).
 */
interface Guarded {
  what: string;
  path: string;
  direction: "holds" | "both";
}

/** Interpreters whose path arguments (files and folders) are code they run. */
const INTERPRETERS = /^(node|nodejs|bun|deno|tsx|ts-node|python[0-9.]*|pypy[0-9.]*|ruby|perl|php|sh|bash|zsh|dash|ksh|java|lua|Rscript)$/;
/** Package runners that resolve what they run from the working folder and the folders above it. */
const PACKAGE_RUNNERS = /^(npx|npm|pnpm|pnpx|yarn|bunx|corepack|uv|uvx|pipx|poetry)$/;
const INLINE_CODE = new Set(["-m", "-c", "-e", "--eval", "-p", "--print"]);
/** Interpreter options whose value is the next argument (a module to preload, code, a folder). */
const VALUE_OPTIONS = new Set(["-r", "--require", "--import", "--loader", "--experimental-loader", "--env-file", "-C", "--conditions", "-e", "--eval", "-p", "--print", "-m", "-c", "-W", "-X", "-I", "--cwd", "--config", "-cp", "-classpath", "--class-path", "-jar"]);
/** Launchers that put their working folder on the import path (or run code found there). */
const CWD_AS_CODE = /^(python[0-9.]*|pypy[0-9.]*|uv|uvx|pip[0-9.]*|pipx|poetry|sh|bash|zsh|dash|ksh)$/;
/** Environment variables of a server whose values are code or where code is loaded from. */
const CODE_ENV_LISTS = ["NODE_PATH", "PYTHONPATH", "LD_LIBRARY_PATH", "RUBYLIB", "PERL5LIB", "GEM_PATH"];
const CODE_ENV_DIRS = [
  "PYTHONHOME", "PYTHONUSERBASE", "VIRTUAL_ENV", "NPM_CONFIG_PREFIX", "npm_config_prefix", "NPM_CONFIG_CACHE", "npm_config_cache",
  "UV_CACHE_DIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "DENO_DIR", "BUN_INSTALL", "GEM_HOME",
];
const CODE_ENV_FILES = ["PYTHONSTARTUP", "BASH_ENV", "ENV", "NPM_CONFIG_USERCONFIG", "npm_config_userconfig", "NPM_CONFIG_GLOBALCONFIG", "npm_config_globalconfig"];
/** Per-user folders launchers read code and settings from (the npx cache, pip/uv tools, configs). */
const HOME_CODE = [".npmrc", ".npm", ".cache", ".local", ".config", ".bun", ".deno", ".yarnrc", ".yarnrc.yml"];

/**
 * Refuses a workspace that holds or sits inside a path the host runs or reads as code or
 * configuration: the config, its folder's well-known files, the tools and skills folders, the
 * state folder, logs and store; and for every enabled stdio MCP server its command (as spawn
 * resolves it, through the `PATH` it is started with), the folder of that command, its path
 * arguments (absolute, `file://`, or relative to its `cwd`), its `cwd`, the `node_modules` and
 * `package.json` a package runner resolves from that `cwd`, the code-loading environment variables
 * it is given (`NODE_OPTIONS`, `NODE_PATH`, `PYTHONPATH`, …) and its home folder's launcher caches.
 * A folder argument to a server that is not an interpreter is the server's data (the filesystem
 * server's roots) and is not refused.
 * @param workspaceDir the folder mounted read-write as the scripts' working directory.
 * @throws Error naming the server (when one is concerned), the guarded path and what it is.
 */
export function checkWorkspace(workspaceDir: string, config: ToolshellConfig, options: WorkspaceGuardOptions = {}): void {
  const ws = real(workspaceDir);
  const under = (child: string, parent: string) => child === parent || child.startsWith(parent.endsWith(path.sep) ? parent : parent + path.sep);
  for (const g of guardedPaths(config, options)) {
    // Both the path as written and the file a symlink leads to: either one changed is enough.
    for (const p of new Set([lexical(g.path), real(g.path)])) {
      if (under(p, ws)) {
        throw new Error(`the workspace ${workspaceDir} holds ${g.what} (${g.path}): a script could change what the host runs or trusts. Mount a folder that holds only the files scripts work on`);
      }
      if (g.direction === "both" && under(ws, p)) {
        throw new Error(`the workspace ${workspaceDir} lies inside ${g.what} (${g.path}): a script could add code or settings the host loads from there. Mount a folder outside it`);
      }
    }
  }
}

/** Every path {@link checkWorkspace} guards, with what it is (for the error message). */
function guardedPaths(config: ToolshellConfig, options: WorkspaceGuardOptions): Guarded[] {
  const env = options.hostEnv ?? process.env;
  const base = config.baseDir;
  const out: Guarded[] = [
    { what: "the config's folder", path: base, direction: "holds" },
    // Where the host looks even when nothing is there yet: a script must not be able to create them.
    { what: "the default tools folder", path: path.join(base, "agent", "tools"), direction: "both" },
    { what: "the default skills folder", path: path.join(base, "agent", "skills"), direction: "both" },
    { what: "the state folder", path: path.join(base, ".toolshell"), direction: "both" },
    { what: "a config file the CLI looks for", path: path.join(base, "toolshell.config.json"), direction: "holds" },
    { what: "a config file the CLI looks for", path: path.join(base, ".mcp.json"), direction: "holds" },
    { what: "an MCP client config toolshell mcp --import reads", path: path.join(base, ".vscode"), direction: "both" },
    { what: "an MCP client config toolshell mcp --import reads", path: path.join(base, ".cursor"), direction: "both" },
    { what: "the server log folder", path: config.logDir, direction: "both" },
  ];
  if (config.file) out.push({ what: "the config file", path: config.file, direction: "holds" });
  // What `toolshell mcp --import` reads at every start (the project's `.mcp.json`, `.vscode/`,
  // `.cursor/`, the user's `~/.claude.json`, …), and a client's own folder holding one.
  for (const file of options.importFiles ?? []) {
    out.push({ what: "an MCP client config toolshell mcp --import reads", path: file, direction: "holds" });
    const dir = path.dirname(file);
    if (dir !== path.resolve(process.cwd()) && dir !== path.resolve(env.HOME ?? os.homedir())) out.push({ what: "the folder of an MCP client config toolshell mcp --import reads", path: dir, direction: "both" });
  }
  const toolsDir = options.toolsDir ?? config.toolsDir;
  if (toolsDir) out.push({ what: "the tools folder", path: toolsDir, direction: "both" });
  const skillsDir = options.skillsDir ?? config.skillsDir;
  if (skillsDir) out.push({ what: "the skills folder", path: skillsDir, direction: "both" });
  const store = options.storePath ?? (config.store && config.store !== ":memory:" ? config.store : undefined);
  if (store) out.push({ what: "the store", path: store, direction: "holds" });
  for (const s of config.servers) if (s.type === "stdio" && !s.disabled) out.push(...serverPaths(s, env));
  return out;
}

/** What one stdio server's start runs or reads, as the SDK's spawn starts it. */
function serverPaths(s: Extract<ServerConfig, { type: "stdio" }>, hostEnv: Readonly<Record<string, string | undefined>>): Guarded[] {
  const of = `server "${s.name}"`;
  const out: Guarded[] = [];
  const code = (what: string, p: string) => {
    out.push({ what: `${what} ${of} runs`, path: p, direction: "holds" });
    // The folder holding it: an interpreter loads the modules beside it.
    out.push({ what: `the folder of ${what} ${of} runs`, path: path.dirname(p), direction: "both" });
    out.push(...nodeModulesAbove(path.dirname(p), of));
  };
  // The SDK starts stdio servers with HOME, PATH (and a few others) from the host's environment,
  // overridden by the entry's `env`.
  const childPath = s.env.PATH ?? hostEnv.PATH ?? "";
  const home = s.env.HOME ?? hostEnv.HOME;
  // A folder on PATH: a script that writes there chooses what a bare name (the command, or
  // whatever the server itself starts: `node`, `sh`) runs.
  for (const dir of childPath.split(path.delimiter)) {
    if (dir) out.push({ what: `a folder on the PATH ${of} starts with`, path: path.resolve(s.cwd, dir), direction: "holds" });
  }
  const bare = !path.isAbsolute(s.command);
  const command = bare ? lookUp(s.command, childPath, s.cwd) : s.command;
  if (command) code("the command", command);
  out.push({ what: `the working folder of ${of}`, path: s.cwd, direction: "holds" });
  const name = path.basename(s.command).replace(/\.(exe|cmd)$/i, "");
  if (CWD_AS_CODE.test(name)) out.push({ what: `the working folder of ${of} (${name} loads code from it)`, path: s.cwd, direction: "both" });
  // Package runners resolve `node_modules/.bin`, `package.json` and `.npmrc` from the working
  // folder up; node resolves packages the same way from a script's folder.
  out.push(...nodeModulesAbove(s.cwd, of));
  if (PACKAGE_RUNNERS.test(name)) {
    out.push({ what: `the package.json ${of} (${name}) reads`, path: path.join(s.cwd, "package.json"), direction: "holds" });
    out.push({ what: `the .npmrc ${of} (${name}) reads`, path: path.join(s.cwd, ".npmrc"), direction: "holds" });
  }
  codePositions(name, s.args).forEach((isCode, i) => {
    for (const candidate of pathsIn(s.args[i], s.cwd, home)) {
      const kind = kindOf(candidate);
      if (isCode && kind === "folder") {
        out.push({ what: `a folder ${of} runs code from`, path: candidate, direction: "both" });
        out.push(...nodeModulesAbove(candidate, of));
      } else if (isCode && kind !== "folder") code("a file", candidate);
      // A file the server reads (its settings, most often); a folder outside a code position is
      // the server's data (the filesystem server's roots).
      else if (kind === "file") out.push({ what: `a file ${of} is given`, path: candidate, direction: "holds" });
    }
  });
  for (const key of CODE_ENV_FILES) if (s.env[key]) out.push({ what: `the file ${key} names for ${of}`, path: path.resolve(s.cwd, s.env[key]), direction: "holds" });
  for (const key of CODE_ENV_DIRS) if (s.env[key]) out.push({ what: `the folder ${key} names for ${of}`, path: path.resolve(s.cwd, s.env[key]), direction: "both" });
  for (const key of CODE_ENV_LISTS) {
    for (const dir of (s.env[key] ?? "").split(path.delimiter)) if (dir) out.push({ what: `a folder ${key} names for ${of}`, path: path.resolve(s.cwd, dir), direction: "both" });
  }
  for (const key of ["NODE_OPTIONS", "LD_PRELOAD"]) {
    for (const token of (s.env[key] ?? "").split(/[\s:]+/)) {
      for (const candidate of pathsIn(token, s.cwd, home)) code(`a file ${key} loads for`, candidate);
    }
  }
  if (home) {
    out.push({ what: `the home folder of ${of}`, path: home, direction: "holds" });
    for (const entry of HOME_CODE) out.push({ what: `${entry} in the home folder of ${of}`, path: path.join(home, entry), direction: "both" });
  }
  return out;
}

/**
 * Which arguments are code positions: for an interpreter, its options' values and the script
 * (the first argument that is not an option); for a package runner, every argument (a path there
 * is a package to run); for any other command, none (its arguments are its own settings and data).
 */
function codePositions(name: string, args: string[]): boolean[] {
  if (PACKAGE_RUNNERS.test(name)) return args.map(() => true);
  if (!INTERPRETERS.test(name)) return args.map(() => false);
  const out = args.map(() => false);
  for (let i = 0; i < args.length; i++) {
    out[i] = true;
    if (!args[i].startsWith("-")) break;
    if (VALUE_OPTIONS.has(args[i]) && i + 1 < args.length) out[++i] = true;
    // Code given inline or a module by name: no script argument follows.
    if (INLINE_CODE.has(args[i - 1] ?? "") || INLINE_CODE.has(args[i])) break;
  }
  return out;
}

/** `node_modules` of a folder and of every folder above it (where node and npx resolve packages). */
function nodeModulesAbove(dir: string, of: string): Guarded[] {
  const out: Guarded[] = [];
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    out.push({ what: `a node_modules folder ${of} resolves packages from`, path: path.join(d, "node_modules"), direction: "both" });
    if (path.dirname(d) === d) return out;
  }
}

/** The file a bare command name runs, as spawn finds it: the first executable on PATH (relative entries from `cwd`). */
function lookUp(command: string, pathVar: string, cwd: string): string | undefined {
  if (command.includes("/")) return path.resolve(cwd, command);
  for (const dir of pathVar.split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.resolve(cwd, dir, command);
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {}
  }
  return undefined;
}

/**
 * The paths an argument names: itself, or the value of `--flag=value`, when it is absolute, a
 * `file://` URL, starts with `~/`, `./` or `../`, holds a slash, or exists relative to `cwd`.
 * Other URLs and plain words (package names, options) name no path.
 */
function pathsIn(arg: string, cwd: string, home: string | undefined): string[] {
  const out: string[] = [];
  for (const value of arg.startsWith("-") && arg.includes("=") ? [arg.slice(arg.indexOf("=") + 1)] : [arg]) {
    if (!value || /^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
      if (value.startsWith("file://")) {
        try {
          out.push(fileURLToPath(value));
        } catch {}
      }
      continue;
    }
    if (value.startsWith("~/") && home) out.push(path.join(home, value.slice(2)));
    else if (path.isAbsolute(value) || value.includes("/") || value.startsWith(".") || existsSync(path.resolve(cwd, value))) out.push(path.resolve(cwd, value));
  }
  return out;
}

/** A file (or a path with an extension that does not exist yet), a folder, or neither known. */
function kindOf(p: string): "file" | "folder" | "unknown" {
  try {
    return statSync(p).isDirectory() ? "folder" : "file";
  } catch {
    return path.extname(p) ? "file" : "unknown";
  }
}

/** `p` made absolute, without following links. */
function lexical(p: string): string {
  return path.resolve(p);
}

/**
 * The real path of `p`, or, when it does not exist yet, of its deepest existing ancestor with the
 * rest appended (so a symlink above a path to be created is followed).
 */
function real(p: string): string {
  let head = path.resolve(p);
  const rest: string[] = [];
  for (;;) {
    try {
      return path.join(realpathSync(head), ...rest);
    } catch {
      const up = path.dirname(head);
      if (up === head) return path.resolve(p);
      rest.unshift(path.basename(head));
      head = up;
    }
  }
}
