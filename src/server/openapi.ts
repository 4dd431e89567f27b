/**
 * The OpenAPI 3.1 document of the HTTP API, served at `/openapi.json`. Written by hand next to
 * the routes in app.ts; the server tests check that every route answers as documented.
 *
 * See docs/sessions.md → HTTP API.
 */

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: unknown, description = "OK") => ({ description, content: { "application/json": { schema } } });
const err = (description: string) => json(ref("Error"), description);
const pathParam = (name: string, description: string) => ({ name, in: "path", required: true, schema: { type: "string" }, description });
const query = (name: string, schema: unknown, description: string) => ({ name, in: "query", required: false, schema, description });
const body = (schema: unknown) => ({ required: true, content: { "application/json": { schema } } });
const common = { "400": err("Bad request"), "401": err("Missing or wrong bearer token"), "413": err("Body too large"), "429": err("Too many wrong tokens from this address: wait for Retry-After") };
const agent = pathParam("agent_id", "The agent (scripts and triggers are per agent).");

/** The document (a fresh object each call). */
export function openApiDocument(): Record<string, unknown> {
  return {
    openapi: "3.1.0",
    info: {
      title: "toolshell",
      version: "1",
      description:
        "Sessions that run bash scripts over an agent's tools, their events, approvals, saved scripts and triggers. " +
        "Every /v1 route needs Authorization: Bearer <token> except POST /v1/webhooks/{trigger_id}, which takes the trigger's secret. " +
        'Errors are {"error":{"code","message"}}.',
    },
    security: [{ bearer: [] }],
    paths: {
      "/healthz": { get: { security: [], summary: "Liveness", responses: { "200": json({ type: "object", properties: { ok: { type: "boolean" } } }) } } },
      "/openapi.json": { get: { security: [], summary: "This document", responses: { "200": json({ type: "object" }) } } },
      "/readyz": { get: { security: [], summary: "Readiness: not stopping, and the store answers within 2 s", responses: { "200": json({ type: "object", properties: { ok: { type: "boolean" } } }), "503": json({ type: "object", properties: { ok: { type: "boolean" }, stopping: { type: "boolean" }, store: { type: "string" } } }, "Stopping, or the store did not answer") } } },
      "/metrics": { get: { summary: "This replica's metrics in Prometheus's text format (an operator token)", responses: { "200": { description: "OK", content: { "text/plain": { schema: { type: "string" } } } }, ...common } } },
      "/v1/sessions": {
        post: {
          summary: "Create a session",
          requestBody: body({ type: "object", properties: { id: { type: "string" }, agent_id: { type: "string", default: "default" }, metadata: { type: "object" } } }),
          responses: { "201": json(ref("Session"), "Created"), "409": err("A session with this id exists"), ...common },
        },
        get: { summary: "List sessions, last active first", parameters: [query("agent_id", { type: "string" }, "Only this agent's"), query("limit", { type: "integer" }, "At most this many (≤ 1000)")], responses: { "200": json({ type: "object", properties: { sessions: { type: "array", items: ref("Session") } } }), ...common } },
      },
      "/v1/sessions/{id}": {
        get: { summary: "One session", parameters: [pathParam("id", "Session id")], responses: { "200": json(ref("Session")), "404": err("No such session"), ...common } },
      },
      "/v1/sessions/{id}/bash": {
        post: {
          summary: "Run a script as one shell call",
          description: "With step_id the call is a durable step: asked again, a completed step returns its recorded result without running; an interrupted one runs again. Shell calls of one session run one after another.",
          parameters: [pathParam("id", "Session id")],
          requestBody: body({ type: "object", required: ["script"], properties: { script: { type: "string" }, stdin: { type: "string" }, step_id: { type: "string" }, timeout_ms: { type: "integer", minimum: 100 } } }),
          responses: { "200": json(ref("ShellResult")), "404": err("No such session"), ...common },
        },
      },
      "/v1/sessions/{id}/events": {
        get: {
          summary: "The session's events in order, as one page or pushed as they are written",
          description:
            "With Accept: text/event-stream the answer is a server-sent event stream: each event is one message whose id is its seq and whose data is the event as JSON. " +
            "It starts after Last-Event-ID (sent by an EventSource when it reconnects) or after, sends what is stored, then each new event as it is written — on any replica of the store (another replica's within about two seconds). " +
            "A comment line every 20 s keeps it open until the client goes away.",
          parameters: [
            pathParam("id", "Session id"),
            query("after", { type: "integer" }, "Only events with seq greater than this"),
            query("limit", { type: "integer" }, "At most this many (≤ 10000); not for the stream"),
            { name: "Last-Event-ID", in: "header", required: false, schema: { type: "integer" }, description: "The stream starts after this seq (over after)" },
          ],
          responses: {
            "200": {
              description: "OK",
              content: {
                "application/json": { schema: { type: "object", properties: { events: { type: "array", items: ref("Event") }, next_after: { type: "integer" } } } },
                "text/event-stream": { schema: { type: "string", description: "id: <seq>\ndata: <the event as JSON>\n\n, one per event" } },
              },
            },
            "403": err("The token's principal is not the session's"),
            "404": err("No such session"),
            ...common,
          },
        },
      },
      "/v1/sessions/{id}/steps": {
        get: { summary: "The session's durable steps", parameters: [pathParam("id", "Session id")], responses: { "200": json({ type: "object", properties: { steps: { type: "array", items: { type: "object" } } } }), "404": err("No such session"), ...common } },
      },
      "/v1/sessions/{id}/tool-approvals": {
        get: { summary: "Pending approval requests", parameters: [pathParam("id", "Session id")], responses: { "200": json({ type: "object", properties: { pending: { type: "array", items: ref("ApprovalRequest") } } }), "404": err("No such session"), ...common } },
        post: {
          summary: "Answer approval requests",
          description: "tool_call_id is the stopped call's id (or the request id). All decisions are checked before any is applied. After allow, run a script again: a stopped script is never resumed.",
          parameters: [pathParam("id", "Session id")],
          requestBody: body({ type: "object", required: ["decisions"], properties: { decisions: { type: "array", items: { type: "object", required: ["tool_call_id", "decision"], properties: { tool_call_id: { type: "string" }, decision: { enum: ["allow", "allow_always", "reject", "reject_always"] } } } } } }),
          responses: { "200": json({ type: "object", properties: { results: { type: "array", items: { type: "object" } }, pending: { type: "array", items: ref("ApprovalRequest") } } }), "404": err("No such session or no such pending request"), ...common },
        },
      },
      "/v1/approvals": { get: { summary: "Pending approval requests of every session", parameters: [query("agent_id", { type: "string" }, "Only this agent's sessions")], responses: { "200": json({ type: "object", properties: { pending: { type: "array", items: ref("ApprovalRequest") } } }), ...common } } },
      "/v1/questions": { get: { summary: "Questions MCP servers asked during HTTP API shell calls, waiting for a person (every session's for an operator token; an agent token's own principal's)", responses: { "200": json({ type: "object", properties: { pending: { type: "array", items: ref("PendingQuestion") } } }), ...common } } },
      "/v1/sessions/{id}/questions": {
        get: { summary: "This session's questions waiting for a person", parameters: [pathParam("id", "Session id")], responses: { "200": json({ type: "object", properties: { pending: { type: "array", items: ref("PendingQuestion") } } }), "404": err("No such session"), ...common } },
        post: {
          summary: "Answer a question (MCP elicitation, form mode)",
          description: "accept with content matching requested_schema, or decline, or cancel. A content that does not match is refused (400) and the question keeps waiting.",
          parameters: [pathParam("id", "Session id")],
          requestBody: body({ type: "object", required: ["question_id", "action"], properties: { question_id: { type: "string" }, action: { enum: ["accept", "decline", "cancel"] }, content: { type: "object" } } }),
          responses: { "200": json({ type: "object", properties: { answered: { type: "object" }, pending: { type: "array", items: ref("PendingQuestion") } } }), ...common, "400": err("The answer does not match the question's schema"), "404": err("No such session or no such pending question") },
        },
      },
      "/v1/sign-ins": {
        get: {
          summary: "OAuth sign-ins to MCP servers: those waiting for a person (open `url`) and each server's state; never a token",
          parameters: [query("principal", { type: "string" }, "Only this principal's (a session's principal or agent_id)")],
          responses: { "200": json({ type: "object", properties: { pending: { type: "array", items: { type: "object", properties: { server: { type: "string" }, principal: { type: "string" }, url: { type: "string" }, session_id: { type: "string" }, started_at: { type: "string" } } } }, sign_ins: { type: "array", items: { type: "object", properties: { server: { type: "string" }, principal: { type: "string" }, state: { enum: ["signed_in", "expired", "signed_out", "pending"] }, subject: { type: "string" }, expires_at: { type: "string" }, scopes: { type: "array", items: { type: "string" } }, url: { type: "string" } } } } } }), ...common },
        },
      },
      "/v1/servers": {
        get: { summary: "MCP servers with their state (loaded, not_loaded, failed with its message, disabled); changes made here are not written to the config file", responses: { "200": json({ type: "object", properties: { servers: { type: "array", items: ref("ServerListing") } } }), ...common } },
        post: { summary: "Add an MCP server while running (entry checked like a config file `mcpServers` entry)", requestBody: body({ type: "object", required: ["name", "entry"], properties: { name: { type: "string" }, entry: { type: "object" } } }), responses: { "201": json(ref("ServerListing"), "Added"), "403": err("Not an operator token"), "409": err("A server with this name exists"), ...common } },
      },
      "/v1/replicas": {
        get: { summary: "The replicas on this store from their heartbeats (every 5 s; live when seen within 15 s; forgotten after an hour), oldest first, and `this`, the one that answered", responses: { "200": json({ type: "object", properties: { replicas: { type: "array", items: { type: "object", properties: { id: { type: "string" }, kind: { enum: ["serve", "mcp"] }, url: { type: "string" }, pid: { type: "integer" }, host: { type: "string" }, started_at: { type: "string" }, seen_at: { type: "string" }, live: { type: "boolean" } } } }, this: { type: ["string", "null"] } } }), "403": err("Not an operator token"), ...common } },
      },
      "/v1/servers/{name}": {
        put: { summary: "Replace a server's entry; its old process ends", parameters: [pathParam("name", "The server.")], requestBody: body({ type: "object", required: ["entry"], properties: { entry: { type: "object" } } }), responses: { "200": json(ref("ServerListing")), "403": err("Not an operator token"), "404": err("No such server"), ...common } },
        delete: { summary: "Remove a server; its process ends", parameters: [pathParam("name", "The server.")], responses: { "204": { description: "Removed" }, "403": err("Not an operator token"), "404": err("No such server"), ...common } },
      },
      "/v1/agents/{agent_id}/scripts": {
        get: { summary: "List saved scripts", parameters: [agent, query("include_archived", { type: "boolean" }, "Archived ones too")], responses: { "200": json({ type: "object", properties: { scripts: { type: "array", items: ref("Script") } } }), ...common } },
        post: { summary: "Create a saved script (version 1)", parameters: [agent], requestBody: body(ref("ScriptInput")), responses: { "201": json(ref("Script"), "Created"), "409": err("A script with this name exists"), ...common } },
      },
      "/v1/agents/{agent_id}/scripts/{script_id}": {
        get: { summary: "One saved script (by id or name)", parameters: [agent, pathParam("script_id", "Script id or name"), query("version", { type: "integer" }, "An older version")], responses: { "200": json(ref("Script")), "404": err("No such script"), ...common } },
        put: { summary: "Save a new version (creates the script when missing)", parameters: [agent, pathParam("script_id", "Script id or name")], requestBody: body({ type: "object", required: ["description", "body"], properties: { description: { type: "string" }, input_schema: { type: "object" }, body: { type: "string" }, archived: { type: "boolean" } } }), responses: { "200": json(ref("Script")), "201": json(ref("Script"), "Created"), ...common } },
        patch: { summary: "Change fields (a new version) or archive / unarchive", parameters: [agent, pathParam("script_id", "Script id or name")], requestBody: body({ type: "object", properties: { description: { type: "string" }, input_schema: { type: "object" }, body: { type: "string" }, archived: { type: "boolean" } } }), responses: { "200": json(ref("Script")), "404": err("No such script"), ...common } },
        delete: { summary: "Archive a script (its versions are kept)", parameters: [agent, pathParam("script_id", "Script id or name")], responses: { "200": json(ref("Script")), "404": err("No such script"), ...common } },
      },
      "/v1/agents/{agent_id}/scripts/{script_id}/versions": {
        get: { summary: "Every version of a script", parameters: [agent, pathParam("script_id", "Script id or name")], responses: { "200": json({ type: "object", properties: { versions: { type: "array", items: { type: "object" } } } }), "404": err("No such script"), ...common } },
      },
      "/v1/agents/{agent_id}/triggers": {
        get: { summary: "List triggers", parameters: [agent], responses: { "200": json({ type: "object", properties: { triggers: { type: "array", items: ref("Trigger") } } }), ...common } },
        post: { summary: "Create a trigger (a webhook trigger's secret is in the answer, once)", parameters: [agent], requestBody: body(ref("TriggerInput")), responses: { "201": json(ref("Trigger"), "Created"), "409": err("A trigger with this name exists"), ...common } },
      },
      "/v1/agents/{agent_id}/triggers/{trigger_id}": {
        get: { summary: "One trigger (by id or name)", parameters: [agent, pathParam("trigger_id", "Trigger id or name")], responses: { "200": json(ref("Trigger")), "404": err("No such trigger"), ...common } },
        patch: { summary: "Change a trigger", parameters: [agent, pathParam("trigger_id", "Trigger id or name")], requestBody: body(ref("TriggerInput")), responses: { "200": json(ref("Trigger")), "404": err("No such trigger"), ...common } },
        delete: { summary: "Delete a trigger", parameters: [agent, pathParam("trigger_id", "Trigger id or name")], responses: { "200": json({ type: "object", properties: { deleted: { type: "string" } } }), "404": err("No such trigger"), ...common } },
      },
      "/v1/agents/{agent_id}/triggers/{trigger_id}/run": {
        post: { summary: "Run a trigger now and wait for the run", parameters: [agent, pathParam("trigger_id", "Trigger id or name")], requestBody: { required: false, content: { "application/json": { schema: { type: "object", properties: { payload: {} } } } } }, responses: { "201": json(ref("TriggerRun"), "The finished run"), "404": err("No such trigger"), ...common } },
      },
      "/v1/agents/{agent_id}/triggers/{trigger_id}/runs": {
        get: { summary: "A trigger's runs, newest first", parameters: [agent, pathParam("trigger_id", "Trigger id or name"), query("limit", { type: "integer" }, "At most this many")], responses: { "200": json({ type: "object", properties: { runs: { type: "array", items: ref("TriggerRun") } } }), "404": err("No such trigger"), ...common } },
      },
      "/v1/agents/{agent_id}/triggers/{trigger_id}/runs/{run_id}": {
        get: { summary: "One run", parameters: [agent, pathParam("trigger_id", "Trigger id or name"), pathParam("run_id", "Run id")], responses: { "200": json(ref("TriggerRun")), "404": err("No such run"), ...common } },
      },
      "/v1/webhooks/{trigger_id}": {
        post: {
          security: [{ webhookSecret: [] }, { bearer: [] }],
          summary: "Deliver a webhook: runs the trigger's script with the JSON body as payload",
          parameters: [pathParam("trigger_id", "Trigger id"), query("wait", { type: "boolean" }, "Answer with the finished run instead of 202: with an API token, or when the trigger says webhook_wait")],
          requestBody: { required: false, content: { "application/json": { schema: { type: "object" } } } },
          responses: { "202": json({ type: "object", properties: { run_id: { type: "string" }, trigger_id: { type: "string" }, status: { const: "accepted" } } }, "Accepted"), "200": json(ref("TriggerRun"), "The finished run (wait=true)"), "401": err("Wrong secret"), "403": err("wait=true with the secret alone on a trigger without webhook_wait"), "404": err("No such webhook trigger"), "409": err("Disabled"), "413": err("Body too large"), "429": err("Too many wrong secrets or tokens from this address: wait for Retry-After") },
        },
      },
    },
    components: {
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: "An API token from config server.tokens or TOOLSHELL_API_TOKEN(S)." },
        webhookSecret: { type: "http", scheme: "bearer", description: "The webhook trigger's secret (also accepted as X-Toolshell-Secret)." },
      },
      schemas: {
        Error: { type: "object", required: ["error"], properties: { error: { type: "object", required: ["code", "message"], properties: { code: { type: "string" }, message: { type: "string" } } } } },
        Session: { type: "object", properties: { id: { type: "string" }, agent_id: { type: "string" }, metadata: { type: "object" }, shell_calls: { type: "integer" }, created_at: { type: "string" }, updated_at: { type: "string" }, pending_approvals: { type: "integer" } } },
        ShellResult: {
          type: "object",
          properties: {
            stdout: { type: "string" },
            stderr: { type: "string" },
            exit_code: { type: "integer" },
            success: { type: "boolean" },
            tool_call_id: { type: "string" },
            tools: { type: "object", description: "The stop report: stopped, done, read_only_calls, not_reached, stdout, stderr, files_written" },
          },
        },
        Event: { type: "object", required: ["seq", "type", "session_id", "at"], properties: { seq: { type: "integer" }, type: { type: "string" }, session_id: { type: "string" }, at: { type: "string" } }, additionalProperties: true },
        ServerListing: { type: "object", required: ["name", "type", "load", "state"], properties: { name: { type: "string" }, type: { enum: ["stdio", "http", "sse"] }, load: { enum: ["eager", "on_demand"] }, trust: { type: "boolean", description: "The entry's trust, when written" }, state: { enum: ["loaded", "not_loaded", "failed", "disabled"] }, message: { type: "string", description: "Why it failed (state failed)" }, tools: { type: "integer" } } },
        PendingQuestion: { type: "object", properties: { question_id: { type: "string" }, session_id: { type: "string" }, call_id: { type: "string" }, server: { type: "string" }, command: { type: "string" }, message: { type: "string", description: "As the server sent it; show display.text instead" }, requested_schema: { type: "object" }, asked_at: { type: "string" }, display: { type: "object", properties: { text: { type: "string" }, warnings: { type: "array", items: { type: "string" } } } } } },
        ApprovalRequest: { type: "object", properties: { id: { type: "string" }, session_id: { type: "string" }, tool: { type: "string" }, tool_name: { type: "string" }, input: { type: "object" }, why: { type: "string" }, line: { type: "integer" }, tool_call_id: { type: "string" }, status: { enum: ["pending", "answered"] }, created_at: { type: "string" }, scope: { type: "string" }, scripts: { type: "array", description: "The saved script versions the call was made in, outermost first; allow answers hold for these versions only", items: { type: "object", properties: { name: { type: "string" }, version: { type: "integer" }, body_sha256: { type: "string" } } } }, display: ref("ShownInput") } },
        ShownInput: { type: "object", description: "The input as a person should see it: JSON with invisible and bidirectional characters escaped, and each one flagged", properties: { text: { type: "string" }, flags: { type: "array", items: { type: "object", properties: { path: { type: "string", description: "JSON Pointer into input" }, codePoint: { type: "string" }, name: { type: "string" } }, required: ["path", "codePoint"] } } }, required: ["text", "flags"] },
        ScriptInput: { type: "object", required: ["name", "description", "body"], properties: { name: { type: "string" }, description: { type: "string" }, input_schema: { type: "object" }, body: { type: "string" } } },
        Script: { type: "object", properties: { id: { type: "string" }, agent_id: { type: "string" }, name: { type: "string" }, version: { type: "integer" }, description: { type: "string" }, input_schema: { type: "object" }, body: { type: "string" }, archived: { type: "boolean" }, created_at: { type: "string" }, updated_at: { type: "string" } } },
        TriggerInput: {
          type: "object",
          required: ["name", "script"],
          properties: {
            name: { type: "string" },
            schedule: { type: "string", description: "Cron expression (5 or 6 fields) of a schedule trigger" },
            timezone: { type: "string", default: "UTC" },
            webhook: { type: "boolean", description: "true for a webhook trigger" },
            script: { type: "string" },
            input: { type: "object", description: 'Strings are templates: "{{payload.x}}" alone keeps the JSON type' },
            enabled: { type: "boolean", default: true },
            wake_agent_on_failure: { type: "boolean", default: false },
            webhook_wait: { type: "boolean", default: false, description: "Webhook triggers: a caller with the trigger's secret alone may ask ?wait=true for the finished run (its output and stop report)" },
          },
        },
        Trigger: { type: "object", properties: { id: { type: "string" }, agent_id: { type: "string" }, name: { type: "string" }, kind: { enum: ["schedule", "webhook"] }, cron: { type: "string" }, timezone: { type: "string" }, script: { type: "string" }, input: { type: "object" }, enabled: { type: "boolean" }, wake_agent_on_failure: { type: "boolean" }, webhook_wait: { type: "boolean" }, next_run_at: { type: "string" }, last_run_at: { type: "string" }, origin: { enum: ["api", "cli", "config"] }, secret: { type: "string", description: "Only in the answer to the creation of a webhook trigger" }, webhook_url: { type: "string" }, warning: { type: "string", description: "In the answer to a creation or change: the saved script it runs is not there (every run fails until it is saved)" } } },
        TriggerRun: { type: "object", properties: { id: { type: "string" }, trigger_id: { type: "string" }, reason: { enum: ["schedule", "missed", "webhook", "manual"] }, status: { enum: ["running", "ok", "failed", "stopped", "skipped"] }, session_id: { type: "string" }, tool_call_id: { type: "string" }, payload: {}, input: { type: "object" }, result: ref("ShellResult"), request_id: { type: "string" }, skipped: { type: "object", description: "A run that did not start: why, and the run and approval request it waited behind", properties: { reason: { type: "string" }, run_id: { type: "string" }, request_id: { type: "string" } } }, error: { type: "string" }, started_at: { type: "string" }, scheduled_at: { type: "string", description: "The due time a schedule's run was for" }, resumed_at: { type: "array", items: { type: "string" }, description: "When it went on after each answer" }, interrupted_at: { type: "array", items: { type: "string" }, description: "When it ran again after the process running it ended mid-run" }, replicas: { type: "array", items: { type: "string" }, description: "The replicas that ran it, in order (serve on a shared store)" }, ended_at: { type: "string" } } },
      },
    },
  };
}
