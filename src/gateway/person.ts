/**
 * The person behind a gateway call, as the gateway's MCP client reaches them: each nested call's
 * start, progress and end as `notifications/progress` (when the client's request carried a
 * `progressToken`), and an upstream server's question as `elicitation/create` to the client
 * (when it declared form elicitation).
 *
 * See docs/mcp.md → Progress, Elicitation relay; MCP spec 2025-11-25 "Utilities" → Progress (the
 * value MUST increase with each notification; `message` optional).
 */
import type { ServerContext } from "@modelcontextprotocol/server";
import { describeQuestion, progressLine, showSchema, type Person } from "../call/index.js";


/** The progress notifications of each call still being sent, in order. */
const notifying = new WeakMap<ServerContext, Promise<void>>();

/** Resolves once every progress notification of the call `ctx` has been handed to the transport. */
export function progressSent(ctx: ServerContext): Promise<void> {
  return notifying.get(ctx) ?? Promise.resolve();
}

/** Longest question a person is asked through the gateway (longer ones are cut, and say so). */
const MAX_MESSAGE_CHARS = 4000;

/**
 * The person of one `tools/call` of the gateway. `progress` sends a notification per report
 * (the progress value counts the reports, so it always grows); without a token it is absent.
 * `ask` is present when `canElicit()`; the client's answer is checked against the schema by the
 * caller (call/person.ts).
 */
export function gatewayPerson(ctx: ServerContext, canElicit: boolean): Person {
  const token = ctx.mcpReq._meta?.progressToken;
  let sent = 0;
  const person: Person = {};
  if (token !== undefined) {
    person.progress = (report) => {
      sent++;
      const params = { progressToken: token, progress: sent, message: progressLine(report) };
      // One after another, and all sent before the call's answer ({@link progressSent}): a
      // notification that reaches the client after the answer is dropped there.
      const before = notifying.get(ctx) ?? Promise.resolve();
      notifying.set(ctx, before.then(() => ctx.mcpReq.notify({ method: "notifications/progress", params })).catch(() => {}));
    };
  }
  if (canElicit) {
    person.ask = async (question, signal) => {
      const shown = describeQuestion(question);
      // The client draws the form from the schema: its titles and descriptions escaped too.
      const form = showSchema(question.requestedSchema);
      let message = [shown.text, ...[...shown.warnings, ...form.warnings].map((w) => `⚠ ${w}`)].join("\n");
      if (message.length > MAX_MESSAGE_CHARS) message = `${message.slice(0, MAX_MESSAGE_CHARS)}… (cut by toolshell)`;
      const result = await ctx.mcpReq.send({ method: "elicitation/create", params: { message, requestedSchema: form.schema as never } }, { signal: AbortSignal.any([signal, ctx.mcpReq.signal]), timeout: 600_000 });
      return result.action === "accept" ? { action: "accept", content: (result.content ?? {}) as Record<string, unknown> } : { action: result.action };
    };
  }
  return person;
}
