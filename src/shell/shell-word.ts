/**
 * A word as bash reads it back: as it is when it holds only characters bash leaves alone, else
 * single-quoted. Used where text is written for a shell to run (`xargs -t`'s trace, the command a
 * person is told to run).
 */
export function shellWord(s: string): string {
  if (s !== "" && /^[A-Za-z0-9_@%+=:,./-]+$/.test(s)) return s;
  return `'${s.replace(/'/g, `'\\''`)}'`;
}
