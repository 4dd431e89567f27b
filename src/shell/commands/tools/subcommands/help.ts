/**
 * `tools`, `tools --help`, `tools -h`, `tools help`: the index of every source.
 *
 * Rule source: README "The tools command" (`tools --help` lists MCP servers with their tool
 * counts and the other tools).
 */
import { renderIndex } from "../../../../catalog/index.js";
import type { ShellScope, SubcommandHandler } from "../../../scope.js";

/** The index handler of one shell call. */
export function helpCommand(scope: ShellScope): SubcommandHandler {
  return async () => ({ stdout: renderIndex(scope.catalog, scope.helpFooter), stderr: "", exitCode: 0 });
}
