/**
 * How a stored time (ISO 8601, UTC) is shown to a person on every surface: `2026-12-07
 * 02:56:07 UTC` in the console and in the texts it shares with the CLI (an approval card's
 * in-flight warning), `2026-12-07 02:56:07` in the CLI's tables (their headers say UTC).
 */

/** `iso` to the second, with ` UTC` unless `bare`. */
export function shownTime(iso: string, bare = false): string {
  return `${iso.replace("T", " ").slice(0, 19)}${bare ? "" : " UTC"}`;
}
