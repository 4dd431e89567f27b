import type { BashOptions, Command } from "just-bash";
import { createJqCommand } from "./jq/command.js";
import { createUniqCommand, createWcCommand } from "./coreutils.js";
import { createXargsCommand } from "./xargs.js";

export { createJqCommand, scanJqArgv, JQ_VERSION, type JqArgvScan } from "./jq/command.js";
export { JqEngine, sharedJqEngine, type JqRunRequest, type JqRunResult, type JqStagedFile } from "./jq/engine.js";
export { createXargsCommand } from "./xargs.js";
export { createUniqCommand, createWcCommand } from "./coreutils.js";

/**
 * The just-bash custom commands that make the shell behave like the real tools
 * (issue 3): `jq` (real jq 1.7.1 in WebAssembly, files from the session's virtual
 * filesystem), `xargs` (with `-I`, `-n`, `-L`, `-0`, `-d`, `-r`, `-t`), and thin
 * wrappers that give `uniq -c` and `wc` (stdin, several counts) GNU's column widths.
 * Returns new Command objects on each call; they hold no per-session state (jq runs
 * share one worker, queued). Pass them first in `customCommands` so they replace the
 * bundled commands of the same name.
 */
export function compatCommands(): Command[] {
  return [createJqCommand(), createXargsCommand(), createUniqCommand(), createWcCommand()];
}

/**
 * Constructor options for `new Bash(...)` that the compatibility layer needs.
 * Currently none: the interpreter fixes (`$cmd`/`"$@"` as a command word, `trap`,
 * redirection errors) are applied to just-bash at install time by
 * `patches/just-bash+3.4.2.patch` (patch-package, root `postinstall`).
 */
export function compatBashOptions(): Partial<BashOptions> {
  return {};
}

/**
 * What an agent is told about the shell, in a few lines: used in the `bash` tool's
 * description and the footer of `tools --help`. Measured at about 150 tokens (o200k);
 * see docs/shell.md for the measurement command.
 */
export const SHELL_NOTES = [
  "Shell: a sandboxed bash 5 (just-bash) over a virtual filesystem; no network, no host binaries, no background jobs (&), no signals.",
  "jq is the real jq 1.7.1: `jq -n`, `--arg/--argjson/--slurpfile/--rawfile`, `-L` modules read files from this filesystem; `env`/`$ENV` see exported variables; dates are UTC; `strftime(\"%Z\")` fails (use \"UTC\").",
  "Works: pipes, $(...), <(...), here-docs, arrays/assoc arrays, [[ ]], (( )), local, trap EXIT/ERR, set -euo pipefail, read -r, mapfile, printf, xargs -I{}/-n/-0, sed, awk, grep, sort, find.",
  "Not there: exec of real programs, sudo, ssh, curl (unless enabled), wait/kill/job control, coproc, select.",
].join("\n");
