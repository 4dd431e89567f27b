/**
 * `toolshell completion bash|zsh|fish`: a completion script for the CLI's commands and options,
 * made from the commander program itself so it cannot drift from `toolshell --help`.
 *
 *   source <(toolshell completion bash)                       # ~/.bashrc
 *   source <(toolshell completion zsh)                        # ~/.zshrc (uses bashcompinit)
 *   toolshell completion fish > ~/.config/fish/completions/toolshell.fish
 */
import type { Command, Option } from "commander";

/** The shells a script can be made for. */
export const COMPLETION_SHELLS = ["bash", "zsh", "fish"] as const;

interface Spec {
  name: string;
  description: string;
  options: Option[];
}

const takesValue = (o: Option) => o.required || o.optional;
const flags = (o: Option) => [o.short, o.long].filter((f): f is string => !!f);
/** Options whose value is a path (completed with file names). */
const PATHS = new Set(["--config", "--workspace", "--store", "--write"]);

function specs(program: Command): { global: Spec; commands: Spec[] } {
  const help = (c: Command): Option[] => [...c.options, ...(c.options.some((o) => o.long === "--help") ? [] : [{ long: "--help", short: "-h", description: "display help for command", required: false, optional: false } as Option])];
  return {
    global: { name: "", description: "", options: help(program) },
    commands: program.commands.map((c) => ({ name: c.name(), description: c.description(), options: help(c) })),
  };
}

const sq = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;

function bash(program: Command): string {
  const { global, commands } = specs(program);
  const valued = [global, ...commands].flatMap((s) => s.options.filter(takesValue).flatMap(flags));
  const paths = [global, ...commands].flatMap((s) => s.options.filter((o) => o.long && PATHS.has(o.long)).flatMap(flags));
  const cases = commands.map((c) => `    ${c.name}) opts=${sq([...new Set([...c.options, ...global.options].flatMap(flags))].join(" "))} ;;`).join("\n");
  return `# toolshell completion for bash: source <(toolshell completion bash)
_toolshell() {
  local cur prev sub="" opts="" i
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  case " ${paths.join(" ")} " in *" $prev "*) COMPREPLY=($(compgen -f -- "$cur")); return ;; esac
  case " ${valued.join(" ")} " in *" $prev "*) COMPREPLY=(); return ;; esac
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "\${COMP_WORDS[i]}" in
      ${valued.join("|")}) ((i++)) ;;
      -*) ;;
      *) sub="\${COMP_WORDS[i]}"; break ;;
    esac
  done
  case "$sub" in
${cases}
  esac
  if [[ -z "$sub" && "$cur" != -* ]]; then
    COMPREPLY=($(compgen -W ${sq(commands.map((c) => c.name).join(" "))} -- "$cur"))
  elif [[ -z "$sub" ]]; then
    COMPREPLY=($(compgen -W ${sq(global.options.flatMap(flags).join(" "))} -- "$cur"))
  elif [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
  elif [[ "$sub" == completion ]]; then
    COMPREPLY=($(compgen -W ${sq(COMPLETION_SHELLS.join(" "))} -- "$cur"))
  else
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
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
  const { global, commands } = specs(program);
  const line = (o: Option, cond: string) => {
    const parts = ["complete -c toolshell"];
    if (cond) parts.push(`-n ${sq(cond)}`);
    if (o.short) parts.push(`-s ${o.short.slice(1)}`);
    if (o.long) parts.push(`-l ${o.long.slice(2)}`);
    if (takesValue(o)) parts.push(o.long && PATHS.has(o.long) ? "-r -F" : "-r");
    parts.push(`-d ${sq(o.description)}`);
    return parts.join(" ");
  };
  const names = commands.map((c) => c.name).join(" ");
  return [
    "# toolshell completion for fish: toolshell completion fish > ~/.config/fish/completions/toolshell.fish",
    "complete -c toolshell -f",
    ...commands.map((c) => `complete -c toolshell -n ${sq(`not __fish_seen_subcommand_from ${names}`)} -a ${c.name} -d ${sq(c.description)}`),
    ...global.options.map((o) => line(o, "")),
    ...commands.flatMap((c) => c.options.filter((o) => o.long !== "--help").map((o) => line(o, `__fish_seen_subcommand_from ${c.name}`))),
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
