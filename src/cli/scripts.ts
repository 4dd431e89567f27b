/**
 * `toolshell scripts …`: an agent's saved scripts from the command line, over the store beside
 * the config (the same records as `tools scripts` and `/v1/agents/{agent_id}/scripts`).
 *
 *   toolshell scripts list [--archived]              the agent's scripts (table, or --json)
 *   toolshell scripts show NAME [VERSION]            one version: description, schema, body
 *   toolshell scripts save NAME --description TEXT [--input-schema JSON] [--file F]   body from F or stdin
 *   toolshell scripts versions NAME                  every version
 *   toolshell scripts diff NAME [FROM [TO]]          unified diff of two versions (default: the last two)
 *   toolshell scripts archive NAME | restore NAME    hide it from the catalog, or bring it back
 *   toolshell scripts run NAME [k=v … | '{…}' | -]   run it as one shell call (`tools scripts NAME …`)
 *
 * Saving uses the checks of `tools scripts save` and the HTTP API (`checkScriptInput`). Like the
 * HTTP API, it is the operator's door: the config's `manageScripts` (which governs saving from
 * inside the shell) does not apply here.
 *
 * See docs/sessions.md → Commands.
 */
import { readFileSync } from "node:fs";
import type { Command } from "commander";
import type { ScriptRecord, Store } from "../store/index.js";
import type { CommonOptions } from "./commands.js";
import { fail, jsonObject, print, readStdin, recordCliChange, table, when, withStore, type ManageOptions } from "./manage.js";
import { CliError } from "./cli-error.js";

/** The script of `agent` named (or with id) `key`, current or at `version`. @throws CliError `not_found`. */
async function scriptOf(store: Store, agent: string, key: string, version?: number): Promise<ScriptRecord> {
  const { scriptName } = await import("../scripts/index.js");
  const s = await store.getScript(agent, key, { version }) ?? await store.getScript(agent, scriptName(key), { version });
  if (!s) throw new CliError("not_found", `no script ${key}${version ? ` version ${version}` : ""} for agent ${agent}`);
  return s;
}

function versionNumber(v: string | undefined, what: string): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new CliError("invalid_input", `${what} takes a version number (1, 2, …), got ${JSON.stringify(v)}`);
  return n;
}

/** One version as people read it; `diff` compares the same text without the first line. */
export function renderScript(s: Pick<ScriptRecord, "name" | "version" | "description" | "input_schema" | "body" | "archived">, heading = true): string {
  return [
    ...(heading ? [`# ${s.name} v${s.version}${s.archived ? " (archived)" : ""}`] : []),
    `# description: ${s.description}`,
    `# input schema: ${JSON.stringify(s.input_schema)}`,
    s.body.endsWith("\n") ? s.body : s.body + "\n",
  ].join("\n");
}

/** Single-quotes a word for bash. */
function quote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

type Opts = ManageOptions & Record<string, unknown>;

/**
 * Registers `toolshell scripts …` on the program. Each action loads what it needs when it runs.
 * `common()` gives the program's shared options (--config, --store, --session, …).
 */
