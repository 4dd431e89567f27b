/**
 * How a config mistake is told: `<file>: <key path>: <what is wrong>`, one line per mistake,
 * with "did you mean" for a key that is one or two letters from a known one. The zod schema
 * (schema.ts) finds the mistakes; this file words them.
 *
 * See README → Configuration.
 */
import * as z from "zod";
import type * as zc from "zod/v4/core";
import { editDistance } from "../tool/index.js";

/** One mistake: where (`mcpServers.github.args[0]`, empty for the whole file) and what. */
export interface ConfigIssue {
  path: string;
  message: string;
}

/**
 * A config that cannot be used. The message has one line per issue, each
 * `<file>: <path>: <message>` (without `file` when the config was not read from one).
 */
export class ConfigError extends Error {
  readonly issues: ConfigIssue[];
  constructor(
    issues: ConfigIssue[],
    readonly file?: string,
  ) {
    // One line per distinct issue: a value can break two rules that say the same thing (1e308:
    // not a whole number, and too large).
    const distinct = [...new Map(issues.map((i) => [issueLine(i), i])).values()];
    super(distinct.map((i) => `${file ? `${file}: ` : ""}${issueLine(i)}`).join("\n"));
    this.issues = distinct;
    this.name = "ConfigError";
  }

  /** The issues without the file name, for a place that names the file already (`toolshell check`'s location). */
  withoutFile(): string {
    return this.issues.map(issueLine).join("\n");
  }
}

function issueLine(i: ConfigIssue): string {
  return `${i.path || "(top level)"}: ${i.message}`;
}

/** `a.b[0].c` from a zod path. */
export function keyPath(parts: readonly PropertyKey[], prefix = ""): string {
  let out = prefix;
  for (const p of parts) out = typeof p === "number" ? `${out}[${p}]` : out ? `${out}.${String(p)}` : String(p);
  return out;
}

/**
 * True when `key` looks like a misspelling of `known`: the same once case, `-` and `_` are
 * ignored, two neighbouring letters swapped, or one edit away (two for names longer than four
 * letters).
 */
export function nearMiss(key: string, known: string): boolean {
  const fold = (s: string) => s.toLowerCase().replace(/[-_]/g, "");
  const x = fold(key);
  const y = fold(known);
  if (x === y) return true;
  if (Math.abs(x.length - y.length) > 2 || Math.min(x.length, y.length) < 3) return false;
  if (x.length === y.length) {
    const i = [...x].findIndex((c, j) => c !== y[j]);
    if (x[i] === y[i + 1] && x[i + 1] === y[i] && x.slice(i + 2) === y.slice(i + 2)) return true;
  }
  return editDistance(x, y) <= (y.length <= 4 ? 1 : 2);
}

/** `unknown key; did you mean "args"? (known: …)` — the "did you mean" part only for a near miss. */
export function unknownKeyMessage(key: string, known: readonly string[]): string {
  const near = known.find((k) => k !== key && nearMiss(key, k));
  return `unknown key${near ? `; did you mean "${near}"?` : ""} (known: ${known.join(", ")})`;
}

/**
 * Splits the keys of an object that the schema does not name: a near miss of a known key is an
 * issue (a typo), any other key is another client's setting, kept and noted.
 */
export function sortUnknownKeys(o: Record<string, unknown>, known: readonly string[], where: string): { issues: ConfigIssue[]; others: string[] } {
  const issues: ConfigIssue[] = [];
  const others: string[] = [];
  const named = new Set(known);
  for (const k of Object.keys(o)) {
    if (named.has(k)) continue;
    if (known.some((x) => nearMiss(k, x))) issues.push({ path: keyPath([k], where), message: unknownKeyMessage(k, known.filter((x) => x !== "$schema")) });
    else others.push(k);
  }
  return { issues, others };
}

/**
 * A zod object that refuses keys it does not name, each refused key worded by
 * {@link unknownKeyMessage} (one issue line `key<TAB>message` per key; {@link toIssues} splits them).
 */
export function strictObject<T extends z.ZodRawShape>(shape: T, typeError = "expected an object") {
  const known = Object.keys(shape);
  return z.strictObject(shape, {
    error: (iss) => {
      if (iss.code === "unrecognized_keys") return iss.keys.map((k) => `${k}\t${unknownKeyMessage(k, known)}`).join("\n");
      if (iss.code === "invalid_type") return typeError;
      return undefined;
    },
  });
}

const TYPE_WORDS: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
  object: "an object",
  record: "an object",
  array: "an array",
  null: "null",
};

/**
 * Words an issue zod raised without a message of the schema's own (the schemas give their own
 * for the rules the README words; this covers the rest). Passed to every parse as its `error`.
 */
export const wording: zc.$ZodErrorMap = (iss) => {
  switch (iss.code) {
    case "invalid_type":
      return iss.input === undefined ? "is required" : `expected ${TYPE_WORDS[iss.expected] ?? iss.expected}`;
    case "too_small":
      if (iss.origin === "string" && Number(iss.minimum) === 1) return "must not be empty";
      if (iss.origin === "array") return `expected at least ${iss.minimum} item(s)`;
      return `expected at least ${iss.minimum}`;
    case "too_big":
      return iss.origin === "array" ? `expected at most ${iss.maximum} item(s)` : `expected at most ${iss.maximum}`;
    case "invalid_value":
      return `expected ${iss.values.map((v) => JSON.stringify(v)).join(", ")}`;
    case "invalid_format":
      return `${JSON.stringify(iss.input)} is not valid here`;
    default:
      return undefined;
  }
};

/**
 * The issues of a failed parse, as {@link ConfigIssue}s below `prefix`. A union's issue is told
 * by the branch that got furthest (its object's own mistakes), or by the union's own message when
 * no branch matched the value's type; a record key's issue by the key's own message.
 */
export function toIssues(issues: readonly zc.$ZodIssue[], prefix = ""): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  for (const iss of issues) {
    const at = keyPath(iss.path, prefix);
    if (iss.code === "unrecognized_keys" && iss.message.includes("\t")) {
      for (const line of iss.message.split("\n")) {
        const tab = line.indexOf("\t");
        out.push({ path: keyPath([line.slice(0, tab)], at), message: line.slice(tab + 1) });
      }
    } else if (iss.code === "invalid_union" && iss.errors.length) {
      const branch = iss.errors.find((b) => b.length > 0 && !b.every((x) => x.path.length === 0 && (x.code === "invalid_type" || x.code === "invalid_value")));
      if (branch) out.push(...toIssues(branch, at));
      else out.push({ path: at, message: iss.message });
    } else if (iss.code === "invalid_key") {
      out.push({ path: at, message: iss.issues[0]?.message ?? iss.message });
    } else out.push({ path: at, message: iss.message });
  }
  return out;
}

/**
 * Parses `value` with `schema`, wording mistakes as above.
 * @throws ConfigError listing every mistake, keys below `prefix`, lines prefixed with `file`.
 */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, prefix: string, file?: string): z.output<S> {
  const r = schema.safeParse(value, { error: wording, reportInput: true });
  if (r.success) return r.data;
  throw new ConfigError(toIssues(r.error.issues, prefix), file);
}
