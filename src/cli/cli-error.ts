/**
 * The CLI's one error for what the user asked: a stable code (the HTTP API's codes) and the
 * exit code — 1 for bad input, nothing found or a clash, 2 when the config, store or host could
 * not be had (README → The CLI; docs/sessions.md's exit codes). `fail` (cli/manage.ts) prints it;
 * `runOnHost` (cli/commands.ts) turns it into an outcome. No imports: every CLI module may throw
 * it without pulling in another.
 */
export class CliError extends Error {
  constructor(
    readonly code: "invalid_input" | "not_found" | "conflict" | "unavailable",
    message: string,
    readonly exitCode: 1 | 2 = code === "unavailable" ? 2 : 1,
  ) {
    super(message);
  }
}
