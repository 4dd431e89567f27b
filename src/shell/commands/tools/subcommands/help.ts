/**
 * `tools`, `tools --help`, `tools -h`, `tools help`: the index of every source.
 *
 * See README → The `tools` command.
 */
import { renderIndex } from "../../../../catalog/index.js";
import type { ShellScope, SubcommandHandler } from "../../../scope.js";

/** The index handler of one shell call. */
export function helpCommand(scope: ShellScope): SubcommandHandler {
  return async () => ({ stdout: renderIndex(scope.catalog, scope.helpFooter), stderr: "", exitCode: 0 });
}
