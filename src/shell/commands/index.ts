import type { BashOptions, Command } from "just-bash";
import { createJqCommand } from "./jq/command.js";
import { createLnCommand, createUniqCommand, createWcCommand } from "./coreutils/coreutils.js";
import { createDiffCommand } from "./coreutils/diff.js";
import { createXargsCommand } from "./xargs/xargs.js";

export { createJqCommand, scanJqArgv, JQ_VERSION, type JqArgvScan } from "./jq/command.js";
export { planJqArgv, type JqPlan, type JqArgOp } from "./jq/argv.js";
export { JqEngine, JqPool, sharedJqEngine, type JqRunner, type JqRunRequest, type JqRunResult, type JqStagedFile } from "./jq/engine.js";
export { createXargsCommand } from "./xargs/xargs.js";
export { createLnCommand, createUniqCommand, createWcCommand } from "./coreutils/coreutils.js";
export { createDiffCommand, DIFF_SEARCH_MS } from "./coreutils/diff.js";

/**
 * The just-bash custom commands that make the shell behave like the real tools
 * (docs/shell.md): `jq` (real jq 1.7.1 in WebAssembly, files from the session's virtual
 * filesystem), `xargs` (with `-I`, `-n`, `-L`, `-0`, `-d`, `-r`, `-t`), and thin
 * wrappers that give `uniq -c` and `wc` (stdin, several counts) GNU's column widths,
 * `ln -s` GNU's message for a refused symbolic link, and `diff` a search that never holds the host.
 * Returns new Command objects on each call; they hold no per-session state (jq runs
 * share one worker, queued). Pass them first in `customCommands` so they replace the
 * bundled commands of the same name.
 */
export function compatCommands(): Command[] {
  return [createJqCommand(), createXargsCommand(), createUniqCommand(), createWcCommand(), createLnCommand(), createDiffCommand()];
}

/**
 * Constructor options for `new Bash(...)` that the compatibility layer needs.
 * Currently none: the interpreter fixes (`$cmd`/`"$@"` as a command word, `trap`,
 * redirection errors) are edits of just-bash's bundle (patches/README.md), shipped in the
 * package as the bundled engine in `dist/engine/`.
 */
export function compatBashOptions(): Partial<BashOptions> {
  return {};
}

/**
 * What an agent is told about the shell, in a few lines: used in the `bash` tool's
 * description and the footer of `tools --help`. It names what works like bash, what is
 * absent, and the workaround for each known gap (docs/shell.md has the evidence).
 * Measured with gpt-tokenizer (o200k_base); test/shell/bash-compat.unit.test.ts bounds it.
 */
export const SHELL_NOTES = [
  "Shell: bash 5 emulated in-process (just-bash) on a virtual filesystem; no network, no host programs (git, python, curl), no job control (& runs in order), no coproc/select.",
  "Works as in bash: pipes, $( ), <( ), here-docs, arrays, assoc arrays, local, (( )), [[ =~ ]], trap EXIT/ERR, set -euo pipefail, read -r, mapfile, xargs -I{}/-n/-0, sed, awk, yq.",
  "jq is real jq 1.7.1: files, --slurpfile, --rawfile, -L read this filesystem; env = exported vars; UTC. Numbers keep their literal text (1.0 stays 1.0).",
  "Gaps: diff is unified (use diff -u); $((x/0)) doesn't stop the line; xargs -t trace comes after output under 2>&1.",
].join("\n");
