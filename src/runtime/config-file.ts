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
