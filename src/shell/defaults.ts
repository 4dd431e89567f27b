/**
 * The commands and notes every toolshell shell gets by default: the compatibility fixes that
 * make `jq`, `xargs` and bash behave like the real ones, and the few lines an agent reads about
 * the shell.
 *
 * See docs/shell.md.
 */
import type { Command } from "just-bash";
import { compatCommands, SHELL_NOTES as COMPAT_NOTES } from "./commands/index.js";
import { markDirect } from "./engine.js";

/** The shell's notes for `tools --help` and the `bash` tool's description. */
export const SHELL_NOTES: string = COMPAT_NOTES;

/**
 * Commands registered beside `tools` in every session's shell (first, so they replace bundled ones),
 * marked as toolshell's own (they run without just-bash's per-command guard, patches/README.md H23).
 */
export function defaultEngineCommands(): Command[] {
  return compatCommands().map(markDirect);
}
