/**
 * `tools` calls written inside texts: when a script holds something that can run text as code
 * (`eval`, `PS4`, `trap`, awk's `getline`, a file it writes and runs …), the reading cannot know
 * which text runs, so every call spelled out anywhere in the script's text is asked about before
 * the start as if written out (docs/security.md, "The preflight"). A call assembled at run time
 * from pieces no text shows is not found here; the plan is then incomplete and the run-time check
 * judges the call.
 */
import { parse } from "../shell/just-bash.js";
import { literalOf } from "./word-lines.js";

/** A call found in a text: its words after `tools`, and its line in the script. */
export interface TextCall {
  words: string[];
  line: number;
}

/** Where a call's words end in text that is not shell (quotes and escapes of an outer language). */
const END = /['"`)\\;|&<>\n]/;

/** The words of a `tools` command parsed from `text`, when it parses as one with literal words. */
function parsedWords(text: string): string[] | undefined {
  try {
    const ast = parse(text) as unknown as { statements?: Array<{ pipelines?: Array<{ commands?: Array<Record<string, unknown>> }> }> };
    const cmd = ast.statements?.[0]?.pipelines?.[0]?.commands?.[0];
    if (!cmd || cmd.type !== "SimpleCommand" || literalOf(cmd.name)?.split("/").pop() !== "tools") return undefined;
    const words = ((cmd.args as unknown[]) ?? []).map(literalOf);
    return words.every((w) => w !== undefined) ? (words as string[]) : undefined;
  } catch {
    return undefined;
  }
}

/** Every `tools NAME …` spelled in the script's text, with the words it can make out. */
export function callsInText(script: string, limit = 200): TextCall[] {
  const out: TextCall[] = [];
  const re = /(?<![\w.-])(?:[\w./-]*\/)?tools[ \t]+(?=[A-Za-z_])/g;
  let lineAt = 0;
  let line = 1;
  for (let m = re.exec(script); m && out.length < limit; m = re.exec(script)) {
    for (; lineAt < m.index; lineAt++) if (script.charCodeAt(lineAt) === 10) line++;
    const eol = script.indexOf("\n", m.index);
    // One call's words fit in a line's first 4,000 characters (keeps the scan linear in the script).
    const rest = script.slice(m.index + m[0].length, Math.min(eol < 0 ? script.length : eol, m.index + m[0].length + 4000));
    const cut = rest.search(END);
    const plain = (cut < 0 ? rest : rest.slice(0, cut)).trim().split(/[ \t]+/).filter(Boolean);
    // The whole line as shell first (it may quote a JSON argument), then up to the first character no bare word holds.
    const candidates = [parsedWords(`tools ${rest}`), parsedWords(`tools ${rest.replace(/\\(["'\\])/g, "$1")}`), plain];
    for (const words of candidates) {
      if (words && words.length > 0) {
        out.push({ words, line });
        break;
      }
    }
  }
  return out;
}
