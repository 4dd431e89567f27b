/**
 * `tools scripts …` inside the shell:
 *
 *   tools scripts [--archived]                       list the agent's saved scripts
 *   tools scripts save NAME --description "…" [--input-schema '{…}']   body on stdin (needs manageScripts)
 *   tools scripts show NAME [--version N]            print a script's body and schema
 *   tools scripts versions NAME                      list its versions
 *   tools scripts archive NAME | unarchive NAME      (needs manageScripts)
 *   tools scripts NAME k=v | '{…}' | -               run one (the normal nested-call path)
 *
 * See docs/sessions.md → Saved scripts.
 */
import type { Session } from "../runtime/index.js";
import { errorLine, type SubcommandHandler, type SubcommandResult } from "../shell/index.js";
import type { Store } from "../store/index.js";
import { ToolCallError } from "../tool/index.js";
import { agentOf, SCRIPTS_SOURCE } from "./source.js";
import { checkScriptInput, hasFields, noFieldsNote, scriptName } from "./validate.js";

/** Words after `tools scripts` that are not script names. */
export const SCRIPT_VERBS = new Set(["save", "show", "versions", "archive", "unarchive", "list", "help"]);

const ok = (stdout: string): SubcommandResult => ({ stdout, stderr: "", exitCode: 0 });
const fail = (err: ToolCallError): SubcommandResult => ({ stdout: "", stderr: errorLine(err), exitCode: 1 });
/** Where a person turns script management on (README "Configuration"), said with every refusal of it. */
const TURN_ON = ` (a person turns it on with "manageScripts": true in toolshell.config.json, or manageScripts in the library's config)`;

/** Reads `--name value` / `--name=value` options; the rest are positional. @throws ToolCallError on a missing value. */
function options(args: string[], known: string[]): { opts: Record<string, string | true>; rest: string[] } {
  const opts: Record<string, string | true> = {};
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const m = /^--([a-z-]+)(?:=(.*))?$/s.exec(a);
    if (!m) {
      rest.push(a);
      continue;
    }
    const name = m[1];
    if (!known.includes(name)) throw new ToolCallError("invalid_input", `tools scripts: unknown option --${name} (known: ${known.map((k) => "--" + k).join(", ")})`);
    if (m[2] !== undefined) opts[name] = m[2];
    else if (name === "archived" || name === "help" || name === "json") opts[name] = true;
    else if (i + 1 < args.length) opts[name] = args[++i];
    else throw new ToolCallError("invalid_input", `tools scripts: --${name} needs a value`);
  }
  return { opts, rest };
}

function usage(): string {
  return [
    "Saved scripts:",
    "  tools scripts [--archived]                      list them (--archived: archived ones too)",
    "  tools scripts NAME k=v | '{...}' | -            run one (input checked against its schema, on stdin as JSON)",
    "  tools scripts NAME --help                       its input schema",
    "  tools scripts show NAME [--version N]           its body",
    "  tools scripts versions NAME                     its versions",
    "  cat body.sh | tools scripts save NAME --description '...' --input-schema '{...}'",
    "  tools scripts archive NAME | unarchive NAME",
  ].join("\n") + "\n";
}

/** What the handler needs. */
export interface ScriptsCommandOptions {
  store: Store;
  /** The config's `manageScripts`: saving and archiving need it. */
  manageScripts: boolean;
  /** Called after a save, archive or unarchive, so the rest of the shell call lists the change. */
  changed?: () => Promise<void>;
  /**
   * Whether this shell call may reach a saved script of this name (`allowedTools`): one it may
   * not is neither listed, shown, saved, archived nor run, as if it did not exist.
   */
  reachable?: (name: string) => boolean;
}

/**
 * The handler of `tools scripts …` for one session. Answers `undefined` for `tools scripts NAME …`
 * so the words go on to the catalog (a nested call: budget, policy, events). Never throws: errors
 * come back as the error line (README "The `tools` command" → Errors) with exit code 1.
 */
