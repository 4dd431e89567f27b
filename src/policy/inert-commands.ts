/**
 * The allow-list of the pre-start reading: the commands it knows cannot run a command or code it
 * does not see, and the variables whose value the shell itself runs or uses to find commands.
 * A command outside the list, or one of these given an option that runs code, makes the plan
 * incomplete (docs/security.md, "The preflight"). Each entry was checked against how the engine
 * (just-bash with toolshell's fixes, patches/README.md) runs it.
 */

/**
 * Commands that never run another command or evaluate text as code, whatever their arguments
 * (the interpreter's builtins and the engine's commands). `awk`, `find`, `rg`, `tar`, `compgen`,
 * `complete`, `hash`, `trap`, `mapfile`/`readarray`, `exec`, `command` and `alias` are inert only
 * as {@link codeRunner} allows.
 */
const INERT = new Set([
  // builtins
  ":", "true", "false", "cd", "export", "unset", "exit", "local", "set", "break", "continue", "return", "shift", "getopts",
  "pushd", "popd", "dirs", "read", "declare", "typeset", "readonly", "let", "shopt", "test", "[", "echo", "printf", "pwd",
  "unalias", "type", "ulimit", "umask", "times", "wait", "kill", "jobs", "caller", "help",
  // option-checked builtins (codeRunner)
  "compgen", "complete", "compopt", "hash", "trap", "mapfile", "readarray", "exec", "command", "builtin", "alias",
  // the engine's commands
  "cat", "ls", "mkdir", "rmdir", "touch", "rm", "cp", "mv", "ln", "chmod", "readlink", "head", "tail", "wc", "stat", "grep",
  "fgrep", "egrep", "sed", "sort", "uniq", "comm", "cut", "paste", "tr", "rev", "nl", "fold", "expand", "unexpand", "strings",
  "split", "column", "join", "tee", "basename", "dirname", "tree", "du", "printenv", "clear", "jq", "base64", "diff", "date",
  "sleep", "seq", "expr", "md5sum", "sha1sum", "sha256sum", "file", "html-to-markdown", "tac", "hostname", "whoami", "od",
  "gzip", "gunzip", "zcat", "yq", "xan", "sqlite3", "which", "history",
  // option-checked engine commands (codeRunner)
  "awk", "find", "rg", "tar",
]);

/** True when the reading knows the command (see {@link codeRunner} for the options it checks). */
export function isInertCommand(name: string): boolean {
  return INERT.has(name);
}

/**
 * Variables the shell runs, or uses to choose what a command name runs: a script setting one can
 * run code no command of it shows (`PS4='$(…)'` with `set -x`, `BASH_CMDS[cat]=FILE`).
 */
const CODE_VARIABLES = new Set(["PATH", "PS0", "PS1", "PS2", "PS3", "PS4", "PROMPT_COMMAND", "BASH_ENV", "ENV", "BASH_CMDS", "BASH_ALIASES", "SHELLOPTS", "BASHOPTS", "EXECIGNORE", "BASH_LOADABLES_PATH"]);

/** Why setting this variable (a name, maybe with a subscript) can run hidden code, or undefined. */
export function codeVariable(name: string): string | undefined {
  const base = name.replace(/[[+].*$/, "");
  if (!CODE_VARIABLES.has(base)) return undefined;
  return base === "PATH" ? "PATH is changed: any command may then run a file the script wrote" : `${base} is set: the shell runs or looks commands up by its value`;
}

const CODE_TEXT = /\$\(|`|\$\{|\$\[|<\(|>\(/;

/**
 * Why a command of the allow-list runs code with these arguments (`lits[i]` undefined when the
 * word is built at run time), or undefined when it does not.
 */
export function codeRunner(base: string, lits: Array<string | undefined>): string | undefined {
  const flags = lits.filter((l): l is string => l !== undefined && /^-[A-Za-z]/.test(l));
  const any = (re: RegExp) => flags.some((f) => re.test(f));
  switch (base) {
    case "awk": {
      // The program: the first word that is not an option or an option's value.
      let program: string | undefined;
      for (let i = 0; i < lits.length; i++) {
        const l = lits[i];
        if (l === undefined) return "awk with a word built at run time";
        if (l === "-f" || l.startsWith("-f") || l === "--file" || l.startsWith("--file=")) return "awk -f runs a program from a file";
        if (l === "-F" || l === "-v") { i++; continue; }
        if (l.startsWith("-")) continue;
        program = l;
        break;
      }
      // `"cmd" | getline`, `print | "cmd"` and `system()` run commands; `||` does not.
      if (program !== undefined && (/\bsystem\s*\(/.test(program) || /(^|[^|])\|(?!\|)/.test(program))) return "awk runs a command (a pipe or system())";
      return undefined;
    }
    case "find":
      if (lits.some((l) => l === undefined)) return "find with a word built at run time";
      if (lits.some((l) => /^-(exec|execdir|ok|okdir)$/.test(l!))) return "find -exec runs a command for each file";
      return undefined;
    case "rg":
      if (lits.some((l) => l === undefined || l === "--pre" || l.startsWith("--pre="))) return "rg --pre runs a command for each file";
      return undefined;
    case "tar":
      if (lits.some((l) => l === undefined || /command|compress-program|checkpoint-action|info-script|volume-script|^-[A-Za-z]*[IF]/.test(l))) return "tar with an option that runs a command";
      return undefined;
    case "compgen":
    case "complete":
    case "compopt": {
      if (any(/^-[A-Za-z]*[CF]/)) return `${base} -C/-F runs a command or function`;
      // -W, -X, -P, -S texts are expanded by the builtin itself: their text must hold no code.
      for (let i = 0; i < lits.length; i++) {
        if (lits[i] === undefined || (CODE_TEXT.test(lits[i]!) && /^-[A-Za-z]*[WXPS]$/.test(lits[i - 1] ?? ""))) return `${base} expands a text that may hold code`;
      }
      return undefined;
    }
    case "hash":
      if (lits.some((l) => l === undefined) || any(/^-[A-Za-z]*p/)) return "hash -p makes a command name run a file";
      return undefined;
    case "trap": {
      const rest = lits.filter((l) => l === undefined || !/^-[lp-]*$/.test(l) || l === "-");
      if (rest.length === 0 || rest[0] === "" || rest[0] === "-") return undefined;
      return "trap runs its text as code";
    }
    case "mapfile":
    case "readarray":
      if (lits.some((l) => l === undefined) || any(/^-[A-Za-z]*C/)) return `${base} -C runs a callback`;
      return undefined;
    case "exec":
      return lits.length > 0 ? "exec runs a command" : undefined;
    case "builtin":
      return lits.length > 0 ? "builtin with a name built at run time or an option" : undefined;
    case "command":
      // `command -v NAME` only says what NAME is.
      return lits.length === 0 || (lits[0] !== undefined && /^-[vV]+$/.test(lits[0])) ? undefined : "command runs a command";
    case "alias":
      return lits.some((l) => l === undefined || l.includes("=")) ? "alias defines text run as code" : undefined;
  }
  return undefined;
}
