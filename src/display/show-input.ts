/**
 * Showing a call's input to a person so that what they approve is what they see.
 *
 * A tool input is data from the model, a script or an MCP server: it may hold characters a
 * person cannot see or that reorder the text around them — zero-width characters, bidirectional
 * embeddings, overrides and isolates (the Unicode Bidirectional Algorithm, UAX 9), tag characters, controls such
 * as ESC that a terminal would act on, and blank-looking fillers. `showInput` writes the input as
 * JSON in which every such character is a visible JSON escape (`\u202e`) and returns a flag for
 * each, with where it was found. The JSON stays valid: parsing the text gives back the input
 * (unless long strings were folded). Every surface that shows an input to a person (the CLI
 * prompt, the gateway's elicitation form, the HTTP API's pending entries, the console) uses it;
 * see docs/security.md. Plain text (a script line) goes through `showText`: the same characters
 * escaped and flagged, nothing else.
 */

/** One hidden or reordering character found in the input. */
export interface InputFlag {
  /**
   * Where it is, as a JSON Pointer (RFC 6901) into the input; `""` is the input itself. A
   * pointer into an object key names that member. Keys in the pointer are escaped the same way
   * as the text, so the path is safe to show too.
   */
  path: string;
  /** The code point, written `U+202E`. */
  codePoint: string;
  /** Its Unicode name or short description when known (`RIGHT-TO-LEFT OVERRIDE`). */
  name?: string;
}

/** What to show, and what was hidden in it. */
export interface ShownInput {
  /** The input as JSON with every flagged character written as a JSON escape. */
  text: string;
  /** Every flagged character, in order of appearance; empty when the input is plain. */
  flags: InputFlag[];
}

/** How to lay out the text. */
export interface ShowInputOptions {
  /** Indent the JSON by two spaces (default false: one line). */
  pretty?: boolean;
  /**
   * Fold strings longer than this many code points to their first `foldAt` code points and a
   * `… (+N more)` mark (default: no folding). Flags are still found in the whole string.
   */
  foldAt?: number;
}

const NAMES: Record<number, string> = {
  0x00: "NULL",
  0x07: "BELL",
  0x08: "BACKSPACE",
  0x0b: "LINE TABULATION",
  0x0c: "FORM FEED",
  0x0d: "CARRIAGE RETURN",
  0x1b: "ESCAPE",
  0x7f: "DELETE",
  0x85: "NEXT LINE",
  0x9b: "CONTROL SEQUENCE INTRODUCER",
  0xa0: "NO-BREAK SPACE",
  0xad: "SOFT HYPHEN",
  0x034f: "COMBINING GRAPHEME JOINER",
  0x061c: "ARABIC LETTER MARK",
  0x115f: "HANGUL CHOSEONG FILLER",
  0x1160: "HANGUL JUNGSEONG FILLER",
  0x180e: "MONGOLIAN VOWEL SEPARATOR",
  0x200b: "ZERO WIDTH SPACE",
  0x200c: "ZERO WIDTH NON-JOINER",
  0x200d: "ZERO WIDTH JOINER",
  0x200e: "LEFT-TO-RIGHT MARK",
  0x200f: "RIGHT-TO-LEFT MARK",
  0x2028: "LINE SEPARATOR",
  0x2029: "PARAGRAPH SEPARATOR",
  0x202a: "LEFT-TO-RIGHT EMBEDDING",
  0x202b: "RIGHT-TO-LEFT EMBEDDING",
  0x202c: "POP DIRECTIONAL FORMATTING",
  0x202d: "LEFT-TO-RIGHT OVERRIDE",
  0x202e: "RIGHT-TO-LEFT OVERRIDE",
  0x202f: "NARROW NO-BREAK SPACE",
  0x205f: "MEDIUM MATHEMATICAL SPACE",
  0x2060: "WORD JOINER",
  0x2061: "FUNCTION APPLICATION",
  0x2062: "INVISIBLE TIMES",
  0x2063: "INVISIBLE SEPARATOR",
  0x2064: "INVISIBLE PLUS",
  0x2066: "LEFT-TO-RIGHT ISOLATE",
  0x2067: "RIGHT-TO-LEFT ISOLATE",
  0x2068: "FIRST STRONG ISOLATE",
  0x2069: "POP DIRECTIONAL ISOLATE",
  0x2800: "BRAILLE PATTERN BLANK",
  0x3000: "IDEOGRAPHIC SPACE",
  0x3164: "HANGUL FILLER",
  0xfeff: "ZERO WIDTH NO-BREAK SPACE (BYTE ORDER MARK)",
  0xffa0: "HALFWIDTH HANGUL FILLER",
  0xfff9: "INTERLINEAR ANNOTATION ANCHOR",
  0xfffa: "INTERLINEAR ANNOTATION SEPARATOR",
  0xfffb: "INTERLINEAR ANNOTATION TERMINATOR",
};

