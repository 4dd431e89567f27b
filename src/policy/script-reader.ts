/**
 * Reading a script without running it: every `tools` call in it (written out literally or not),
 * and everything that could run code the reading cannot see (`hidden`). The reading walks every
 * place the shell's parser (just-bash's AST, `ast/types.d.ts`) can put a command substitution:
 * words, redirections, here-documents, arithmetic (`$(( ))`, `$[ ]`, `(( ))`, `for (( ))`,
 * `${x:off:len}`), and the texts the parser keeps unparsed until run time (array subscripts in
 * assignments and `${a[…]}`, `$(…)` and `${…}` inside arithmetic), which it parses itself.
 *
 * Cost is linear in the script's length: each node is visited once, each kept text is parsed once
 * (with a budget), and the event loop gets turns (see turns.ts).
 * See docs/security.md ("The preflight") for what `hidden` covers.
 */
import { getCommandNames, parse } from "../shell/just-bash.js";
import { defaultEngineCommands } from "../shell/index.js";
import type { Turns } from "./turns.js";
import { newlines } from "./word-lines.js";

/** The longest script read, in characters: the shell parser's own bound (longer ones never run). */
export const MAX_SCRIPT_CHARS = 1_000_000;
/** Reasons for `hidden` kept in a reading (the rest are counted). */
const MAX_HIDDEN = 20;

/** One `tools` call found in a script. */
export interface FoundCall {
  /** Every word after `tools`, when all are literal. */
  words: string[] | undefined;
  /** The literal words up to the first one built at run time. */
  partial: string[];
  line: number;
  readsStdin: boolean;
  /** The command that runs it when not called directly (`xargs`, `/usr/bin/tools`). */
  via?: string;
}

/** What a reading found. */
export interface ScriptReading {
  calls: FoundCall[];
  /** Why calls could be hidden from the reading, one line each. */
  hidden: string[];
}

type Node = { type?: string; [key: string]: unknown };

