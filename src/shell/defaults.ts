/**
 * The commands and notes every toolshell shell gets by default: the compatibility fixes that
 * make `jq`, `xargs` and bash behave like the real ones, and the few lines an agent reads about
 * the shell.
 *
 * Rule source: docs/shell.md (jq and bash that behave like the real ones).
 */
import type { Command } from "just-bash";
import { compatCommands, SHELL_NOTES as COMPAT_NOTES } from "./commands/index.js";

/** The shell's notes for `tools --help` and the `bash` tool's description. */
export const SHELL_NOTES: string = COMPAT_NOTES;

/** Commands registered beside `tools` in every session's shell (first, so they replace bundled ones). */
export function defaultEngineCommands(): Command[] {
  return compatCommands();
}
