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
import { parse } from "../shell/just-bash.js";
import { codeRunner, codeVariable, isInertCommand } from "./inert-commands.js";
import { StdinResolver, stdinOf, type StdinContext, type StdinSource } from "./stdin-source.js";
import type { Turns } from "./turns.js";
import { literalOf, newlines } from "./word-lines.js";
import { readNamesGiven } from "./name-taking.js";
import { ARITH_TEST, CODE_TEXT, EXACT_RUNNERS, HIDING, HOOK_FUNCTIONS, KNOWN_NODES, knownBeforeRun, NAME_TAKING, namesGiven, type FoundCall, type Node, type ScriptReading, type Value } from "./reader-terms.js";

export { literalOf };
export type { FoundCall, ScriptReading, StdinSource };

/** The longest script read, in characters: the shell parser's own bound (longer ones never run). */
export const MAX_SCRIPT_CHARS = 1_000_000;
/** Reasons for `hidden` kept in a reading (the rest are counted). */
const MAX_HIDDEN = 20;

/** One walk over a script and the texts inside it. */
class Reader {
  readonly found: ScriptReading = { calls: [], hidden: [] };
  private readonly functions = new Set<string>();
  /** Command names run (`builtin`: named after `builtin`/`command`, so no function of that name runs). */
  private readonly commands: Array<{ name: string; line: number; builtin?: boolean }> = [];
  private readonly values = new Map<string, Value[]>();
  readonly assoc = new Set<string>();
  /** Variables whose value is evaluated as arithmetic (or as a name): they must be known. */
  private readonly evaluated: Array<{ name: string; line: number; how: string; asName?: boolean }> = [];
  /** Characters of kept texts still allowed to be parsed (keeps deep nesting linear). */
  private budget: number;

  constructor(private readonly turns: Turns, scriptLength: number, shellStdin: string | undefined) {
    this.budget = 2 * scriptLength + 10_000;
    this.stdin = new StdinResolver(shellStdin);
  }

  private readonly hiddenSeen = new Set<string>();
  private hiddenMore = 0;
  /** The stdin around the node being visited. */
  private ctx: StdinContext = { k: "shell" };
  readonly stdin: StdinResolver;
  private readonly callContexts: StdinContext[] = [];
  private readonly callDirect: boolean[] = [];

