/**
 * The terms of the pre-start reading (script-reader.ts): what it finds, the node types and
 * commands it knows, and how the values a script gives its variables are judged known before the
 * run. See docs/security.md ("The preflight").
 */
import type { StdinSource } from "./stdin-source.js";

/** One `tools` call found in a script. */
export interface FoundCall {
  /** Every word after `tools`, when all are literal. */
  words: string[] | undefined;
  /** The literal words up to the first one built at run time. */
  partial: string[];
  line: number;
  /** Where its stdin comes from (read when it is given no input words, or `-`). */
  stdin: StdinSource;
  /** The command that runs it when not called directly (`xargs`, `/usr/bin/tools`). */
  via?: string;
}

/** What a reading found. */
export interface ScriptReading {
  calls: FoundCall[];
  /** Why calls could be hidden from the reading, one line each. */
  hidden: string[];
}

export type Node = { type?: string; [key: string]: unknown };

/** Commands that run their arguments (or text) as a command: a call inside them is hidden from reading. */
/** Commands that run the command named in their words with exactly the words after it. */
export const EXACT_RUNNERS = new Set(["command", "builtin", "env", "nohup", "timeout", "time", "nice"]);
export const HIDING = new Set(["eval", "source", ".", "bash", "sh", "xargs", "env", "nohup", "timeout", "time", "nice", "parallel", "watch", "enable", "fc"]);
/** The node types of just-bash's AST (`ast/types.d.ts`) the reading knows; any other makes the plan incomplete. */
export const KNOWN_NODES = new Set([
  "Script", "Statement", "Pipeline", "SimpleCommand", "Word", "Literal", "SingleQuoted", "DoubleQuoted", "Escaped", "ParameterExpansion",
  "CommandSubstitution", "ProcessSubstitution", "ArithmeticExpansion", "ArithmeticExpression", "ArithmeticCommand", "TildeExpansion", "Glob",
  "BraceExpansion", "Range", "Assignment", "Redirection", "HereDoc", "If", "For", "CStyleFor", "While", "Until", "Case", "CaseItem", "Subshell",
  "Group", "FunctionDef", "ConditionalCommand", "CondAnd", "CondOr", "CondNot", "CondGroup", "CondUnary", "CondBinary", "CondWord",
  "DefaultValue", "AssignDefault", "ErrorIfUnset", "UseAlternative", "Length", "LengthSliceError", "BadSubstitution", "Substring",
  "PatternRemoval", "PatternReplacement", "CaseModification", "Transform", "Indirection", "ArrayKeys", "VarNamePrefix",
  "ArithArrayElement", "ArithAssignment", "ArithBinary", "ArithBracedExpansion", "ArithCommandSubst", "ArithConcat", "ArithDoubleSubscript",
  "ArithDynamicAssignment", "ArithDynamicBase", "ArithDynamicElement", "ArithDynamicNumber", "ArithGroup", "ArithNested", "ArithNumber",
  "ArithNumberSubscript", "ArithSingleQuote", "ArithSpecialVar", "ArithSyntaxError", "ArithTernary", "ArithUnary", "ArithVariable",
]);
/** Functions the shell itself calls. */
export const HOOK_FUNCTIONS = new Set(["tools", "command_not_found_handle"]);
/** Builtins that take variable names (with subscripts) or arithmetic as arguments. */
export const NAME_TAKING = new Set(["printf", "read", "declare", "typeset", "local", "export", "readonly", "unset", "let", "test", "[", "mapfile", "readarray", "getopts", "wait"]);
export const DECLARING = new Set(["declare", "typeset", "local", "export", "readonly"]);
/** Options of these builtins that take a value which is not a variable name (`read -p PROMPT`, `mapfile -d DELIM`). */
const VALUE_OPTIONS: Record<string, string> = { read: "pdtnNui", mapfile: "dnOsuCc", readarray: "dnOsuCc" };

/**
 * The words a name-taking builtin takes as variable names (before any `=`): every operand of the
 * declaring builtins and `unset`, `read`, `mapfile`/`readarray`; the name after `printf -v`,
 * `wait -p`, `read -a`; `getopts`' second operand. Literal words only (a word built at run time is
 * judged by `nameTaking`).
 */
export function namesGiven(base: string, lits: ReadonlyArray<string | undefined>): string[] {
  const names: string[] = [];
  const valued = VALUE_OPTIONS[base] ?? "";
  let operands = 0;
  for (let i = 0; i < lits.length; i++) {
    const l = lits[i];
    const prev = i > 0 ? lits[i - 1] : undefined;
    const option = prev !== undefined && /^-[A-Za-z]+$/.test(prev) ? prev.slice(-1) : "";
    if (l === undefined) continue;
    if (base === "printf" || base === "wait") {
      if (option === (base === "printf" ? "v" : "p")) names.push(l);
      continue;
    }
    if (option === "a" && base === "read") names.push(l);
    else if (option && valued.includes(option)) continue;
    else if (/^[-+][A-Za-z]+$/.test(l) || l === "--") continue;
    else if (base === "getopts" ? operands++ === 1 : base !== "let" && base !== "test" && base !== "[") names.push(l);
  }
  return names.map((l) => (l.includes("=") ? l.slice(0, l.indexOf("=")) : l)).filter((n) => n.includes("["));
}
export const ARITH_TEST = new Set(["-eq", "-ne", "-lt", "-le", "-gt", "-ge"]);
export const CODE_TEXT = /\$\(|`|\$\{|\$\[/;

/** A value a variable is given: a number, a literal text, or not known before the run. */
export type Value = { kind: "number" } | { kind: "literal"; text: string } | { kind: "unknown" };

/**
 * Judges variables by every value the script gives them: `inert(name)` when each value is a
 * number or a literal naming only such variables (so evaluating it as arithmetic runs nothing);
 * `plainName(name)` when each value is a plain variable name (no subscript to evaluate).
 */
export function knownBeforeRun(given: Map<string, Value[]>): { inert: (name: string) => boolean; plainName: (name: string) => boolean } {
  const safe = new Map<string, boolean>();
  const inert = (name: string, seen: Set<string>): boolean => {
    if (safe.has(name)) return safe.get(name)!;
    if (seen.has(name)) return true;
    seen.add(name);
    const values = given.get(name);
    const ok =
      !!values &&
      values.every((v) => {
        if (v.kind === "number") return true;
        if (v.kind === "unknown" || /[[`$"'\\]/.test(v.text)) return false;
        const names = v.text.replace(/\b\d[\w#@]*/g, "").match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? [];
        return names.every((x) => inert(x, seen));
      });
    safe.set(name, ok);
    return ok;
  };
  // A value used as a variable name is inert when every value is a plain name (no subscript to evaluate).
  const plainName = (name: string) => !!given.get(name)?.every((v) => v.kind === "literal" && /^[A-Za-z_][A-Za-z0-9_]*$/.test(v.text));
  return { inert: (name) => inert(name, new Set()), plainName };
}
