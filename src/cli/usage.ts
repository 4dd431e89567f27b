/**
 * Arguments that take one of a few words: a word outside them is a usage error like an unknown
 * command or option — exit 1 with the command's usage (README "The CLI and the demo": "a mistyped
 * command or option exits 1 with usage").
 */
import { InvalidArgumentError } from "commander";

/**
 * A commander argument parser that accepts one of `words` (the hidden ones are accepted but not
 * named in the message).
 * @param what names the argument in the message (`daemon action`, `shell`).
 */
export function oneOf(what: string, words: readonly string[], hidden: readonly string[] = []): WordParser<string> {
  const parse = (value: string): string => {
    if (words.includes(value) || hidden.includes(value)) return value;
    throw new InvalidArgumentError(`unknown ${what} ${JSON.stringify(value)}; known: ${words.join(", ")}`);
  };
  return Object.assign(parse as <P>(value: string, previous: P) => string, { words });
}

/** A parser that knows its words, so `toolshell completion` offers them (src/cli/completion.ts). */
export type WordParser<T> = (<P>(value: string, previous: P) => T) & { words: readonly string[] };

/** The words an argument's or option's parser accepts, when it is a {@link WordParser}. */
export function wordsOf(parse: unknown): readonly string[] | undefined {
  return typeof parse === "function" && Array.isArray((parse as { words?: unknown }).words) ? (parse as unknown as { words: string[] }).words : undefined;
}

/** Like {@link oneOf} for a repeatable option whose values may also be comma-separated (`--import a,b --import c`). */
export function someOf(what: string, words: readonly string[]): WordParser<string[]> {
  const one = oneOf(what, words);
  const parse = <P>(value: string, previous: P): string[] => [...((previous as string[] | undefined) ?? []), ...value.split(",").map((v) => v.trim()).filter(Boolean).map((v) => one(v, undefined))];
  return Object.assign(parse, { words });
}
