import { decodeBytesToUtf8, defineCommand, type Command, type ExecResult } from "../../just-bash.js";
import { shellWord } from "../../shell-word.js";

interface XargsOptions {
  replace: string | null;
  maxArgs: number | null;
  maxLines: number | null;
  delimiter: "blank" | "nul" | string;
  noRunIfEmpty: boolean;
  verbose: boolean;
  eof: string | null;
  command: string[];
}

const USAGE = "Usage: xargs [OPTION]... COMMAND [INITIAL-ARGS]...\n";

function parseOptions(args: string[]): XargsOptions | string {
  const o: XargsOptions = {
    replace: null,
    maxArgs: null,
    maxLines: null,
    delimiter: "blank",
    noRunIfEmpty: false,
    verbose: false,
    eof: null,
    command: [],
  };
  const num = (flag: string, v: string | undefined): number | string => {
    if (v === undefined) return `xargs: option requires an argument -- '${flag}'\n${USAGE}`;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1) return `xargs: invalid number "${v}" for -${flag} option\n`;
    return n;
  };
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i];
    if (a === "--") {
      i++;
      break;
    }
    if (!a.startsWith("-") || a === "-") break;
    if (a.startsWith("--")) {
      const [name, inline] = a.slice(2).split(/=(.*)/s, 2) as [string, string | undefined];
      const value = () => (inline !== undefined ? inline : args[++i]);
      if (name === "null") o.delimiter = "nul";
      else if (name === "no-run-if-empty") o.noRunIfEmpty = true;
      else if (name === "verbose") o.verbose = true;
      else if (name === "replace") o.replace = inline ?? "{}";
      else if (name === "delimiter") o.delimiter = value() ?? "\n";
      else if (name === "max-args") {
        const n = num("n", value());
        if (typeof n === "string") return n;
        o.maxArgs = n;
      } else if (name === "max-lines") {
        const n = inline !== undefined ? num("L", inline) : 1;
        if (typeof n === "string") return n;
        o.maxLines = n;
      } else if (name === "max-procs" || name === "max-chars") value();
      else if (name === "eof") o.eof = inline ?? null;
      else if (name === "exit" || name === "open-tty" || name === "interactive") {
        /* accepted, no effect in the sandbox */
      } else return `xargs: unrecognized option '${a}'\n${USAGE}`;
      continue;
    }
    // short options; some take the rest of the word or the next word
    for (let j = 1; j < a.length; j++) {
      const ch = a[j];
      const rest = a.slice(j + 1);
      const take = () => (rest !== "" ? rest : args[++i]);
      if (ch === "0") o.delimiter = "nul";
      else if (ch === "r") o.noRunIfEmpty = true;
      else if (ch === "t") o.verbose = true;
      else if (ch === "x" || ch === "p" || ch === "o") {
        /* accepted */
      } else if (ch === "I") {
        const v = take();
        if (v === undefined) return `xargs: option requires an argument -- 'I'\n${USAGE}`;
        o.replace = v;
        break;
      } else if (ch === "i") {
        o.replace = rest !== "" ? rest : "{}";
        break;
      } else if (ch === "n" || ch === "L" || ch === "P" || ch === "s") {
        const n = num(ch, take());
        if (typeof n === "string") return n;
        if (ch === "n") o.maxArgs = n;
        if (ch === "L") o.maxLines = n;
        break;
      } else if (ch === "l") {
        o.maxLines = rest !== "" ? Number(rest) || 1 : 1;
        break;
      } else if (ch === "d") {
        const v = take();
        if (v === undefined) return `xargs: option requires an argument -- 'd'\n${USAGE}`;
        o.delimiter = unescapeDelimiter(v);
        break;
      } else if (ch === "E" || ch === "e") {
        const v = ch === "E" ? take() : rest;
        o.eof = v || null;
        break;
      } else return `xargs: invalid option -- '${ch}'\n${USAGE}`;
    }
  }
  o.command = args.slice(i);
  if (o.command.length === 0) o.command = ["echo"];
  return o;
}

function unescapeDelimiter(v: string): string {
  const map: Record<string, string> = { n: "\n", t: "\t", r: "\r", "0": "\0", "\\": "\\" };
  if (v.length === 2 && v[0] === "\\" && map[v[1]] !== undefined) return map[v[1]];
  return v[0] ?? "\n";
}