export function registerScriptsCommands(program: Command, common: () => CommonOptions): void {
  const scripts = program.command("scripts").description("saved scripts of an agent: list, show, save, versions, diff, archive, restore, run");
  const agent = (c: Command) => c.option("--agent <id>", "the agent whose scripts these are (default: default)").option("--json", "print JSON (the HTTP API's shapes) instead of tables");

  agent(scripts.command("list"))
    .description("list the agent's saved scripts")
    .option("--archived", "archived ones too")
    .action((o: Opts) =>
      withStore(common(), o, async (store, a) => {
        const list = await store.listScripts(a, { includeArchived: o.archived === true });
        await print(o, { scripts: list }, () =>
          list.length
            ? table(["NAME", "VERSION", "STATUS", "UPDATED", "DESCRIPTION"], list.map((s) => [s.name, `v${s.version}`, s.archived ? "archived" : "active", when(s.updated_at), s.description]))
            : `No saved scripts for agent ${a}${o.archived ? "" : " (--archived lists archived ones)"}.\n`,
        );
      }),
    );

  agent(scripts.command("show"))
    .description("print one script: description, input schema and body")
    .argument("<name>", "script name or id")
    .argument("[version]", "that version's number (default: the current one)")
    .action((name: string, version: string | undefined, o: Opts) =>
      withStore(common(), o, async (store, a) => {
        const s = await scriptOf(store, a, name, versionNumber(version, "VERSION"));
        await print(o, s, () => renderScript(s));
      }),
    );

  agent(scripts.command("save"))
    .description("save a script, or a new version of one; the body comes from --file or stdin")
    .argument("<name>", "script name (letters, digits, - and _)")
    .option("--description <text>", "what it does (tools --help and tools search show it)")
    .option("--input-schema <json>", "JSON Schema of its input (an object schema)")
    .option("--file <file>", "read the body from this file (- or none: stdin)")
    .action(async (name: string, o: Opts) => {
      let body: string;
      try {
        const file = o.file as string | undefined;
        if (file === undefined && process.stdin.isTTY) throw new CliError("invalid_input", "give the body with --file FILE or on stdin (cat body.sh | toolshell scripts save NAME --description '…')");
        try {
          body = file === undefined || file === "-" ? await readStdin() : readFileSync(file, "utf8");
        } catch (err) {
          throw new CliError("invalid_input", `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
        }
      } catch (err) {
        process.exitCode = await fail(o, err);
        return;
      }
      await withStore(common(), { ...o, create: true }, async (store, a) => {
        const { checkScriptInput, hasFields, noFieldsNote } = await import("../scripts/index.js");
        const schema = o.inputSchema === undefined ? undefined : jsonObject(o.inputSchema as string, "--input-schema");
        const checked = checkScriptInput({ name, description: o.description, input_schema: schema, body });
        const before = await store.getScript(a, checked.name);
        const saved = await store.saveScript(a, { ...checked, created_by: "cli" });
        await recordCliChange(store, "scripts save", `script ${saved.name} saved as v${saved.version} (agent ${a})`);
        const kept = before && !checked.input_schema && hasFields(saved.input_schema) ? `; input schema kept from v${before.version}: ${JSON.stringify(saved.input_schema)}` : "";
        const note = noFieldsNote(saved.input_schema);
        await print(o, saved, () => `Saved ${saved.name} v${saved.version}${before ? ` (was v${before.version}${kept})` : ""} for agent ${a}. Run it: tools scripts ${saved.name}\n${note ? `Note: ${note}\n` : ""}`);
      });
    });

  agent(scripts.command("versions"))
    .description("list every version of a script")
    .argument("<name>", "script name or id")
    .action((name: string, o: Opts) =>
      withStore(common(), o, async (store, a) => {
        const s = await scriptOf(store, a, name);
        const versions = await store.scriptVersions(a, s.id);
        await print(o, { versions }, () => table(["VERSION", "SAVED", "BY", "DESCRIPTION"], versions.map((v) => [`v${v.version}`, when(v.created_at), v.created_by, v.description])));
      }),
    );

  agent(scripts.command("diff"))
    .description("unified diff of two versions (default: the one before the current, and the current)")
    .argument("<name>", "script name or id")
    .argument("[from]", "the older version number")
    .argument("[to]", "the newer version number (default: the current one)")
    .action((name: string, from: string | undefined, to: string | undefined, o: Opts) =>
      withStore(common(), o, async (store, a) => {
        const cur = await scriptOf(store, a, name);
        const toV = versionNumber(to, "TO") ?? cur.version;
        const fromV = versionNumber(from, "FROM") ?? toV - 1;
        if (fromV < 1) throw new CliError("invalid_input", `${cur.name} has only version ${toV}: nothing to compare it with`);
        const [x, y] = [await scriptOf(store, a, cur.id, fromV), await scriptOf(store, a, cur.id, toV)];
        const { createTwoFilesPatch } = await import("diff");
        const patch = createTwoFilesPatch(`${cur.name} v${fromV}`, `${cur.name} v${toV}`, renderScript(x, false), renderScript(y, false));
        // Drop the "Index:"/"===" preamble: the --- / +++ lines name both sides.
        const text = patch.replace(/^(Index: .*\n)?=+\n/, "");
        await print(o, { name: cur.name, from: fromV, to: toV, same: x.body === y.body && x.description === y.description && JSON.stringify(x.input_schema) === JSON.stringify(y.input_schema), diff: text }, () => text);
      }),
    );

  for (const [verb, archived] of [["archive", true], ["restore", false]] as const) {
    agent(scripts.command(verb))
      .description(archived ? "archive a script: it leaves the catalog, its versions are kept" : "bring an archived script back into the catalog")
      .argument("<name>", "script name or id")
      .action((name: string, o: Opts) =>
        withStore(common(), o, async (store, a) => {
          const s = await scriptOf(store, a, name);
          const after = (await store.setScriptArchived(a, s.id, archived))!;
          await recordCliChange(store, `scripts ${verb}`, `script ${after.name} ${archived ? "archived" : "restored"} (agent ${a})`);
          await print(o, after, () => `${after.name} v${after.version} is ${archived ? "archived" : "active again"}.\n`);
        }),
      );
  }

  agent(scripts.command("run"))
    .description("run a saved script as one shell call (tools scripts NAME …) in --session (default cli, or cli:AGENT)")
    .argument("<name>", "script name")
    .argument("[input...]", "k=v pairs, one JSON object, or - to read the input JSON from stdin")
    .action(async (name: string, input: string[], o: Opts) => {
      try {
        const { runScriptCall } = await import("./run.js");
        let args = input;
        if (input.length === 1 && input[0] === "-") args = [JSON.stringify(jsonObject(await readStdin(), "the input on stdin"))];
        const { scriptName } = await import("../scripts/index.js");
        const agentName = o.agent;
        process.exitCode = await runScriptCall(common(), o, `tools scripts ${scriptName(name)}${args.map((w) => " " + quote(w)).join("")}\n`, agentName);
      } catch (err) {
        process.exitCode = await fail(o, err);
      }
    });
}
