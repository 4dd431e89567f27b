/**
 * `toolshell completion bash|zsh|fish`: a completion script for the CLI's commands and options,
 * made from the commander program itself so it cannot drift from `toolshell --help`. It completes
 * at every level: commands and their subcommands (`scripts show`), each command's options (and
 * the program's), the words an option or argument takes (`daemon status|stop`, `--import vscode`,
 * `approve ID allow_always`), and file names where a path goes.
 *
 *   source <(toolshell completion bash)                       # ~/.bashrc
 *   source <(toolshell completion zsh)                        # ~/.zshrc (uses bashcompinit)
 *   toolshell completion fish > ~/.config/fish/completions/toolshell.fish
 */
import type { Command, Option } from "commander";
import { wordsOf } from "./usage.js";

/** The shells a script can be made for. */
export const COMPLETION_SHELLS = ["bash", "zsh", "fish"] as const;

/** One command of the tree, named by its path of words (`""` for the program, `scripts show`). */
interface Node {
  path: string;
  description: string;
  subs: { name: string; description: string }[];
  /** Its own options and the program's (the program's are accepted after any command). */
  options: Option[];
  /** The words each positional argument takes (the last one repeats when it is variadic). */
  args: (readonly string[] | undefined)[];
  variadic: boolean;
}

const takesValue = (o: Option) => o.required || o.optional;
const flags = (o: Option) => [o.short, o.long].filter((f): f is string => !!f);
/** Options whose value is a path (completed with file names). */
const PATHS = new Set(["--config", "--workspace", "--store", "--write", "--cwd"]);
const HELP = { long: "--help", short: "-h", description: "display help for command", required: false, optional: false } as Option;
const shown = (c: Command) => !(c as unknown as { _hidden?: boolean })._hidden && c.name() !== "help";

function tree(program: Command): Node[] {
  const global = [...program.options.filter((o) => !o.hidden), HELP];
  const out: Node[] = [];
  const walk = (c: Command, path: string) => {
    const own = c === program ? [] : c.options.filter((o) => !o.hidden && o.long !== "--help");
    const seen = new Set(own.map((o) => o.long));
    const args = c.registeredArguments;
    out.push({
      path,
      description: c.description(),
      subs: c.commands.filter(shown).map((s) => ({ name: s.name(), description: s.description() })),
      options: [...own, ...global.filter((o) => !seen.has(o.long))],
      args: args.map((a) => wordsOf(a.parseArg)),
      variadic: args.at(-1)?.variadic ?? false,
    });
    for (const s of c.commands.filter(shown)) walk(s, path ? `${path} ${s.name()}` : s.name());
  };
  walk(program, "");
  return out;
}

const sq = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;

function bash(program: Command): string {
  const nodes = tree(program);
  const spec = nodes
    .map((n) => {
      const valued = n.options.filter(takesValue);
      return `    ${sq(n.path)}) subs=${sq(n.subs.map((s) => s.name).join(" "))}; opts=${sq(n.options.flatMap(flags).join(" "))}; valued=${sq(valued.flatMap(flags).join(" "))}; files=${sq(valued.filter((o) => o.long && PATHS.has(o.long)).flatMap(flags).join(" "))} ;;`;
    })
    .join("\n");
  const words: string[] = [];
  for (const n of nodes) {
    n.args.forEach((w, i) => {
      if (w) words.push(`    ${sq(`${n.path}:${i}`)}${n.variadic && i === n.args.length - 1 ? `|${sq(`${n.path}:`)}*` : ""}) echo ${sq(w.join(" "))} ;;`);
    });
    for (const o of n.options) {
      const w = wordsOf(o.parseArg);
      if (w) for (const f of flags(o)) words.push(`    ${sq(`${n.path}|${f}`)}) echo ${sq(w.join(" "))} ;;`);
    }
  }
  return `# toolshell completion for bash: source <(toolshell completion bash)
_toolshell_spec() {
  subs="" opts="" valued="" files=""
  case "$1" in
${spec}
  esac
}
_toolshell_words() {
  case "$1" in
${words.join("\n")}
  esac
}
_toolshell() {
  local cur prev path="" n=0 i w subs opts valued files list
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    _toolshell_spec "$path"
    if [[ " $valued " == *" $w "* ]]; then ((i++)); continue; fi
    [[ "$w" == -* ]] && continue
    if [[ $n -eq 0 && " $subs " == *" $w "* ]]; then path="\${path:+$path }$w"; else ((n++)); fi
  done
  _toolshell_spec "$path"
  if [[ " $files " == *" $prev "* ]]; then COMPREPLY=($(compgen -f -- "$cur")); return; fi
  if [[ " $valued " == *" $prev "* ]]; then
    list="$(_toolshell_words "$path|$prev")"
    COMPREPLY=($(compgen -W "$list" -- "$cur"))
    return
  fi
  if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W "$opts" -- "$cur")); return; fi
  if [[ -n "$subs" && $n -eq 0 ]]; then COMPREPLY=($(compgen -W "$subs" -- "$cur")); return; fi
  list="$(_toolshell_words "$path:$n")"
  if [[ -n "$list" ]]; then COMPREPLY=($(compgen -W "$list" -- "$cur")); else COMPREPLY=($(compgen -f -- "$cur")); fi
}
complete -F _toolshell toolshell
`;
}

