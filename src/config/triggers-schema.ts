/**
 * `triggers`: saved scripts run on a schedule or from a webhook, as the config writes them and
 * as the HTTP API's body gives one (docs/sessions.md → Triggers). Part of the config's one schema
 * (schema.ts).
 */
import { Cron } from "croner";
import * as z from "zod";
import { strictObject } from "./messages.js";

const TRIGGER_NAME_RULE = 'expected 1-64 letters, digits, ".", "_" or "-"';
const CRON_RULE = 'expected a cron expression such as "0 3 * * *"';
const SCRIPT_RULE = "expected the name of a saved script";

/** One trigger (config entry or HTTP API body): a saved script run on a schedule or from a webhook. */
export const triggerSchema = strictObject({
  name: z.string({ error: TRIGGER_NAME_RULE }).regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, { error: TRIGGER_NAME_RULE }),
  agent_id: z.string({ error: "expected an agent id" }).min(1, { error: "expected an agent id" }).optional(),
  kind: z.enum(["schedule", "webhook"]).optional().describe("Default: schedule with `schedule`, webhook with `webhook: true`."),
  schedule: z.string({ error: CRON_RULE }).optional().describe('A cron expression such as "0 3 * * *".'),
  cron: z.string({ error: CRON_RULE }).optional().describe("Another spelling of `schedule`."),
  timezone: z.string({ error: 'expected an IANA time zone such as "Europe/Berlin"' }).optional().describe("An IANA time zone; default UTC."),
  webhook: z.boolean().optional(),
  // The name goes into the run's command line: only a plain script name is accepted.
  script: z
    .string({ error: SCRIPT_RULE })
    .min(1, { error: SCRIPT_RULE })
    .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, { error: (iss) => `${JSON.stringify(iss.input)} is not a script name (letters, digits, - and _)` })
    .describe("The saved script to run."),
  input: z
    .record(z.string(), z.unknown(), { error: (iss) => (iss.code === "invalid_type" ? 'expected an object (strings may be templates such as "{{payload.ref}}")' : undefined) })
    .default({}),
  enabled: z.boolean().default(true),
  wake_agent_on_failure: z.boolean().default(false),
  webhook_wait: z.boolean().optional().describe("Webhook triggers only: a caller holding just the webhook secret may read the run with `?wait=true` (default false)."),
}).transform((t, ctx) => {
  const fail = (message: string, path: string[] = []) => {
    ctx.addIssue({ code: "custom", message, path, input: t });
    return z.NEVER;
  };
  const cron = t.schedule ?? t.cron;
  const kind = t.kind ?? (t.webhook === true ? "webhook" : cron !== undefined ? "schedule" : undefined);
  if (kind === undefined) return fail('say "schedule": "<cron>" or "webhook": true (or "kind")');
  const timezone = t.timezone ?? "UTC";
  if (kind === "schedule") {
    if (cron === undefined || !cron.trim()) return fail(CRON_RULE, ["schedule"]);
    try {
      const job = new Cron(cron, { timezone, paused: true });
      // An unknown time zone is refused only when a run time is computed.
      job.nextRun();
      job.stop();
    } catch (err) {
      return fail((err as Error).message, ["schedule"]);
    }
  } else if (cron !== undefined) return fail("a webhook trigger has no schedule");
  if (t.webhook_wait === true && kind !== "webhook") return fail("only a webhook trigger has webhook callers", ["webhook_wait"]);
  return {
    name: t.name,
    ...(t.agent_id !== undefined ? { agent_id: t.agent_id } : {}),
    kind,
    ...(kind === "schedule" ? { cron: cron!.trim(), timezone } : {}),
    script: t.script.toLowerCase().replace(/_/g, "-"),
    input: t.input,
    enabled: t.enabled,
    wake_agent_on_failure: t.wake_agent_on_failure,
    ...(t.webhook_wait === true ? { webhook_wait: true as const } : {}),
  };
});

/** `triggers`: config triggers, names unique per agent. */
export const triggersSchema = z
  .array(triggerSchema, { error: "expected an array" })
  .superRefine((list, ctx) => {
    const seen = new Set<string>();
    for (const t of list) {
      const key = `${t.agent_id ?? ""}/${t.name}`;
      if (seen.has(key)) ctx.addIssue({ code: "custom", message: `two triggers are named ${t.name}`, input: list });
      seen.add(key);
    }
  })
  .default([])
  .describe("Run saved scripts on a schedule or from a webhook (docs/sessions.md).");
