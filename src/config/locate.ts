/**
 * Which config file a CLI run uses: `--config`, then `TOOLSHELL_CONFIG`, then
 * `toolshell.config.json` or `.mcp.json` in the working folder (README "Configuration"). Kept
 * apart from the schema so the CLI's warm-host client can find the file without loading it.
 */
import { existsSync } from "node:fs";
import path from "node:path";

/**
 * Finds the config file for a folder: `toolshell.config.json`, then `.mcp.json`.
 * @returns the path, or undefined when neither exists.
 */
export function findConfigFile(dir: string): string | undefined {
  for (const name of ["toolshell.config.json", ".mcp.json"]) {
    const p = path.join(dir, name);
    if (existsSync(p)) return p;
  }
  return undefined;
}

/**
 * The config file of a CLI run: `--config` when given, else the `TOOLSHELL_CONFIG` environment
 * variable (for tools that own `--config`, such as the MCP Inspector's CLI), else
 * {@link findConfigFile} in `cwd`.
 * @returns the path, or undefined when none is named and none is found.
 * @throws Error `config file not found: FILE` when a named file does not exist.
 */
export function resolveConfigFile(options: { flag?: string; env?: Readonly<Record<string, string | undefined>>; cwd?: string } = {}): string | undefined {
  const fromEnv = (options.env ?? process.env).TOOLSHELL_CONFIG || undefined;
  const named = options.flag ?? fromEnv;
  if (named === undefined) return findConfigFile(options.cwd ?? process.cwd());
  const full = path.resolve(options.cwd ?? process.cwd(), named);
  if (!existsSync(full)) throw new Error(`config file not found: ${named}${options.flag === undefined ? " (named by TOOLSHELL_CONFIG)" : ""}`);
  return full;
}