/**
 * Controls (Cc) other than tab and line feed, format characters (Cf: zero-width, bidirectional,
 * tags, …), line and paragraph separators, every space other than U+0020, private-use and
 * unassigned code points, lone surrogates, variation selectors and the blank-looking fillers.
 */
const HIDDEN = /[^\P{Cc}\t\n]|\p{Cf}|\p{Zl}|\p{Zp}|[^\P{Zs} ]|\p{Co}|\p{Cn}|\p{Cs}|[\u{fe00}-\u{fe0f}\u{e0100}-\u{e01ef}\u{034f}\u{115f}\u{1160}\u{3164}\u{ffa0}\u{2800}]/u;

function describe(cp: number): string | undefined {
  if (NAMES[cp]) return NAMES[cp];
  if (cp >= 0xe0000 && cp <= 0xe007f) return "TAG CHARACTER";
  if ((cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0xe0100 && cp <= 0xe01ef)) return "VARIATION SELECTOR";
  if (cp <= 0x1f || (cp >= 0x7f && cp <= 0x9f)) return "CONTROL CHARACTER";
  if (cp >= 0xd800 && cp <= 0xdfff) return "LONE SURROGATE";
  if ((cp >= 0xe000 && cp <= 0xf8ff) || cp >= 0xf0000) return "PRIVATE USE";
  return undefined;
}

function hex4(n: number): string {
  return n.toString(16).padStart(4, "0");
}

function codePointLabel(cp: number): string {
  return `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`;
}

/** JSON escape of one code point (a surrogate pair above U+FFFF). */
function jsonEscape(cp: number): string {
  if (cp <= 0xffff) return `\\u${hex4(cp)}`;
  const v = cp - 0x10000;
  return `\\u${hex4(0xd800 + (v >> 10))}\\u${hex4(0xdc00 + (v & 0x3ff))}`;
}

