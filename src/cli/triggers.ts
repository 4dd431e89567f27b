/**
 * `toolshell triggers …`: an agent's triggers from the command line, over the store beside the
 * config (the same records as `/v1/agents/{agent_id}/triggers`).
 *
 *   toolshell triggers list                           the agent's triggers (table, or --json)
 *   toolshell triggers show NAME|ID                   one trigger
 *   toolshell triggers create NAME --script S (--schedule CRON [--timezone TZ] | --webhook)
 *                             [--input JSON] [--disabled] [--wake-agent-on-failure]
 *   toolshell triggers update NAME|ID [--schedule CRON] [--timezone TZ] [--script S] [--input JSON]
 *                             [--enable | --disable] [--wake-agent-on-failure true|false]
 *   toolshell triggers delete NAME|ID
 *   toolshell triggers run NAME|ID [--payload JSON]   run it now (reason `manual`) and wait
 *   toolshell triggers runs NAME|ID [--limit N]       its runs, newest first
 *
 * Specs are checked by `parseTriggerSpec` and changes merged by `patchTriggerSpec`, as in the
 * HTTP API. A running `toolshell serve` on the same store sees deletions and disabling at the
 * next time a schedule fires; a new or rescheduled schedule starts there at its next start.
 *
 * See docs/sessions.md → Commands, Triggers.
 */
import type { Command } from "commander";
import type { TriggerRecord, TriggerRunRecord } from "../store/index.js";
import { runFailureText, runInterruptedText } from "../display/run-failure.js";
import { waitedText } from "../display/run-waits.js";
import type { CommonOptions } from "./commands.js";
import { fail, jsonObject, print, recordCliChange, table, when, withStore, type ManageOptions } from "./manage.js";
import { CliError } from "./cli-error.js";

type Opts = ManageOptions & Record<string, unknown>;

function describe(t: Omit<TriggerRecord, "secret_hash">): string {
  const rows: Array<[string, string | undefined]> = [
    ["id", t.id],
    ["agent", t.agent_id],
    ["kind", t.kind],
    ["schedule", t.kind === "schedule" ? `${t.cron} (${t.timezone ?? "UTC"})` : undefined],
    ["webhook", t.kind === "webhook" ? `POST /v1/webhooks/${t.id}` : undefined],
    ["script", t.script],
    ["input", JSON.stringify(t.input)],
    ["enabled", t.enabled ? "yes" : "no"],
    ["wake agent on failure", t.wake_agent_on_failure ? "yes" : "no"],
    ["last run", when(t.last_run_at)],
    ["next run", t.kind === "schedule" ? when(t.next_run_at) : undefined],
    ["from", t.origin],
    ["acts for", t.principal ?? `agent ${t.agent_id}`],
  ];
  return `${t.name}\n` + rows.filter(([, v]) => v !== undefined).map(([k, v]) => `  ${(k + ":").padEnd(23)}${v}`).join("\n") + "\n";
}

function runRow(r: TriggerRunRecord): string[] {
  const ms = r.ended_at ? Date.parse(r.ended_at) - Date.parse(r.started_at) : undefined;
  const waits = r.approvals?.length ? `waited for ${r.approvals.length} approval${r.approvals.length > 1 ? "s" : ""}` : "";
  const note = r.skipped?.reason ?? (r.status === "stopped" && r.request_id ? `needs approval: ${r.request_id}` : runFailureText(r));
  return [r.id, when(r.started_at), r.reason, r.status, ms === undefined ? "-" : `${ms} ms`, [note || waits, runInterruptedText(r)].filter(Boolean).join("; ")];
}

/** The approvals runs waited for, and why a skipped run did not start, one line each below the table (the table cuts long notes). */
function waitLines(runs: TriggerRunRecord[]): string {
  const lines = runs.flatMap((r) => [...(r.approvals ?? []).map((a) => `${r.id}: ${waitedText(a)}\n`), ...(r.skipped ? [`${r.id}: did not start: ${r.skipped.reason}\n`] : [])]);
  return lines.length ? `\n${lines.join("")}` : "";
}

/** CLI options as the fields of an API body (only those given). */
function fields(o: Opts): Record<string, unknown> {
  const b: Record<string, unknown> = {};
  if (o.schedule !== undefined) b.schedule = o.schedule;
  if (o.timezone !== undefined) b.timezone = o.timezone;
  if (o.webhook) b.webhook = true;
  if (o.script !== undefined) b.script = o.script;
  if (o.input !== undefined) b.input = jsonObject(o.input as string, "--input");
  if (o.enable) b.enabled = true;
  if (o.disable || o.disabled) b.enabled = false;
  if (o.wakeAgentOnFailure !== undefined) {
    const v = o.wakeAgentOnFailure;
    if (v !== true && v !== "true" && v !== "false") throw new CliError("invalid_input", `--wake-agent-on-failure takes true or false, got ${JSON.stringify(v)}`);
    b.wake_agent_on_failure = v === true || v === "true";
  }
  return b;
}