  /** Records why a call could be hidden; the first {@link MAX_HIDDEN} reasons are kept, the rest counted. */
  hide(why: string): void {
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
  async walk(root: unknown, lineBase: number, rootCtx: StdinContext = { k: "shell" }): Promise<void> {
    type Entry = { node: unknown; parent?: Node; index: number; line: number; base: number; ctx: StdinContext };
    const stack: Entry[] = [{ node: root, index: 0, line: lineBase + 1, base: lineBase, ctx: rootCtx }];
    while (stack.length > 0) {
      if (this.turns.due()) await this.turns.yield();
      const { node, parent, index, line: outerLine, base: outerBase, ctx } = stack.pop()!;
      if (Array.isArray(node)) {
        // A pipe feeds every command after the first.
        const piped = parent?.type === "Pipeline";
        for (let i = node.length - 1; i >= 0; i--) {
          stack.push({ node: node[i], parent, index: i, line: outerLine, base: outerBase, ctx: piped && i > 0 ? { k: "unknown", why: "a pipe" } : ctx });
        }
        continue;
      }
      if (!node || typeof node !== "object") continue;
      const n = node as Node;
      const line = typeof n.line === "number" ? outerBase + n.line : typeof n.tsLine === "number" ? outerBase + n.tsLine : outerLine;
      const base = n.type === "CommandSubstitution" ? line - 1 : outerBase;
      if (typeof n.type === "string") {
        if (!KNOWN_NODES.has(n.type)) this.hide(`a shell form the reading does not know (${n.type}, line ${line})`);
        this.ctx = ctx;
        const pending = this.visit(n, parent, index, line);
        if (pending) await pending;
      }
      // What the node's parts read as stdin: its own redirection (for a simple command, its words are
      // expanded before its redirections apply: either may hold), or a function's callers'.
      const own = stdinOf(n.redirections);
      const inner = n.type === "FunctionDef" ? own ?? { k: "function", name: String(n.name) } : own ? (n.type === "SimpleCommand" ? { k: "unknown", why: "a command's own redirection" } : own) : ctx;
      // A here-document's text starts on the line after its command; a word's part, as many lines down as the text before it has newlines.
      const lineIn = n.type === "HereDoc" ? line + 1 : line;
      const keys = Object.keys(n);
      for (let i = keys.length - 1; i >= 0; i--) {
        const v = n[keys[i]];
        if (typeof v !== "object" || v === null) continue;
        const p = typeof n.type === "string" ? n : parent;
        // Redirection targets are expanded outside what they redirect.
        const c = keys[i] === "redirections" ? ctx : (inner as StdinContext);
        if (keys[i] === "parts" && Array.isArray(v)) {
          const at = [lineIn];
          for (let j = 0; j < v.length - 1; j++) at.push(at[j] + newlines(v[j]));
          for (let j = v.length - 1; j >= 0; j--) stack.push({ node: v[j], parent: p, index: j, line: at[j], base, ctx: c });
          continue;
        }
        stack.push({ node: v, parent: p, index: 0, line: lineIn, base, ctx: c });
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
    await this.walk(ast, line - 1, this.ctx);
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

  /** A variable is set: one the shell runs or looks commands up by hides what runs. */
  setting(name: string, line: number): void {
    const why = codeVariable(name);
    if (why) this.hide(`${why} (line ${line})`);
  }

  /** A variable name given to `-v`/`-R` (`[[ -v a[…] ]]`, `test -v`): its subscript is evaluated, so it must be read or known. */
  private nameOperand(op: string, word: unknown, line: number): Promise<void> | void {
    const text = literalOf(word);
    if (text === undefined) {
      // `[[ -v $x ]]`: x's value is the name (its subscript evaluated); fine when x is set to a known plain name.
      const parts = (word as { parts?: Node[] } | undefined)?.parts ?? [];
      const only = parts.length === 1 && parts[0].type === "DoubleQuoted" ? ((parts[0].parts as Node[]) ?? []) : parts;
      if (only.length === 1 && only[0].type === "ParameterExpansion" && !only[0].operation) {
        this.evaluated.push({ name: String(only[0].parameter), line, how: `${op} evaluates the name in`, asName: true });
        return;
      }
      return this.hide(`${op} tests a variable named at run time (line ${line})`);
    }
    if (text.includes("[")) return this.readSubscript(text, line);
  }

  assign(name: string, value: Value): void {
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
        if (HOOK_FUNCTIONS.has(name) || name.endsWith("/tools")) this.hide(`a function named ${name} (line ${line})`);
        return;
      }
      case "Assignment": {
        const name = String(n.name);
        this.setting(name, line);
        if (Array.isArray(n.array)) for (const w of n.array as unknown[]) this.assign(name, this.valueOf(w));
        else this.assign(name, n.value ? this.valueOf(n.value) : { kind: "literal", text: "" });
        if (name.includes("[")) return this.readSubscript(name, line);
        return;
      }
      case "ParameterExpansion": {
        const parameter = String(n.parameter);
        const op = n.operation as { type?: string } | null;
        if (op?.type === "Indirection") this.evaluated.push({ name: parameter, line, how: "${!…} reads the variable named by" });
        const inner = op?.type === "Indirection" ? (op as { innerOp?: { type?: string; operator?: string } }).innerOp : op;
        if (op?.type === "AssignDefault") {
          this.setting(parameter, line);
          this.assign(parameter, this.valueOf((op as { word?: unknown }).word));
        } else if (op?.type === "Indirection" && inner?.type === "AssignDefault") this.hide(`\${!…=} assigns a variable named at run time (line ${line})`);
        if (inner?.type === "Transform" && (inner as { operator?: string }).operator === "P") this.hide(`\${…@P} expands its value as a prompt (line ${line})`);
        if (parameter.includes("[")) return this.readSubscript(parameter, line);
        return;
      }
      case "For": {
        const words = (n.words as unknown[] | null) ?? [];
        this.setting(String(n.variable), line);
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
      case "CondUnary":
        if (n.operator === "-v" || n.operator === "-R") return this.nameOperand(String(n.operator), n.operand, line);
        return;
      case "CondBinary":
        if (ARITH_TEST.has(String(n.operator))) return this.arithmeticWords([n.left, n.right], line);
        return;
      case "SimpleCommand":
        return this.command(n, parent, index, line, this.ctx);
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

  /** Records a `tools` call with the stdin around it (settled in {@link finish}). */
  private call(words: Array<string | undefined>, line: number, ctx: StdinContext, direct: boolean, via?: string): void {
    const partial: string[] = [];
    for (const l of words) {
      if (l === undefined) break;
      partial.push(l);
    }
    const all = words.every((l) => l !== undefined);
    // Through a command that runs its words as they are (`command`, `env`, `timeout`, a path to
    // `tools`), the call's words are known; one that adds words (`xargs`) or reads them as code
    // again (`eval`, `bash`) leaves them unknown.
    const exact = !via || via.includes("/") || EXACT_RUNNERS.has(via);
    this.found.calls.push({ words: all && exact ? (words as string[]) : undefined, partial, line, stdin: { kind: "none" }, ...(via ? { via } : {}) });
    this.callContexts.push(ctx);
    this.callDirect.push(direct);
  }

  private command(n: Node, parent: Node | undefined, index: number, line: number, around: StdinContext): Promise<void> | void {
    const own = stdinOf(n.redirections);
    const piped = parent?.type === "Pipeline" && index > 0;
    // The stdin the command reads: its own redirection, a pipe into it, or what is around it.
    const ctx: StdinContext = own ?? around;
    if (!n.name) return;
    const name = literalOf(n.name);
    if (name === undefined) return this.hide(`a command word built at run time (line ${line})`);
    let base = name.split("/").pop()!;
    let args = (n.args as unknown[]) ?? [];
    let lits = args.map(literalOf);
    if (base === "tools") return this.call(lits, line, ctx, own !== undefined || piped, name !== "tools" ? name : undefined);
    // `builtin NAME …` and `command NAME …` run NAME (a builtin, or a command skipping functions): read as NAME.
    while ((base === "builtin" || base === "command") && !name.includes("/") && lits.length > 0 && lits[0] !== undefined && !lits[0].startsWith("-")) {
      if (lits[0] === "tools" || lits[0].endsWith("/tools")) return this.call(lits.slice(1), line, ctx, own !== undefined || piped, base);
      if (lits[0].includes("/")) return this.hide(`${base} ${lits[0]} runs a file by its path; a script can write that file (line ${line})`);
      base = lits[0];
      this.commands.push({ name: base, line, builtin: true });
      args = args.slice(1);
      lits = lits.slice(1);
    }
    if (name.includes("/")) this.hide(`${name} runs a file by its path; a script can write that file (line ${line})`);
    else {
      this.commands.push({ name, line });
      this.stdin.site(name, ctx);
    }
    const reads: Array<Promise<void> | void> = [];
    // A name with a subscript (`declare 'a[x]=1'`, `unset 'a[x]'`) evaluates it as `a[x]=1` does: one rule.
    if (NAME_TAKING.has(base)) reads.push(...namesGiven(base, lits).map((x) => this.readSubscript(x, line)), readNamesGiven(this, base, args, lits, line));
    if (base === "test" || base === "[") lits.forEach((l, i) => void (i > 0 && (lits[i - 1] === "-v" || lits[i - 1] === "-R") && reads.push(this.nameOperand(lits[i - 1]!, args[i], line))));
    if (base === "exec" && own) this.hide(`exec changes the shell's stdin (line ${line})`);
    const runs = codeRunner(base, lits);
    if (runs) this.hide(`${runs} (line ${line})`);
    if (HIDING.has(base) && !runs) this.hide(`${base} runs text or a command (line ${line})`);
    if (HIDING.has(base) || runs) {
      const at = lits.findIndex((l) => l === "tools" || (l ?? "").endsWith("/tools"));
      if (at >= 0) this.call(lits.slice(at + 1), line, { k: "unknown", why: `${base} runs it` }, true, base);
    }
    if (base === "let") reads.push(this.arithmeticWords(args, line));
    if (reads.length) return Promise.all(reads).then(() => {});
  }

  /** Settles what needs the whole script: commands found through PATH, variables evaluated as code. */
  finish(): ScriptReading {
    for (const c of this.commands) {
      if (!isInertCommand(c.name) && !HIDING.has(c.name) && (c.builtin || !this.functions.has(c.name))) this.hide(`${c.name} is not a command the reading knows: it may be looked up on PATH, where a script can put a file (line ${c.line})`);
    }
    this.found.calls.forEach((c, i) => {
      c.stdin = this.stdin.resolve(this.callContexts[i], !this.callDirect[i]);
    });
    const { inert, plainName } = knownBeforeRun(this.values);
    for (const e of this.evaluated) {
      const base = e.name.includes("[") ? e.name.slice(0, e.name.indexOf("[")) : e.name;
      if (!(e.asName ? plainName(base) : inert(base))) this.hide(`${e.how} ${base}, whose value is not known before the run (line ${e.line})`);
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
export async function readScript(script: string, turns: Turns, shellStdin?: string): Promise<ScriptReading> {
  if (script.length > MAX_SCRIPT_CHARS) {
    throw new RangeError(`the script is ${script.length.toLocaleString("en-US")} characters; the limit is ${MAX_SCRIPT_CHARS.toLocaleString("en-US")}`);
  }
  const ast = parse(script);
  turns.check();
  const reader = new Reader(turns, script.length, shellStdin);
  await reader.walk(ast, 0);
  return reader.finish();
}
