/**
 * The `tools` subcommands every shell has: `help` (the index) and `search`. The runtime adds
 * `plan`, and a host adds its own (`scripts`); all are looked up in one registry (see
 * `ShellScope.subcommand`).
 */
import type { ShellScope, SubcommandHandler } from "../../../scope.js";
import { helpCommand } from "./help.js";
import { searchCommand } from "./search.js";

/** Makes the handler of one subcommand for one shell call. */
export type SubcommandFactory<S extends ShellScope = ShellScope> = (scope: S) => SubcommandHandler;

/** The built-in subcommands, by their first word. */
export const SHELL_SUBCOMMANDS: Readonly<Record<string, SubcommandFactory>> = { help: helpCommand, search: searchCommand };

export { helpCommand, searchCommand };