/** Pointer segment escaping per RFC 6901 (`~` → `~0`, `/` → `~1`). */
function pointerSegment(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

class Writer {
  readonly flags: InputFlag[] = [];
  constructor(private readonly options: ShowInputOptions) {}

  /** The JSON string literal for `s`, with hidden characters escaped and flagged at `path`. */
  string(s: string, path: string, fold: boolean): string {
    let out = "";
    let count = 0;
    const limit = fold && this.options.foldAt !== undefined && this.options.foldAt >= 0 ? this.options.foldAt : Infinity;
    let folded = 0;
    // Iterating a string yields code points, and lone surrogates one by one.
    for (const ch of s) {
      const cp = ch.codePointAt(0)!;
      const hidden = HIDDEN.test(ch);
      if (hidden) this.flags.push({ path, codePoint: codePointLabel(cp), ...(describe(cp) ? { name: describe(cp) } : {}) });
      if (count >= limit) {
        folded++;
        continue;
      }
      count++;
      if (hidden) out += jsonEscape(cp);
      else out += JSON.stringify(ch).slice(1, -1);
    }
    if (folded) out += `… (+${folded} more)`;
    return `"${out}"`;
  }

  /** The safe form of a key, for use inside a pointer (no flags: the caller flags it). */
  safeKey(key: string): string {
    let out = "";
    for (const ch of key) out += HIDDEN.test(ch) ? jsonEscape(ch.codePointAt(0)!) : ch;
    return out;
  }

  value(v: unknown, path: string, depth: number, seen: Set<object>): string | undefined {
    if (v === null) return "null";
    switch (typeof v) {
      case "string":
        return this.string(v, path, true);
      case "number":
        return Number.isFinite(v) ? String(v) : "null";
      case "boolean":
        return String(v);
      case "bigint":
        return v.toString();
      case "undefined":
      case "function":
      case "symbol":
        return undefined;
    }
    const obj = v as object;
    if (seen.has(obj)) return '"[Circular]"';
    const json = (obj as { toJSON?: () => unknown }).toJSON;
    if (typeof json === "function") return this.value(json.call(obj), path, depth, seen);
    seen.add(obj);
    try {
      const pad = this.options.pretty ? "\n" + "  ".repeat(depth + 1) : "";
      const end = this.options.pretty ? "\n" + "  ".repeat(depth) : "";
      const sep = this.options.pretty ? ": " : ":";
      if (Array.isArray(obj)) {
        if (obj.length === 0) return "[]";
        const items = obj.map((item, i) => this.value(item, `${path}/${i}`, depth + 1, seen) ?? "null");
        return `[${items.map((s) => pad + s).join(",")}${end}]`;
      }
      const members: string[] = [];
      for (const [key, item] of Object.entries(obj)) {
        const itemPath = `${path}/${pointerSegment(this.safeKey(key))}`;
        const keyText = this.string(key, itemPath, false);
        const itemText = this.value(item, itemPath, depth + 1, seen);
        if (itemText !== undefined) members.push(pad + keyText + sep + itemText);
      }
      return members.length ? `{${members.join(",")}${end}}` : "{}";
    } finally {
      seen.delete(obj);
    }
  }
}

/**
 * Writes `input` for a person: JSON (one line, or indented with `pretty`), every invisible,
 * bidirectional, control or blank-looking character written as a JSON escape and listed in
 * `flags` with its JSON Pointer path, code point and name. Never throws: cycles show as
 * `"[Circular]"`, values JSON cannot hold are left out as JSON.stringify leaves them out, and
 * an input that is not JSON at all shows as `null`.
 */
export function showInput(input: unknown, options: ShowInputOptions = {}): ShownInput {
  const writer = new Writer(options);
  const text = writer.value(input, "", 0, new Set()) ?? "null";
  return { text, flags: writer.flags };
}

/** A piece of text as {@link showText} gives it: as written, or one hidden character's escape. */
export interface ShownPart {
  text: string;
  /** Set when `text` is the `\uXXXX` escape of a hidden character (a surface marks it). */
  hidden?: InputFlag;
}

/**
 * Writes plain text (a script line, a tool name) for a person: as written, except that every
 * character `showInput` would flag is replaced by its `\uXXXX` escape, returned as its own part
 * and flagged (path `""`). Unlike `showInput` nothing else is escaped: quotes and backslashes
 * stay as the text has them, so a script line reads as the script does.
 */
export function showText(text: string): { parts: ShownPart[]; flags: InputFlag[] } {
  const parts: ShownPart[] = [];
  const flags: InputFlag[] = [];
  let plain = "";
  for (const ch of text) {
    if (!HIDDEN.test(ch)) {
      plain += ch;
      continue;
    }
    const cp = ch.codePointAt(0)!;
    const flag: InputFlag = { path: "", codePoint: codePointLabel(cp), ...(describe(cp) ? { name: describe(cp) } : {}) };
    if (plain) parts.push({ text: plain });
    plain = "";
    parts.push({ text: jsonEscape(cp), hidden: flag });
    flags.push(flag);
  }
  if (plain) parts.push({ text: plain });
  return { parts, flags };
}

/** Every character {@link showText} flags, for replacing all of them at once. */
const HIDDEN_ALL = new RegExp(HIDDEN.source, "gu");

/**
 * Text from a script, a server or an authorization server for a terminal: as {@link showText}
 * writes it (the console's escaping), every flagged character — ESC of an ANSI CSI/OSC sequence,
 * CR, backspace, C1 controls, bidirectional overrides, zero-width characters — as its visible
 * `\uXXXX` escape; newlines and tabs kept. Every CLI line printing such text goes through it.
 */
export function terminalText(text: string): string {
  return text.replace(HIDDEN_ALL, (ch) => jsonEscape(ch.codePointAt(0)!));
}

/**
 * JSON text for a terminal: the same characters as JSON escapes (they only occur inside strings,
 * so the text still parses to the same value).
 */
export function terminalJson(json: string): string {
  return terminalText(json);
}

/**
 * One line per flag for a person to read under the shown input, e.g.
 * `hidden character U+202E RIGHT-TO-LEFT OVERRIDE at /path`; empty when there are none.
 */
export function describeFlags(flags: InputFlag[]): string[] {
  return flags.map((f) => `hidden character ${f.codePoint}${f.name ? ` ${f.name}` : ""} at ${f.path === "" ? "the input itself" : f.path}`);
}

/**
 * A tool name (an MCP server's, not trusted) for a person: as is when plain, else as a JSON
 * string with every flagged character escaped, and one warning line per character.
 */
export function showName(name: string): { text: string; warnings: string[] } {
  const shown = showInput(name);
  if (!shown.flags.length) return { text: name, warnings: [] };
  return { text: shown.text, warnings: shown.flags.map((f) => `hidden character ${f.codePoint}${f.name ? ` ${f.name}` : ""} in the tool name`) };
}

/**
 * Adds `display` — `showInput(input, { pretty: true })` — to each approval request, keeping
 * `input` raw, and leaves out the internal `subject` (the command bound to its server's identity):
 * the API's `pending` entries as the OpenAPI document's `ApprovalRequest` lists them.
 */
export function withDisplay<T extends { input: unknown; subject?: string }>(requests: readonly T[]): Array<Omit<T, "subject"> & { display: ShownInput }> {
  return requests.map(({ subject: _subject, ...r }) => ({ ...r, display: showInput(r.input, { pretty: true }) }));
}
