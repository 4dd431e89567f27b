/**
 * Builtins that take variable names (`declare`, `local`, `read`, `printf -v`, `unset`, `let`,
 * `test -v`, …), as the script reading sees them (script-reader.ts): which variables they set or
 * declare associative, and which names hide code (docs/security.md "The preflight").
 */
import { CODE_TEXT, DECLARING, type Node, type Value } from "./reader-terms.js";

/** What the reading keeps about variables, and where it notes what could hide a call. */
export interface NameBook {
  /** Arrays declared associative (`declare -A`): their subscripts are words, not arithmetic. */
  readonly assoc: Set<string>;
  /** Records why a call could be hidden. */
  hide(why: string): void;
  /** A variable is set: one the shell runs or looks commands up by hides what runs. */
  setting(name: string, line: number): void;
  /** A value a variable may hold before the run. */
  assign(name: string, value: Value): void;
}

/**
 * Builtins that take variable names: a name with a subscript holding code (`printf -v 'a[$(…)]'`)
 * runs it; a name built at run time may; integer and reference variables evaluate what they get.
 */
export function readNamesGiven(book: NameBook, base: string, args: unknown[], lits: Array<string | undefined>, line: number): void {
  const flags = lits.filter((l): l is string => l !== undefined && l.startsWith("-"));
  if (DECLARING.has(base) && flags.some((f) => /^-[a-zA-Z]*[in]/.test(f))) book.hide(`${base} ${flags.join(" ")}: integer and reference variables evaluate what is assigned (line ${line})`);
  const isAssoc = DECLARING.has(base) && flags.some((f) => /^-[a-zA-Z]*A/.test(f));
  lits.forEach((l, i) => {
    if (l !== undefined) {
      if (l.startsWith("-")) return;
      const name = l.includes("=") ? l.slice(0, l.indexOf("=")) : l;
      if (isAssoc) book.assoc.add(name);
      if (CODE_TEXT.test(l) && (l.includes("[") || base === "let")) book.hide(`${base} '${l}' evaluates code in its text (line ${line})`);
      if (base !== "test" && base !== "[" && base !== "printf" && base !== "wait") book.setting(name, line);
      else if (base === "printf" && lits[i - 1] === "-v") book.setting(name, line);
      if (DECLARING.has(base) && l.includes("=")) book.assign(name, { kind: "literal", text: l.slice(l.indexOf("=") + 1) });
      else if (base === "read" || base === "mapfile" || base === "readarray" || base === "getopts" || (base === "printf" && lits[i - 1] === "-v")) book.assign(name, { kind: "unknown" });
      return;
    }
    // A word built at run time: fine as a value (`local x="$1"`), not as a name.
    const parts = ((args[i] as { parts?: Node[] }).parts ?? []) as Node[];
    const head = parts[0]?.type === "Literal" ? String(parts[0].value) : "";
    if (DECLARING.has(base) && /^[A-Za-z_][A-Za-z0-9_]*=/.test(head)) {
      book.assign(head.slice(0, head.indexOf("=")), { kind: "unknown" });
      book.setting(head.slice(0, head.indexOf("=")), line);
    } else if (base === "printf" ? lits[i - 1] === "-v" : base !== "test" && base !== "[" && base !== "wait") {
      book.hide(`${base} with a variable name built at run time (line ${line})`);
    }
  });
}