/** Commands that can run text or other commands as code: a call inside them is hidden from reading. */
const HIDING = new Set(["eval", "source", ".", "bash", "sh", "alias", "xargs", "exec", "command", "builtin", "env", "nohup", "timeout", "time", "nice", "trap", "parallel", "watch"]);
/** The interpreter's builtins (just-bash `interpreter/builtins`): never looked up on PATH. */
const BUILTINS = [
  ":", "true", "false", "cd", "export", "unset", "exit", "local", "set", "break", "continue", "return", "eval", "shift", "getopts", "compgen", "complete",
  "compopt", "pushd", "popd", "dirs", "source", ".", "read", "mapfile", "readarray", "declare", "typeset", "readonly", "let", "command", "shopt", "exec",
  "test", "[", "echo", "printf", "pwd", "alias", "unalias", "type", "hash", "ulimit", "umask", "trap", "times", "wait", "kill", "jobs", "fg", "bg",
  "disown", "suspend", "fc", "history", "help", "enable", "builtin", "caller",
];
let known: Set<string> | undefined;
/** Commands the engine registers (a name outside these is looked up on PATH, where a script can put a file). */
function knownCommands(): Set<string> {
  return (known ??= new Set([...BUILTINS, ...getCommandNames(), ...defaultEngineCommands().map((c) => c.name), "tools", "sleep"]));
}
/** Builtins that take variable names (with subscripts) or arithmetic as arguments. */
const NAME_TAKING = new Set(["printf", "read", "declare", "typeset", "local", "export", "readonly", "unset", "let", "test", "[", "mapfile", "readarray", "getopts", "wait"]);
const DECLARING = new Set(["declare", "typeset", "local", "export", "readonly"]);
const ARITH_TEST = new Set(["-eq", "-ne", "-lt", "-le", "-gt", "-ge"]);
const CODE_TEXT = /\$\(|`|\$\{|\$\[/;

/** A literal word's text, or undefined when any part is built at run time. */
export function literalOf(word: unknown): string | undefined {
  if (!word || typeof word !== "object") return undefined;
  const parts = (word as { parts?: Node[] }).parts;
  if (!Array.isArray(parts)) return undefined;
  let out = "";
  for (const p of parts) {
    if (p.type === "Literal" || p.type === "SingleQuoted" || p.type === "Escaped") out += String(p.value);
    else if (p.type === "DoubleQuoted") {
      const inner = literalOf({ parts: p.parts });
      if (inner === undefined) return undefined;
      out += inner;
    } else return undefined;
  }
  return out;
}

/** A value a variable is given: a number, a literal text, or not known before the run. */
type Value = { kind: "number" } | { kind: "literal"; text: string } | { kind: "unknown" };

/** One walk over a script and the texts inside it. */
class Reader {
  readonly found: ScriptReading = { calls: [], hidden: [] };
  private readonly functions = new Set<string>();
  private readonly commands: Array<{ name: string; line: number }> = [];
  private readonly values = new Map<string, Value[]>();
  private readonly assoc = new Set<string>();
  /** Variables whose value is evaluated as arithmetic (or as a name): they must be known. */
  private readonly evaluated: Array<{ name: string; line: number; how: string }> = [];
  /** Characters of kept texts still allowed to be parsed (keeps deep nesting linear). */
  private budget: number;

  constructor(private readonly turns: Turns, scriptLength: number) {
    this.budget = 2 * scriptLength + 10_000;
  }

  private readonly hiddenSeen = new Set<string>();
  private hiddenMore = 0;

  /** Records why a call could be hidden; the first {@link MAX_HIDDEN} reasons are kept, the rest counted. */
  private hide(why: string): void {
    if (this.hiddenSeen.has(why)) return;
    this.hiddenSeen.add(why);
    if (this.found.hidden.length < MAX_HIDDEN) this.found.hidden.push(why);
    else this.hiddenMore++;
  }

  /**
   * Walks one parsed script; `lineBase` maps its lines to the outer script's. A `$( )` or backquoted
   * body's lines restart at 1 in the parser, so they are offset by the line its `$(` is on (the
   * command's line plus the newlines before it in its word); a compound command's line is `tsLine`
   * (patches/README.md, H21).
   */
  async walk(root: unknown, lineBase: number): Promise<void> {
    const stack: Array<{ node: unknown; parent?: Node; index: number; line: number; base: number }> = [{ node: root, index: 0, line: lineBase + 1, base: lineBase }];
    while (stack.length > 0) {
      if (this.turns.due()) await this.turns.yield();
      const { node, parent, index, line: outerLine, base: outerBase } = stack.pop()!;
      if (Array.isArray(node)) {
        for (let i = node.length - 1; i >= 0; i--) stack.push({ node: node[i], parent, index: i, line: outerLine, base: outerBase });
        continue;
      }
      if (!node || typeof node !== "object") continue;
      const n = node as Node;
      const line = typeof n.line === "number" ? outerBase + n.line : typeof n.tsLine === "number" ? outerBase + n.tsLine : outerLine;
      const base = n.type === "CommandSubstitution" ? line - 1 : outerBase;
      if (typeof n.type === "string") {
        const pending = this.visit(n, parent, index, line);
        if (pending) await pending;
      }
      // A here-document's text starts on the line after its command; a word's part, as many lines down as the text before it has newlines.
      const inner = n.type === "HereDoc" ? line + 1 : line;
      const keys = Object.keys(n);
      for (let i = keys.length - 1; i >= 0; i--) {
        const v = n[keys[i]];
        if (typeof v !== "object" || v === null) continue;
        if (keys[i] === "parts" && Array.isArray(v)) {
          const at = [inner];
          for (let j = 0; j < v.length - 1; j++) at.push(at[j] + newlines(v[j]));
          for (let j = v.length - 1; j >= 0; j--) stack.push({ node: v[j], parent: typeof n.type === "string" ? n : parent, index: j, line: at[j], base });
          continue;
        }
        stack.push({ node: v, parent: typeof n.type === "string" ? n : parent, index: 0, line: inner, base });
      }
    }
  }

  /** Parses a text the parser kept for run time and walks it; unreadable text hides calls. */
  private async readText(text: string, line: number, what: string): Promise<void> {
    this.budget -= text.length;
    if (this.budget < 0) return this.hide(`${what} nested too deep to read (line ${line})`);
    let ast;
    try {
      ast = parse(text);
    } catch {
      if (CODE_TEXT.test(text)) this.hide(`${what} the plan cannot parse (line ${line})`);
      return;
    }
    await this.walk(ast, line - 1);
  }

  /** An array subscript kept as text (`a[…]=`, `${a[…]}`): read as arithmetic, or as a word for associative arrays. */
  private async readSubscript(name: string, line: number): Promise<void> {
    const open = name.indexOf("[");
    if (open < 0 || !name.endsWith("]")) return;
    const array = name.slice(0, open);
    const sub = name.slice(open + 1, -1);
    if (sub === "@" || sub === "*" || /^\s*\d+\s*$/.test(sub)) return;
    if (this.assoc.has(array)) {
      if (CODE_TEXT.test(sub)) return this.readText(`: ${sub}`, line, "an array subscript");
      return;
    }
    // The common `a[i]`, `a[$i]`, `a[${i}]`: one variable evaluated, nothing to parse.
    const simple = /^\s*\$?\{?([A-Za-z_][A-Za-z0-9_]*)\}?\s*$/.exec(sub);
    if (simple) {
      this.evaluated.push({ name: simple[1], line, how: "an array subscript evaluates" });
      return;
    }
    await this.readText(`: $(( ${sub} ))`, line, "an array subscript");
  }

  private assign(name: string, value: Value): void {
    const base = name.includes("[") ? name.slice(0, name.indexOf("[")) : name;
    const list = this.values.get(base) ?? [];
    list.push(value);
    this.values.set(base, list);
  }

  private valueOf(word: unknown): Value {
    const text = literalOf(word);
    if (text !== undefined) return { kind: "literal", text };
    const parts = (word as { parts?: Node[] } | undefined)?.parts;
    if (parts?.length === 1 && parts[0].type === "ArithmeticExpansion") return { kind: "number" };
    return { kind: "unknown" };
  }

  /** Looks at one node; returns a promise only when it has a kept text to read. */
  private visit(n: Node, parent: Node | undefined, index: number, line: number): Promise<void> | void {
    switch (n.type) {
      case "FunctionDef": {
        const name = String(n.name ?? "");
        this.functions.add(name);
        if (name === "tools" || name.endsWith("/tools")) this.hide(`a function named ${name} (line ${line})`);
        return;
      }
      case "Assignment": {
        const name = String(n.name);
        if (name === "PATH") this.hide(`PATH is changed: any command may then run a file the script wrote (line ${line})`);
        if (Array.isArray(n.array)) for (const w of n.array as unknown[]) this.assign(name, this.valueOf(w));
        else this.assign(name, n.value ? this.valueOf(n.value) : { kind: "literal", text: "" });
        if (name.includes("[")) return this.readSubscript(name, line);
        return;
      }
      case "ParameterExpansion": {
        const parameter = String(n.parameter);
        const op = n.operation as { type?: string } | null;
        if (op?.type === "Indirection") this.evaluated.push({ name: parameter, line, how: "${!…} reads the variable named by" });
        if (parameter.includes("[")) return this.readSubscript(parameter, line);
        return;
      }
      case "For": {
        const words = (n.words as unknown[] | null) ?? [];
        for (const w of words) this.assign(String(n.variable), this.valueOf(w));
        if (words.length === 0) this.assign(String(n.variable), { kind: "unknown" });
        return;
      }
      case "ArithCommandSubst":
        return this.readText(String(n.command), line, "a command substitution in arithmetic");
      case "ArithBracedExpansion":
        return this.readText(`: \${${String(n.content)}}`, line, "a ${…} in arithmetic");
      case "ArithVariable":
        this.evaluated.push({ name: String(n.name), line, how: "arithmetic evaluates" });
        return;
      case "ArithSpecialVar":
        if (n.name === "@" || n.name === "*") this.evaluated.push({ name: String(n.name), line, how: "arithmetic evaluates" });
        return;
      case "ArithAssignment":
        this.assign(String(n.variable), { kind: "number" });
        if (typeof n.stringKey === "string" && CODE_TEXT.test(n.stringKey)) this.hide(`an array key evaluated at run time (line ${line})`);
        return;
      case "ArithArrayElement":
        this.evaluated.push({ name: String(n.array), line, how: "arithmetic evaluates" });
        if (typeof n.stringKey === "string" && CODE_TEXT.test(n.stringKey)) this.hide(`an array key evaluated at run time (line ${line})`);
        return;
      case "ArithDynamicAssignment":
      case "ArithDynamicElement":
        this.hide(`arithmetic on a variable whose name is built at run time (line ${line})`);
        return;
      case "ArithDynamicBase":
      case "ArithDynamicNumber":
      case "ArithSingleQuote":
      case "ArithSyntaxError":
        if (Object.values(n).some((v) => typeof v === "string" && CODE_TEXT.test(v))) this.hide(`arithmetic text evaluated at run time (line ${line})`);
        return;
      case "CondBinary":
        if (ARITH_TEST.has(String(n.operator))) return this.arithmeticWords([n.left, n.right], line);
        return;
      case "SimpleCommand":
        return this.command(n, parent, index, line);
    }
  }

  private async arithmeticWords(words: unknown[], line: number): Promise<void> {
    for (const w of words) await this.arithmeticWord(w, line);
  }

  /** A word evaluated as arithmetic (`[[ a -eq b ]]`, `let`): its text and the variables it names. */
  private async arithmeticWord(word: unknown, line: number): Promise<void> {
    const text = literalOf(word);
    if (text !== undefined) return this.readText(`: $(( ${text} ))`, line, "an arithmetic text");
    const parts = (word as { parts?: Node[] } | undefined)?.parts ?? [];
    const only = parts.length === 1 && parts[0].type === "DoubleQuoted" ? ((parts[0].parts as Node[]) ?? []) : parts;
    if (only.length === 1 && only[0].type === "ParameterExpansion" && !only[0].operation) {
      this.evaluated.push({ name: String(only[0].parameter), line, how: "arithmetic evaluates" });
    } else if (only.length !== 1 || only[0].type !== "ArithmeticExpansion") {
      this.hide(`an arithmetic operand built at run time (line ${line})`);
    }
  }

  private command(n: Node, parent: Node | undefined, index: number, line: number): Promise<void> | void {
    if (!n.name) return;
    const name = literalOf(n.name);
    const args = (n.args as unknown[]) ?? [];
    const lits = args.map(literalOf);
    if (name === undefined) return this.hide(`a command word built at run time (line ${line})`);
    const base = name.split("/").pop()!;
    const notFirst = parent?.type === "Pipeline" && index > 0;
    const redirs = ((n.redirections as Array<{ operator: string }>) ?? []).map((r) => r.operator);
    const stdinRedirected = redirs.some((op) => op === "<" || op === "<<" || op === "<<-" || op === "<<<" || op === "<&");
    if (base === "tools") {
      const partial: string[] = [];
      for (const l of lits) {
        if (l === undefined) break;
        partial.push(l);
      }
      const allLiteral = lits.every((l) => l !== undefined);
      this.found.calls.push({ words: allLiteral ? (lits as string[]) : undefined, partial, line, readsStdin: notFirst || stdinRedirected || lits.includes("-"), via: name !== "tools" ? name : undefined });
      return;
    }
    if (name.includes("/")) this.hide(`${name} runs a file by its path; a script can write that file (line ${line})`);
    else this.commands.push({ name, line });
    if (base === "rg" && lits.some((l) => l === undefined || l === "--pre" || l.startsWith("--pre="))) this.hide(`rg --pre runs a command for each file (line ${line})`);
    if (NAME_TAKING.has(base)) this.nameTaking(base, args, lits, line);
    const hides = HIDING.has(base) || (base === "find" && lits.some((l) => l === "-exec" || l === "-execdir" || l === "-ok" || l === "-okdir"));
    if (hides) {
      this.hide(`${base} (line ${line})`);
      const at = lits.findIndex((l) => l === "tools" || (l ?? "").endsWith("/tools"));
      if (at >= 0) {
        const rest: string[] = [];
        for (const l of lits.slice(at + 1)) {
          if (l === undefined) break;
          rest.push(l);
        }
        this.found.calls.push({ words: undefined, partial: rest, line, readsStdin: true, via: base });
      }
    }
    if (base === "let") return this.arithmeticWords(args, line);
  }

  /**
   * Builtins that take variable names: a name with a subscript holding code (`printf -v 'a[$(…)]'`)
   * runs it; a name built at run time may; integer and reference variables evaluate what they get.
   */
  private nameTaking(base: string, args: unknown[], lits: Array<string | undefined>, line: number): void {
    const flags = lits.filter((l): l is string => l !== undefined && l.startsWith("-"));
    if (DECLARING.has(base) && flags.some((f) => /^-[a-zA-Z]*[in]/.test(f))) this.hide(`${base} ${flags.join(" ")}: integer and reference variables evaluate what is assigned (line ${line})`);
    const isAssoc = DECLARING.has(base) && flags.some((f) => /^-[a-zA-Z]*A/.test(f));
    lits.forEach((l, i) => {
      if (l !== undefined) {
        if (l.startsWith("-")) return;
        const name = l.includes("=") ? l.slice(0, l.indexOf("=")) : l;
        if (isAssoc) this.assoc.add(name);
        if (CODE_TEXT.test(l) && (l.includes("[") || base === "let")) this.hide(`${base} '${l}' evaluates code in its text (line ${line})`);
        if (name === "PATH" || name === "PATH+") this.hide(`PATH is changed: any command may then run a file the script wrote (line ${line})`);
        if (DECLARING.has(base) && l.includes("=")) this.assign(name, { kind: "literal", text: l.slice(l.indexOf("=") + 1) });
        else if (base === "read" || base === "mapfile" || base === "readarray" || base === "getopts" || (base === "printf" && lits[i - 1] === "-v")) this.assign(name, { kind: "unknown" });
        return;
      }
      // A word built at run time: fine as a value (`local x="$1"`), not as a name.
      const parts = ((args[i] as { parts?: Node[] }).parts ?? []) as Node[];
      const head = parts[0]?.type === "Literal" ? String(parts[0].value) : "";
      if (DECLARING.has(base) && /^[A-Za-z_][A-Za-z0-9_]*=/.test(head)) {
        this.assign(head.slice(0, head.indexOf("=")), { kind: "unknown" });
        if (head.startsWith("PATH=")) this.hide(`PATH is changed: any command may then run a file the script wrote (line ${line})`);
      } else if (base === "printf" ? lits[i - 1] === "-v" : base !== "test" && base !== "[" && base !== "wait") {
        this.hide(`${base} with a variable name built at run time (line ${line})`);
      }
    });
  }

  /** Settles what needs the whole script: commands found through PATH, variables evaluated as code. */
  finish(): ScriptReading {
    const known = knownCommands();
    for (const c of this.commands) {
      if (!known.has(c.name) && !this.functions.has(c.name)) this.hide(`${c.name} is looked up on PATH, where a script can put a file (line ${c.line})`);
    }
    const safe = new Map<string, boolean>();
    const inert = (name: string, seen: Set<string>): boolean => {
      if (safe.has(name)) return safe.get(name)!;
      if (seen.has(name)) return true;
      seen.add(name);
      const values = this.values.get(name);
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
    for (const e of this.evaluated) {
      const base = e.name.includes("[") ? e.name.slice(0, e.name.indexOf("[")) : e.name;
      if (!inert(base, new Set())) this.hide(`${e.how} ${base}, whose value is not known before the run (line ${e.line})`);
    }
    if (this.hiddenMore > 0) this.found.hidden.push(`… and ${this.hiddenMore} more`);
    return this.found;
  }
}

/**
 * Reads a script: its `tools` calls and what could hide one.
 * @throws Error when the script is longer than {@link MAX_SCRIPT_CHARS}, does not parse (the
 *   parser's message), or the signal behind `turns` is aborted.
 */
export async function readScript(script: string, turns: Turns): Promise<ScriptReading> {
  if (script.length > MAX_SCRIPT_CHARS) {
    throw new RangeError(`the script is ${script.length.toLocaleString("en-US")} characters; the limit is ${MAX_SCRIPT_CHARS.toLocaleString("en-US")}`);
  }
  const ast = parse(script);
  turns.check();
  const reader = new Reader(turns, script.length);
  await reader.walk(ast, 0);
  return reader.finish();
}
