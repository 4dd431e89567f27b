/**
 * Rows of the junction matrix (paths.ts) for the surfaces of `toolshell serve` (the HTTP API, its
 * console, two replicas on one PostgreSQL): the session's event stream (docs/sessions.md "HTTP
 * API": server-sent events, `Last-Event-ID`) and the session's durable steps as listed (the
 * API's `GET /v1/sessions/{id}/steps`, the console's session page). Their test files add these
 * to PATHS; a surface that runs them must offer `stream` and `step.listed`.
 */
import assert from "node:assert/strict";
import { eventually } from "../fixtures/eventually.js";
import type { StreamMessage } from "../fixtures/event-stream.js";
import type { ListedEvent, PathRow } from "./paths.js";

const seqs = (events: Array<Record<string, unknown>>) => events.map((e) => Number(e.seq));

/** Waits until `messages` reach the last of `listed`, then checks they are `listed`, in order, each once. */
async function carries(messages: StreamMessage[], listed: ListedEvent[], what: string): Promise<void> {
  const last = String(listed.at(-1)?.seq);
  await eventually(`${what}: the stream to reach event ${last}`, () => messages.some((m) => m.id === last));
  assert.deepEqual(seqs(messages.map((m) => m.data as Record<string, unknown>)), seqs(listed), `${what}: the stream carries the listed events, in order, each once`);
  for (const m of messages) assert.equal(m.id, String(m.data.seq), "each message's id is its event's seq");
  assert.deepEqual(
    messages.map((m) => m.data.type),
    listed.map((e) => e.type),
  );
}

export const SERVE_PATHS: PathRow[] = [
  {
    name: "event stream: the session's events are pushed as they are written, the same as listed; Last-Event-ID resumes after it",
    async run(surface, kind, _world, id) {
      assert.ok(surface.stream, `${surface.name} streams a session's events`);
      const stream = await surface.stream();
      try {
        const r = await surface.turn(kind.call(id(1)), "allow");
        assert.match(r.stdout, new RegExp(kind.output(id(1))));
        const listed = await surface.events();
        assert.ok(listed.some((e) => e.type === "approval.answered" && e.decision === "allow"), "the answer is listed");
        await carries(stream.messages, listed, "from the start");
        // Resumed after the approval asked: only what came after it.
        const asked = listed.find((e) => e.type === "approval.requested")!;
        const resumed = await surface.stream(String(asked.seq));
        try {
          await carries(resumed.messages, listed.filter((e) => Number(e.seq) > Number(asked.seq)), "after Last-Event-ID");
        } finally {
          resumed.close();
        }
      } finally {
        stream.close();
      }
    },
  },
  {
    name: "step list: a step waiting for approval is listed waiting, then answered, then completed once sent again",
    async run(surface, kind, _world, id) {
      const step = surface.step;
      assert.ok(step?.listed, `${surface.name} lists a session's steps`);
      const stepId = `list-${id(1)}`;
      const listedAs = (status: string) => eventually(`step ${stepId} listed ${status}`, async () => (await step.listed!())[stepId] === status);
      const first = await step.run(kind.call(id(1)), stepId);
      assert.equal(first.stopped?.reason, "needs_approval", first.stderr);
      await listedAs("waiting_approval");
      await step.answer(first.stopped!.request_id!, "allow");
      await listedAs("answered");
      const resumed = await step.run(kind.call(id(1)), stepId);
      assert.match(resumed.stdout, new RegExp(kind.output(id(1))), resumed.stderr);
      await listedAs("completed");
    },
  },
];
