/**
 * jq 1.7.1's command line, read the way its `main` reads it (src/main.c: the argv loop, the
 * option table, `JV_PRINT_INDENT_FLAGS`, `isoption`'s short-option clusters), so the worker can
 * drive libjq directly (docs/shell.md, "How it runs"): the options become output flags, parser
 * flags and the ordered list of named and positional arguments `main` would build.
 *
 * What this does not plan is left to jq's own `main` in the worker, which prints it exactly:
 * `--help`, `--build-configuration`, `--run-tests`, the `--debug-*` options, an unknown option,
 * an option missing its operands, `--indent` out of range, `-L` without a directory and no program.
 */

/** `main`'s option bits (src/main.c). */
export const JQ_OPT = {
  SLURP: 1,
  RAW_INPUT: 2,
  PROVIDE_NULL: 4,
  RAW_OUTPUT: 8,
  RAW_OUTPUT0: 16,
  ASCII_OUTPUT: 32,
  COLOR_OUTPUT: 64,
  NO_COLOR_OUTPUT: 128,
  SORTED_OUTPUT: 256,
  FROM_FILE: 512,
  RAW_NO_LF: 1024,
  UNBUFFERED_OUTPUT: 2048,
  EXIT_STATUS: 4096,
  SEQ: 16384,
} as const;

/** libjq's print flags (src/jv.h). */
export const JV_PRINT = { PRETTY: 1, ASCII: 2, COLOR: 4, SORTED: 8, TAB: 64 } as const;

/** libjq's parser flags (src/jv.h). */
export const JV_PARSE = { SEQ: 1, STREAMING: 2, STREAM_ERRORS: 4 } as const;

/** `JV_PRINT_INDENT_FLAGS(n)` of src/jv.h. */
export function indentFlags(n: number): number {
  return n < 0 || n > 7 ? JV_PRINT.TAB | JV_PRINT.PRETTY : n === 0 ? 0 : (n << 8) | JV_PRINT.PRETTY;
}

/** One named (`--arg`, `--argjson`, `--rawfile`, `--slurpfile`) or positional (`--args`, `--jsonargs`) argument, in argv order. */
export type JqArgOp =
  | { named: string; kind: "arg" | "argjson" | "rawfile" | "slurpfile"; value: string }
  | { positional: string; json: boolean };

/** What `main` would do with one command line, up to compiling the program. */
export interface JqPlan {
  /** `main`'s `options` bits ({@link JQ_OPT}). */
  options: number;
  /** Output flags for `jv_dump` ({@link JV_PRINT}). */
  dumpopts: number;
  /** Input parser flags ({@link JV_PARSE}); `--seq` is added by the worker, as `main` does after the loop. */
  parserFlags: number;
  /** Flags for `jq_start` (none are planned: the debug-trace options go to `main`). */
  jqFlags: number;
  /** The program text, or the program file's path with `-f`. */
  program: string;
  /** Named and positional arguments, in argv order (the first of a name wins, as in `main`). */
  ops: JqArgOp[];
  /** Input files as written, in order. */
  inputs: string[];
  /** `-L` directories as written, or null for jq's default search list. */
  libDirs: string[] | null;
}

const isoptish = (a: string) => a.length > 0 && a[0] === "-" && (a[1] === "-" || /[A-Za-z]/.test(a[1] ?? ""));

/** C's `atoi`: leading blanks, a sign, digits; anything else is 0. */
function atoi(s: string): number {
  const m = /^[\t\n\v\f\r ]*([+-]?\d+)/.exec(s);
  return m ? Number.parseInt(m[1], 10) | 0 : 0;
}

/**
 * Plans one jq command line (argv without `argv[0]`) as jq 1.7.1's `main` would run it.
 * Pure; never throws.
 * @returns the plan, or null when `main` itself must run it (see the file comment)
 */