async function triggerOf(store: import("../store/index.js").Store, agent: string, key: string): Promise<TriggerRecord> {
  const { findAgentTrigger } = await import("../server/triggers.js");
  const t = await findAgentTrigger(store, agent, key);
  if (!t) throw new CliError("not_found", `no trigger ${key} for agent ${agent}`);
  return t;
}

/** `parseTriggerSpec`'s errors are bad input. */
function checked<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw new CliError("invalid_input", (err as Error).message);
  }
}

/**
 * Registers `toolshell triggers …` on the program. Each action loads what it needs when it runs.
 * `common()` gives the program's shared options (--config, --store, …).
 */
export function registerTriggersCommands(program: Command, common: () => CommonOptions): void {
  const triggers = program.command("triggers").description("schedules and webhooks that run a saved script: list, show, create, update, delete, run, runs");
  const agent = (c: Command) => c.option("--agent <id>", "the agent whose triggers these are (default: default)").option("--json", "print JSON (the HTTP API's shapes) instead of tables");

  agent(triggers.command("list"))
    .description("list the agent's triggers")
    .action((o: Opts) =>
      withStore(common(), o, async (store, a) => {
        const { publicTrigger } = await import("../server/triggers.js");
        const list = (await store.listTriggers({ agentId: a })).map(publicTrigger);
        await print(o, { triggers: list }, () =>
          list.length
            ? table(["NAME", "KIND", "SCHEDULE", "SCRIPT", "ENABLED", "LAST RUN", "NEXT RUN"], list.map((t) => [t.name, t.kind, t.kind === "schedule" ? `${t.cron} ${t.timezone ?? "UTC"}` : "-", t.script, t.enabled ? "yes" : "no", when(t.last_run_at), t.kind === "schedule" ? when(t.next_run_at) : "-"]))
            : `No triggers for agent ${a}.\n`,
        );
      }),
    );

  agent(triggers.command("show"))
    .description("print one trigger")
    .argument("<trigger>", "trigger name or id")
    .action((key: string, o: Opts) =>
      withStore(common(), o, async (store, a) => {
        const { publicTrigger } = await import("../server/triggers.js");
        const t = publicTrigger(await triggerOf(store, a, key));
        await print(o, t, () => describe(t));
      }),
    );

  agent(triggers.command("create"))
    .description("create a schedule (--schedule CRON) or webhook (--webhook) trigger that runs a saved script")
    .argument("<name>", "trigger name (letters, digits, ., _ and -)")
    .requiredOption("--script <name>", "the saved script it runs")
    .option("--schedule <cron>", "cron expression (5 or 6 fields), e.g. '0 3 * * *'")
    .option("--timezone <tz>", "IANA time zone of the schedule (default UTC)")
    .option("--webhook", "a webhook trigger: POST /v1/webhooks/ID with its secret runs it")
    .option("--input <json>", "the script's input; strings may be templates such as {{payload.ref}}")
    .option("--disabled", "create it disabled")
    .option("--wake-agent-on-failure", "call the configured wake-agent callback when a run fails or stops")
    .action((name: string, o: Opts) =>
      withStore(common(), { ...o, create: true }, async (store, a) => {
        const { parseTriggerSpec } = await import("../config/index.js");
        const { publicTrigger, TriggerService } = await import("../server/triggers.js");
        const spec = checked(() => parseTriggerSpec({ name, ...fields(o) }, "trigger"));
        if (await store.findTrigger(a, spec.name)) throw new CliError("conflict", `a trigger named ${spec.name} exists for agent ${a} (toolshell triggers update changes it)`);
        const service = new TriggerService({ store });
        const { trigger, secret } = await service.create(a, spec, { origin: "cli" });
        const missing = await service.scriptWarning(trigger);
        if (missing) process.stderr.write(`toolshell: note: ${missing}\n`);
        await recordCliChange(store, "triggers create", `trigger ${trigger.name} created (agent ${a})`);
        const shown = { ...publicTrigger(trigger), ...(secret ? { secret, webhook_url: `/v1/webhooks/${trigger.id}` } : {}) };
        const when = trigger.next_run_at ? ` Next run ${trigger.next_run_at}.` : trigger.enabled ? "" : " It is disabled: it runs when enabled.";
        // Running hosts on this store read the change within about a second (docs/deployment.md).
        await print(o, shown, () => `Created trigger ${trigger.name} (${trigger.id}).${when} Running hosts of this store schedule it within a few seconds.\n` + (secret ? `Webhook: POST /v1/webhooks/${trigger.id} with Authorization: Bearer ${secret}\nThe secret is shown only now.\n` : ""));
      }),
    );

  agent(triggers.command("update"))
    .description("change some fields of a trigger")
    .argument("<trigger>", "trigger name or id")
    .option("--schedule <cron>", "new cron expression")
    .option("--timezone <tz>", "new IANA time zone")
    .option("--script <name>", "run another saved script")
    .option("--input <json>", "new input (replaces the old one)")
    .option("--enable", "enable it")
    .option("--disable", "disable it")
    .option("--wake-agent-on-failure <bool>", "true or false")
    .action((key: string, o: Opts) =>
      withStore(common(), o, async (store, a) => {
        if (o.enable && o.disable) throw new CliError("invalid_input", "--enable and --disable contradict each other");
        const patch = fields(o);
        if (!Object.keys(patch).length) throw new CliError("invalid_input", "nothing to change: give --schedule, --timezone, --script, --input, --enable, --disable or --wake-agent-on-failure");
        const { patchTriggerSpec, publicTrigger, TriggerService } = await import("../server/triggers.js");
        const cur = await triggerOf(store, a, key);
        const spec = checked(() => patchTriggerSpec(cur, patch));
        const service = new TriggerService({ store });
        const record = (await service.update(cur.id, spec))!;
        const missing = await service.scriptWarning(record);
        if (missing) process.stderr.write(`toolshell: note: ${missing}\n`);
        const updated = publicTrigger(record);
        await recordCliChange(store, "triggers update", `trigger ${updated.name} changed (agent ${a})`);
        await print(o, updated, () => `Updated trigger ${updated.name}.\n` + describe(updated));
      }),
    );

  agent(triggers.command("delete"))
    .description("delete a trigger (its runs stay in the store)")
    .argument("<trigger>", "trigger name or id")
    .action((key: string, o: Opts) =>
      withStore(common(), o, async (store, a) => {
        const { TriggerService } = await import("../server/triggers.js");
        const t = await triggerOf(store, a, key);
        await new TriggerService({ store }).delete(t.id);
        await recordCliChange(store, "triggers delete", `trigger ${t.name} deleted (agent ${a})`);
        await print(o, { deleted: t.id }, () => `Deleted trigger ${t.name} (${t.id}).\n`);
      }),
    );

  agent(triggers.command("run"))
    .description("run a trigger now (reason manual) and print the run; exit 0 ok, 1 failed, 3 stopped for approval")
    .argument("<trigger>", "trigger name or id")
    .option("--payload <json>", "the payload its input templates are filled from (default {})")
    .action(async (key: string, o: Opts) => {
      try {
        const { agentId } = await import("./manage.js");
        const a = await agentId(o);
        const payload = o.payload === undefined ? {} : jsonObject(o.payload as string, "--payload");
        const { withHost, exitCodeOf } = await import("./run.js");
        process.exitCode = await withHost(common(), o, async (host) => {
          const t = await triggerOf(host.store, a, key);
          const run = await host.triggers.run(t.id, "manual", payload);
          const result = run.result as import("../runtime/index.js").ShellResult | undefined;
          await print(o, run, () => table(["RUN", "STARTED", "REASON", "STATUS", "TOOK", "NOTE"], [runRow(run)]) + (result?.stdout ? `\n${result.stdout}` : "") + (result?.stderr ? `\n${result.stderr}` : ""));
          return run.status === "ok" ? 0 : result ? exitCodeOf(result) || 1 : 1;
        });
      } catch (err) {
        process.exitCode = await fail(o, err);
      }
    });

  agent(triggers.command("runs"))
    .description("list a trigger's runs, newest first")
    .argument("<trigger>", "trigger name or id")
    .option("--limit <n>", "how many (default 20)")
    .action((key: string, o: Opts) =>
      withStore(common(), o, async (store, a) => {
        const limit = o.limit === undefined ? 20 : Number(o.limit);
        if (!Number.isInteger(limit) || limit < 1) throw new CliError("invalid_input", `--limit takes a whole number ≥ 1, got ${JSON.stringify(o.limit)}`);
        const t = await triggerOf(store, a, key);
        const runs = await store.listTriggerRuns(t.id, { limit });
        await print(o, { runs }, () => (runs.length ? table(["RUN", "STARTED", "REASON", "STATUS", "TOOK", "NOTE"], runs.map(runRow)) + waitLines(runs) : `No runs of ${t.name} yet.\n`));
      }),
    );
}

