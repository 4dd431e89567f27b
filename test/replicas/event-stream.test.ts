/**
 * A session's events pushed to an HTTP-API agent (docs/sessions.md "HTTP API"; server/event-stream.ts):
 * two real `toolshell serve` replicas on one real PostgreSQL, the stream read over real HTTP.
 * An event written on replica A reaches a stream open on replica B; one written on B reaches it
 * too; `Last-Event-ID` resumes after the last event seen; the stream is scoped like every
 * session route (an agent token of another principal is refused, the owner's is served).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { openEventStream, type StreamMessage } from "../fixtures/event-stream.js";
import { api, deployment, TOKEN, until, type Replica } from "./helpers.js";

const AGENT = "agent-token-other-principal-0123";
const OWNER = "agent-token-owner-principal-0123";

/** Opens the event stream of `sid` on `r`. */
const openStream = (r: Replica, sid: string, token: string, headers: Record<string, string> = {}) => openEventStream(`${r.url}/v1/sessions/${sid}/events`, token, headers);

const seen = (messages: StreamMessage[], type: string, field: string, value: string) => messages.find((m) => m.data.type === type && String(m.data[field] ?? "").includes(value));

test("a session's event stream on one replica carries events written on the other, resumes after Last-Event-ID, and is scoped to the session's principal", async (t) => {
  const d = await deployment(t, {
    server: {
      tokens: [
        { name: "ops", token: TOKEN, role: "operator" },
        { name: "other", token: AGENT, role: "agent" },
        { name: "owner", token: OWNER, role: "agent" },
      ],
    },
  });
  const [a, b] = await Promise.all([d.start("A"), d.start("B")]);
  const asOwner = async (r: Replica, method: string, p: string, body?: unknown) => {
    const res = await fetch(r.url + p, { method, headers: { authorization: `Bearer ${OWNER}`, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, json: (await res.json()) as any };
  };
  const created = await asOwner(a, "POST", "/v1/sessions", { id: "ses_stream" });
  assert.equal(created.status, 201, JSON.stringify(created.json));

  // Without the Accept header the route still answers one page of JSON.
  const page = await api(b, "GET", "/v1/sessions/ses_stream/events");
  assert.equal(page.status, 200);
  assert.ok(Array.isArray(page.json.events));

  const s = await openStream(b, "ses_stream", OWNER);
  t.after(() => s.close());
  assert.equal(s.res.status, 200);
  assert.match(s.res.headers.get("content-type") ?? "", /^text\/event-stream/);

  // Written on A, read on B.
  const onA = await asOwner(a, "POST", "/v1/sessions/ses_stream/bash", { script: "echo from-a" });
  assert.equal(onA.status, 200, JSON.stringify(onA.json));
  const endA = await until(async () => seen(s.messages, "shell_call.ended", "tool_call_id", onA.json.tool_call_id), "the event written on A to reach the stream on B");
  assert.ok(seen(s.messages, "shell_call.started", "script_preview", "echo from-a"), "the started event too, before it");
  assert.equal(endA.id, String(endA.data.seq), "each message's id is the event's seq");
  const ids = s.messages.map((m) => Number(m.id));
  assert.deepEqual(ids, [...ids].sort((x, y) => x - y), "in order");
  assert.equal(new Set(ids).size, ids.length, "each event once");

  // Written on B itself.
  const onB = await asOwner(b, "POST", "/v1/sessions/ses_stream/bash", { script: "echo from-b" });
  assert.equal(onB.status, 200);
  await until(async () => seen(s.messages, "shell_call.ended", "tool_call_id", onB.json.tool_call_id), "the event written on B to reach its stream");

  // Resume on A after the last event of the first call: only what came after.
  const resumed = await openStream(a, "ses_stream", OWNER, { "last-event-id": endA.id! });
  t.after(() => resumed.close());
  await until(async () => seen(resumed.messages, "shell_call.ended", "tool_call_id", onB.json.tool_call_id), "the resumed stream to catch up");
  assert.ok(resumed.messages.every((m) => m.data.seq > endA.data.seq), JSON.stringify(resumed.messages.map((m) => m.id)));
  assert.ok(!seen(resumed.messages, "shell_call.started", "script_preview", "echo from-a"));

  // Scope: another principal's agent token is refused on either replica; a bad Last-Event-ID is a clear 400.
  for (const r of [a, b]) {
    const other = await openStream(r, "ses_stream", AGENT);
    assert.equal(other.res.status, 403);
    assert.match(((await other.res.json()) as any).error.message, /cannot reach it/);
  }
  const bad = await openStream(b, "ses_stream", OWNER, { "last-event-id": "ten" });
  assert.equal(bad.res.status, 400);
  assert.match(((await bad.res.json()) as any).error.message, /Last-Event-ID/);
  const missing = await openStream(b, "ses_nope", TOKEN);
  assert.equal(missing.res.status, 404);
});