export function planJqArgv(args: string[]): JqPlan | null {
  let options = 0;
  let dumpopts = indentFlags(2);
  let parserFlags = 0;
  let program: string | null = null;
  let strings = false;
  let json = false;
  let argsDone = false;
  const ops: JqArgOp[] = [];
  const inputs: string[] = [];
  let libDirs: string[] | null = null;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (argsDone || !isoptish(a)) {
      if (program === null) program = a;
      else if (strings) ops.push({ positional: a, json: false });
      else if (json) ops.push({ positional: a, json: true });
      else inputs.push(a);
      continue;
    }
    if (a === "--") {
      argsDone = true;
      continue;
    }
    if (a[1] === "L") {
      libDirs ??= [];
      if (a.length > 2) libDirs.push(a.slice(2));
      else if (i >= args.length - 1) return null;
      else libDirs.push(args[++i]);
      continue;
    }
    // isoption(): a long option matches exactly; a short one anywhere in a cluster, counted.
    let shortOpts = 0;
    const long = a[1] === "-";
    const is = (short: string, name: string): boolean => {
      if (long) return a.slice(2) === name;
      if (!short || !a.includes(short)) return false;
      shortOpts++;
      return true;
    };
    if (is("s", "slurp")) {
      options |= JQ_OPT.SLURP;
      if (!shortOpts) continue;
    }
    if (is("r", "raw-output")) {
      options |= JQ_OPT.RAW_OUTPUT;
      if (!shortOpts) continue;
    }
    if (is("", "raw-output0")) {
      options |= JQ_OPT.RAW_OUTPUT | JQ_OPT.RAW_NO_LF | JQ_OPT.RAW_OUTPUT0;
      continue;
    }
    if (is("j", "join-output")) {
      options |= JQ_OPT.RAW_OUTPUT | JQ_OPT.RAW_NO_LF;
      if (!shortOpts) continue;
    }
    if (is("c", "compact-output")) {
      dumpopts &= ~(JV_PRINT.TAB | indentFlags(7));
      if (!shortOpts) continue;
    }
    if (is("C", "color-output")) {
      options |= JQ_OPT.COLOR_OUTPUT;
      if (!shortOpts) continue;
    }
    if (is("M", "monochrome-output")) {
      options |= JQ_OPT.NO_COLOR_OUTPUT;
      if (!shortOpts) continue;
    }
    if (is("a", "ascii-output")) {
      options |= JQ_OPT.ASCII_OUTPUT;
      if (!shortOpts) continue;
    }
    if (is("", "unbuffered")) {
      options |= JQ_OPT.UNBUFFERED_OUTPUT;
      continue;
    }
    if (is("S", "sort-keys")) {
      options |= JQ_OPT.SORTED_OUTPUT;
      if (!shortOpts) continue;
    }
    if (is("R", "raw-input")) {
      options |= JQ_OPT.RAW_INPUT;
      if (!shortOpts) continue;
    }
    if (is("n", "null-input")) {
      options |= JQ_OPT.PROVIDE_NULL;
      if (!shortOpts) continue;
    }
    if (is("f", "from-file")) {
      options |= JQ_OPT.FROM_FILE;
      if (!shortOpts) continue;
    }
    // -b (Windows only) is counted as a short option and otherwise ignored; --binary falls through.
    is("b", "binary");
    if (is("", "tab")) {
      dumpopts &= ~indentFlags(7);
      dumpopts |= JV_PRINT.TAB | JV_PRINT.PRETTY;
      continue;
    }
    if (is("", "indent")) {
      if (i >= args.length - 1) return null;
      const n = atoi(args[i + 1]);
      if (n < -1 || n > 7) return null;
      dumpopts &= ~(JV_PRINT.TAB | indentFlags(7));
      dumpopts |= indentFlags(n);
      i++;
      continue;
    }
    if (is("", "seq")) {
      options |= JQ_OPT.SEQ;
      continue;
    }
    if (is("", "stream")) {
      parserFlags |= JV_PARSE.STREAMING;
      continue;
    }
    if (is("", "stream-errors")) {
      parserFlags |= JV_PARSE.STREAMING | JV_PARSE.STREAM_ERRORS;
      continue;
    }
    if (is("e", "exit-status")) {
      options |= JQ_OPT.EXIT_STATUS;
      if (!shortOpts) continue;
    }
    if (is("", "args")) {
      strings = true;
      json = false;
      continue;
    }
    if (is("", "jsonargs")) {
      strings = false;
      json = true;
      continue;
    }
    const named = (["arg", "argjson", "rawfile", "slurpfile"] as const).find((k) => is("", k));
    if (named) {
      if (i >= args.length - 2) return null;
      ops.push({ named: args[i + 1], kind: named, value: args[i + 2] });
      i += 2;
      continue;
    }
    // Left to main: help, version-like and debugging options, and anything it would refuse.
    if (long || a.includes("h") || a.includes("V")) return null;
    if (a.length !== shortOpts + 1) return null;
  }
  if (program === null) return null;
  return { options, dumpopts, parserFlags, jqFlags: 0, program, ops, inputs, libDirs };
}