function zsh(program: Command): string {
  return `#compdef toolshell
# toolshell completion for zsh: source <(toolshell completion zsh)
autoload -U +X compinit && compinit
autoload -U +X bashcompinit && bashcompinit
${bash(program)}`;
}

function fish(program: Command): string {
  const nodes = tree(program);
  const at = (p: string) => `__toolshell_at "${p}"`;
  const line = (o: Option, cond: string) => {
    const parts = ["complete -c toolshell", `-n ${sq(cond)}`];
    if (o.short) parts.push(`-s ${o.short.slice(1)}`);
    if (o.long) parts.push(`-l ${o.long.slice(2)}`);
    const w = wordsOf(o.parseArg);
    if (takesValue(o)) parts.push(o.long && PATHS.has(o.long) ? "-r -F" : w ? `-r -a ${sq(w.join(" "))}` : "-r");
    parts.push(`-d ${sq(o.description)}`);
    return parts.join(" ");
  };
  const subsCase = nodes.filter((n) => n.subs.length).map((n) => `    case ${sq(n.path)}\n      printf '%s\\n' ${n.subs.map((s) => s.name).join(" ")}`);
  return [
    "# toolshell completion for fish: toolshell completion fish > ~/.config/fish/completions/toolshell.fish",
    "function __toolshell_subs",
    '  switch "$argv[1]"',
    ...subsCase,
    "  end",
    "end",
    "function __toolshell_path",
    '  set -l path ""',
    "  for w in (commandline -opc)[2..-1]",
    "    string match -q -- '-*' $w; and continue",
    "    contains -- $w (__toolshell_subs $path); or break",
    '    set path (string trim -- "$path $w")',
    "  end",
    '  echo "$path"',
    "end",
    "function __toolshell_at",
    "  set -l p (__toolshell_path)",
    '  test "$p" = "$argv[1]"',
    "end",
    "complete -c toolshell -f",
    ...nodes.flatMap((n) => n.subs.map((s) => `complete -c toolshell -n ${sq(at(n.path))} -a ${s.name} -d ${sq(s.description)}`)),
    ...nodes.flatMap((n) => n.args.flatMap((w) => (w ? [`complete -c toolshell -n ${sq(at(n.path))} -a ${sq(w.join(" "))}`] : []))),
    ...nodes.flatMap((n) => n.options.map((o) => line(o, at(n.path)))),
    "",
  ].join("\n");
}

/**
 * The completion script of `shell` for `program`.
 * @throws Error naming the shells it knows when `shell` is not one of them
 */
export function completionScript(shell: string, program: Command): string {
  if (shell === "bash") return bash(program);
  if (shell === "zsh") return zsh(program);
  if (shell === "fish") return fish(program);
  throw new Error(`completion: unknown shell ${JSON.stringify(shell)}; known: ${COMPLETION_SHELLS.join(", ")}`);
}
