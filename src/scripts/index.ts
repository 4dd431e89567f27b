/**
 * The scripts folder's public face: saved scripts as a source (`tools scripts NAME`), the
 * `tools scripts …` command, their checks, and {@link createScripts} which wires both into a
 * ToolShell (`sessionSources` + `subcommands`).
 */
import type { RuntimeSubcommand, Session } from "../runtime/index.js";
import type { Store } from "../store/index.js";
import type { Catalog } from "../catalog/index.js";
import type { CatalogTool, ToolSource } from "../tool/index.js";
import { scriptsCommand } from "./command.js";
import { scriptApprovalScope, ScriptsSource, SCRIPTS_SOURCE } from "./source.js";

export { ScriptsSource, runSavedScript, scriptDepth, scriptApprovalScope, agentOf, SCRIPTS_SOURCE, MAX_SCRIPT_DEPTH, SCRIPT_PRELUDE } from "./source.js";
export { scriptsCommand, SCRIPT_VERBS } from "./command.js";
export type { ScriptsCommandOptions } from "./command.js";
export { scriptName, checkScriptInput, hasFields, noFieldsNote, MAX_NAME, MAX_BODY_BYTES, MAX_DESCRIPTION } from "./validate.js";
export type { CheckedScript } from "./validate.js";

/** What {@link createScripts} gives to `createToolShell`. */
export interface ScriptsWiring {
  /** `createToolShell({ sessionSources })`: one scripts source per session (its agent's scripts). */
  sessionSources(session: Session): ToolSource[];
  /** `createToolShell({ subcommands })`: `tools scripts …`. */
  subcommands: Record<string, RuntimeSubcommand>;
  /** `createToolShell({ approvalScope })`: answers to calls made in a saved script hold for that version only. */
  approvalScope: typeof scriptApprovalScope;
}

/**
 * Saved scripts for a ToolShell over `store`. `manageScripts` (config) allows saving and
 * archiving from the shell.
 */
export function createScripts(options: { store: Store; manageScripts: boolean }): ScriptsWiring {
  const sources = new WeakMap<Session, ScriptsSource>();
  const sourceOf = (session: Session): ScriptsSource => {
    let s = sources.get(session);
    if (!s) {
      s = new ScriptsSource(options.store, session);
      sources.set(session, s);
    }
    return s;
  };
  return {
    sessionSources: (session) => [sourceOf(session)],
    approvalScope: scriptApprovalScope,
    subcommands: {
      // A save or an archive is seen by the rest of the same shell call: the source re-reads.
      [SCRIPTS_SOURCE]: (call) => scriptsCommand(call.session, { store: options.store, manageScripts: options.manageScripts, changed: () => sourceOf(call.session).refresh(), reachable: reachableIn(call.catalog) }),
    },
  };
}

/**
 * Whether a saved script of this name passes the shell call's split (`allowedTools`): the
 * scripts source of its catalog is asked about the name, listed or archived. Without a filter,
 * every name passes.
 */
function reachableIn(catalog: Catalog): (name: string) => boolean {
  const source = catalog.findSource(SCRIPTS_SOURCE) as (ToolSource & { admits?: (tool: CatalogTool) => boolean }) | undefined;
  if (!source?.admits) return () => true;
  return (name) =>
    source.admits!({ name, source: SCRIPTS_SOURCE, grouped: true, description: "", inputSchema: { type: "object", properties: {} }, hints: {}, hintsDeclared: false, validate: (input) => ({ ok: true, value: input }), invoke: async () => ({ kind: "text", text: "" }) });
}
