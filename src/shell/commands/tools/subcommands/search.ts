/**
 * `tools search <words>`: finds tools by name and description; a server loaded on demand that the
 * words name is loaded and searched in the same shell call.
 *
 * See README → The `tools` command.
 */
import { renderSearch } from "../../../../catalog/index.js";
import { ToolCallError } from "../../../../tool/index.js";
import type { ShellScope, SubcommandHandler } from "../../../scope.js";

/** The search handler of one shell call. @throws ToolCallError `invalid_input` without words. */
export function searchCommand(scope: ShellScope): SubcommandHandler {
  return async (words) => {
    if (words[0] === "--help" || words[0] === "-h" || words[0] === "help") {
      return { stdout: "Usage: tools search <words>  — finds tools by name and description\n", stderr: "", exitCode: 0 };
    }
    if (words.length === 0) throw new ToolCallError("invalid_input", "tools search needs words to search for: tools search <words>");
    const { catalog } = scope;
    const hits = await catalog.search(words, scope.signal);
    const unloaded = catalog.groupedSources().filter((s) => s.state() === "not_loaded").map((s) => s.name);
    const note = unloaded.length ? `# not searched (not loaded): ${unloaded.join(", ")} — name one to load it: tools search ${unloaded[0]} ${words.join(" ")}\n` : "";
    return { stdout: renderSearch(hits, words) + note, stderr: "", exitCode: 0 };
  };
}