/** Split input into items the way GNU xargs does by default (blanks, quotes, backslash). */
function splitBlank(input: string, eof: string | null): { items: string[]; lines: number[] } | string {
  const items: string[] = [];
  const lines: number[] = []; // line number each item ends on (for -L)
  let cur = "";
  let have = false;
  let line = 0;
  let quote: string | null = null;
  const push = () => {
    if (have) {
      if (eof !== null && cur === eof) return false;
      items.push(cur);
      lines.push(line);
    }
    cur = "";
    have = false;
    return true;
  };
  for (let i = 0; i < input.length; i++) {
    const c = input[i];
    if (quote) {
      if (c === quote) quote = null;
      else if (c === "\n") return `xargs: unmatched ${quote === "'" ? "single" : "double"} quote; by default quotes are special to xargs unless you use the -0 option\n`;
      else cur += c;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      have = true;
    } else if (c === "\\" && i + 1 < input.length) {
      cur += input[++i];
      have = true;
    } else if (c === " " || c === "\t" || c === "\n") {
      const trailingBlankContinues = c !== "\n";
      if (!push()) return { items, lines };
      if (c === "\n" && !trailingBlankContinues) line++;
    } else {
      cur += c;
      have = true;
    }
  }
  if (quote) return `xargs: unmatched ${quote === "'" ? "single" : "double"} quote; by default quotes are special to xargs unless you use the -0 option\n`;
  push();
  return { items, lines };
}

/**
 * Build the `xargs` command (replaces just-bash's, which lacks `-I`): GNU xargs 4.9
 * behaviour for `-I R`/`-i`, `-n N`, `-L N`, `-0`, `-d C`, `-r`, `-t`, `-E`, default
 * `echo`; input split on blanks with quotes and backslashes unless `-0`/`-d`.
 * Each command line runs through the shell's `ctx.exec` with empty stdin, one after
 * another (`-P` is accepted and ignored). Exit status as GNU: 123 if any run exited
 * 1–125, 124 if one exited 255 (and stops), 127/126 passed through, 1 on bad usage.
 * Source: GNU findutils manual, "xargs options"; docs/shell.md.
 */
export function createXargsCommand(): Command {
  return defineCommand("xargs", async (args, ctx): Promise<ExecResult> => {
    const o = parseOptions(args);
    if (typeof o === "string") return { stdout: "", stderr: o, exitCode: 1 };
    if (!ctx.exec) return { stdout: "", stderr: "xargs: cannot run commands here\n", exitCode: 126 };
    const input = decodeBytesToUtf8(ctx.stdin);

    // Group items into command lines.
    const runs: string[][] = [];
    if (o.replace !== null) {
      const lines = (o.delimiter === "blank" ? input.split("\n") : input.split(o.delimiter === "nul" ? "\0" : o.delimiter))
        .map((l) => (o.delimiter === "blank" ? l.replace(/^[ \t]+/, "") : l));
      if (lines.length && lines[lines.length - 1] === "") lines.pop();
      for (const item of lines) {
        if (o.delimiter === "blank" && item === "") continue;
        if (o.eof !== null && item === o.eof) break;
        const rep = o.replace;
        runs.push(o.command.map((w) => w.split(rep).join(item)));
      }
    } else {
      let items: string[];
      let itemLines: number[];
      if (o.delimiter === "blank") {
        const r = splitBlank(input, o.eof);
        if (typeof r === "string") return { stdout: "", stderr: r, exitCode: 1 };
        items = r.items;
        itemLines = r.lines;
      } else {
        const d = o.delimiter === "nul" ? "\0" : o.delimiter;
        items = input.split(d);
        if (items.length && items[items.length - 1] === "") items.pop();
        else if (o.delimiter !== "nul" && items.length && d !== "\n" && items[items.length - 1].endsWith("\n")) {
          items[items.length - 1] = items[items.length - 1].slice(0, -1);
        }
        itemLines = items.map((_, i) => i);
      }
      if (items.length === 0) {
        if (!o.noRunIfEmpty) runs.push([...o.command]);
      } else if (o.maxLines !== null) {
        let group: string[] = [];
        let linesInGroup = 0;
        let lastLine = -1;
        items.forEach((it, idx) => {
          group.push(it);
          const ln = itemLines[idx];
          const nextLn = idx + 1 < items.length ? itemLines[idx + 1] : Infinity;
          if (ln !== lastLine) lastLine = ln;
          if (nextLn !== ln) {
            linesInGroup++;
            if (linesInGroup >= (o.maxLines ?? 1)) {
              runs.push([...o.command, ...group]);
              group = [];
              linesInGroup = 0;
            }
          }
        });
        if (group.length) runs.push([...o.command, ...group]);
      } else if (o.maxArgs !== null) {
        for (let i = 0; i < items.length; i += o.maxArgs) runs.push([...o.command, ...items.slice(i, i + o.maxArgs)]);
      } else {
        runs.push([...o.command, ...items]);
      }
    }

    let stdout = "";
    let stderr = "";
    let status = 0;
    for (const argv of runs) {
      if (o.verbose) stderr += `${argv.join(" ")}\n`;
      const r = await ctx.exec(argv.map(shellWord).join(" "), { cwd: ctx.cwd, stdin: "", signal: ctx.signal });
      stdout += r.stdout;
      stderr += r.stderr;
      if (r.exitCode === 255) {
        stderr += `xargs: ${argv[0]}: exited with status 255; aborting\n`;
        return { stdout, stderr, exitCode: 124 };
      }
      if (r.exitCode === 127 || r.exitCode === 126) return { stdout, stderr, exitCode: r.exitCode };
      if (r.exitCode !== 0) status = 123;
    }
    return { stdout, stderr, exitCode: status };
  });
}
