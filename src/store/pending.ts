/**
 * Completed nested calls waiting for their `tool.nested_call` event, shared by every store: the
 * runtime calls `recordCall` when a call completes and `appendEvent` with its event right after;
 * the store writes both in one transaction, so a crash never keeps a call's replay record without
 * its event or the other way round. A step's end writes the calls still waiting.
 *
 * See docs/sessions.md → The store; src/runtime/durable.ts (`SessionStore.appendEvent`,
 * `recordCall`).
 */
import type { RecordedCall, SessionEvent } from "../runtime/index.js";

/** One call waiting for its event. */
export interface PendingCall {
  sessionId: string;
  toolCallId: string;
  call: RecordedCall;
}

/** The calls waiting for their events, by session and call id. */
export class PendingCalls {
  readonly #byKey = new Map<string, PendingCall>();

  /** Keeps a completed call until its event comes (a second record of the same call replaces the first). */
  add(sessionId: string, toolCallId: string, call: RecordedCall): void {
    this.#byKey.set(`${sessionId}\u0000${call.callId}`, { sessionId, toolCallId, call });
  }

  /** The call an event completes (a `tool.nested_call` with its `call_id`), taken out; else undefined. */
  takeFor(event: SessionEvent): PendingCall | undefined {
    if (event.type !== "tool.nested_call") return undefined;
    const callId = (event as { call_id?: string }).call_id;
    if (!callId) return undefined;
    const key = `${event.session_id}\u0000${callId}`;
    const p = this.#byKey.get(key);
    if (p) this.#byKey.delete(key);
    return p;
  }

  /** Every call of a session still waiting, taken out (a step's end writes them). */
  takeSession(sessionId: string): PendingCall[] {
    const out: PendingCall[] = [];
    for (const [key, p] of this.#byKey) {
      if (p.sessionId !== sessionId) continue;
      out.push(p);
      this.#byKey.delete(key);
    }
    return out;
  }
}