export function scriptsCommand(session: Session, o: ScriptsCommandOptions): SubcommandHandler {
  const { store } = o;
  const agent = agentOf(session);
  const reachable = o.reachable ?? (() => true);
  /** The name, when this shell call may reach it. @throws ToolCallError as for a script that does not exist. */
  const named = (word: string, what = "saved script"): string => {
    const name = scriptName(word);
    if (!reachable(name)) throw new ToolCallError("unknown_command", `no ${what} ${word} (not among the tools allowed here)`);
    return name;
  };
  return async (args, io) => {
    try {
      const [verb, ...rest] = args;
      if (verb === "help" || verb === "--help" || verb === "-h") return ok(usage());
      if (verb === undefined || verb === "list" || verb === "--archived" || verb === "--json") {
        const { opts } = options(verb === "list" ? rest : args, ["archived", "json"]);
        const list = (await store.listScripts(agent, { includeArchived: opts.archived === true })).filter((s) => reachable(s.name));
        if (opts.json) return ok(JSON.stringify(list.map((s) => ({ name: s.name, version: s.version, description: s.description, archived: s.archived, input_schema: s.input_schema }))) + "\n");
        if (!list.length) return ok(`No saved scripts${opts.archived ? "" : " (tools scripts --archived lists archived ones)"}.\n` + (o.manageScripts ? "Save one: cat body.sh | tools scripts save NAME --description '...' --input-schema '{...}'\n" : ""));
        const width = Math.min(32, Math.max(12, ...list.map((s) => s.name.length + 2)));
        const lines = list.map((s) => `  ${s.name.padEnd(width)}v${s.version}${s.archived ? " (archived)" : ""}  ${s.description.replace(/\s+/g, " ").slice(0, 90)}`);
        return ok(`Saved scripts (tools scripts NAME --help shows one's input):\n${lines.join("\n")}\n`);
      }
      if (verb === "save") {
        if (!o.manageScripts) throw new ToolCallError("denied", `saving scripts needs the manageScripts setting, which is off for this agent${TURN_ON}`);
        const { opts, rest: pos } = options(rest, ["description", "input-schema"]);
        if (pos.length !== 1) throw new ToolCallError("invalid_input", "usage: cat body.sh | tools scripts save NAME --description '...' --input-schema '{...}'");
        const name = named(pos[0]);
        // None given: a new version keeps the previous one's, a first version has no fields (ScriptInput).
        let schema: unknown;
        if (typeof opts["input-schema"] === "string") {
          try {
            schema = JSON.parse(opts["input-schema"]);
          } catch (err) {
            throw new ToolCallError("invalid_input", `--input-schema is not JSON: ${(err as Error).message}`);
          }
        }
        const checked = checkScriptInput({ name, description: opts.description, input_schema: schema, body: io.stdin });
        const before = await store.getScript(agent, name);
        const saved = await store.saveScript(agent, { ...checked, created_by: session.id });
        await o.changed?.();
        session.emit({ type: "script.saved", agent_id: agent, script_id: saved.id, name: saved.name, version: saved.version });
        const note = noFieldsNote(saved.input_schema);
        return ok(JSON.stringify({ saved: saved.name, version: saved.version, ...(before ? { previous_version: before.version } : {}), ...(before && !checked.input_schema && hasFields(saved.input_schema) ? { input_schema_kept: saved.input_schema } : {}), run: `tools ${SCRIPTS_SOURCE} ${saved.name}`, ...(note ? { note } : {}) }) + "\n");
      }
      if (verb === "archive" || verb === "unarchive") {
        if (!o.manageScripts) throw new ToolCallError("denied", `${verb === "archive" ? "archiving" : "unarchiving"} scripts needs the manageScripts setting, which is off for this agent${TURN_ON}`);
        if (rest.length !== 1) throw new ToolCallError("invalid_input", `usage: tools scripts ${verb} NAME`);
        const s = await store.setScriptArchived(agent, named(rest[0]), verb === "archive");
        await o.changed?.();
        if (!s) throw new ToolCallError("unknown_command", `no saved script ${rest[0]}`);
        session.emit({ type: "script.archived", agent_id: agent, script_id: s.id, name: s.name, archived: s.archived });
        return ok(JSON.stringify({ name: s.name, archived: s.archived }) + "\n");
      }
      if (verb === "show" || verb === "versions") {
        const { opts, rest: pos } = options(rest, verb === "show" ? ["version"] : []);
        if (pos.length !== 1) throw new ToolCallError("invalid_input", `usage: tools scripts ${verb} NAME`);
        const name = named(pos[0]);
        if (verb === "versions") {
          const vs = await store.scriptVersions(agent, name);
          if (!vs.length) throw new ToolCallError("unknown_command", `no saved script ${pos[0]}`);
          return ok(vs.map((v) => JSON.stringify({ version: v.version, created_at: v.created_at, created_by: v.created_by, description: v.description })).join("\n") + "\n");
        }
        const version = opts.version === undefined ? undefined : Number(opts.version);
        if (version !== undefined && !Number.isInteger(version)) throw new ToolCallError("invalid_input", "--version takes a whole number");
        const s = await store.getScript(agent, name, { version });
        if (!s) throw new ToolCallError("unknown_command", `no saved script ${pos[0]}${version ? ` version ${version}` : ""}`);
        return ok(`# ${s.name} v${s.version}${s.archived ? " (archived)" : ""}: ${s.description}\n# input schema: ${JSON.stringify(s.input_schema)}\n${s.body.endsWith("\n") ? s.body : s.body + "\n"}`);
      }
      return undefined;
    } catch (err) {
      return fail(err instanceof ToolCallError ? err : new ToolCallError("tool_error", err instanceof Error ? err.message : String(err)));
    }
  };
}
