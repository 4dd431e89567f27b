/**
 * Questions an upstream MCP server asks during a shell call of the HTTP API (`elicitation/create`,
 * relayed: see call/person.ts): each waits until a person answers it over the API or the console
 * of any replica on the same store, the call ends, or ten minutes pass (then it is cancelled).
 * They are listed like pending approvals.
 *
 * Routes: `GET /v1/questions` (every session's), `GET /v1/sessions/{id}/questions`, and
 * `POST /v1/sessions/{id}/questions` with `{question_id, action, content?}`; an accepted
 * answer's content must match the question's schema (400 otherwise, and the question still waits).
 *
 * See docs/mcp.md → Elicitation relay; docs/sessions.md → HTTP API; docs/deployment.md → What is
 * shared; MCP spec 2025-11-25 "Client Features" → Elicitation.
 */
import type { Context, Hono } from "hono";
import { describeQuestion, type AskedQuestion, type Person } from "../call/index.js";
import { checkAnswer, type QuestionAnswer } from "../tool/index.js";
import type { Store } from "../store/index.js";
import { ApiError, body, str } from "./http.js";

/** How long a question waits for a person before it is cancelled (milliseconds). */
export const QUESTION_WAIT_MS = 600_000;
/** How often a replica with questions waiting looks for answers given on other replicas (milliseconds). */
const ANSWER_POLL_MS = 250;
/** How often the asking replica marks its waiting questions as still waiting (milliseconds). */
const REFRESH_MS = 5_000;
/** A stored question not marked for this long is not listed: its replica is gone (killed). */
export const QUESTION_STALE_MS = 15_000;
/** The key of the answer given elsewhere to question `id` (apart from the question's own key, which only the asker writes). */
const answerKey = (id: string) => `answer:${id}`;

/** A pending question as the API lists it. */
export interface PendingQuestion {
  question_id: string;
  session_id: string;
  call_id: string;
  server: string;
  command: string;
  message: string;
  requested_schema: Record<string, unknown>;
  asked_at: string;
  /** What to show a person: the message escaped as on every surface (see describeQuestion), and warnings. */
  display: { text: string; warnings: string[] };
}

interface Waiting {
  listed: PendingQuestion;
  question: AskedQuestion;
  resolve: (answer: QuestionAnswer) => void;
}

/**
 * The questions waiting for a person, shared by every replica on one store (docs/deployment.md
 * "What is shared"): the replica whose call asked keeps the call waiting and writes the question
 * to the store (`shared_state`, kind `question`), marking it again every few seconds while it
 * waits; any replica lists it and takes an answer, checked against the question's schema there
 * and written beside it; the asking replica reads the answer and hands it to the call.
 */
export class QuestionBox {
  readonly #waiting = new Map<string, Waiting>();
  readonly #store: Pick<Store, "listShared" | "putShared">;
  #poll: NodeJS.Timeout | undefined;
  #polling = false;
  #refreshedAt = 0;

  constructor(store: Pick<Store, "listShared" | "putShared">) {
    this.#store = store;
  }

  /** The person of an HTTP API shell call: questions wait here. */
  person(): Person {
    return { ask: (question, signal) => this.ask(question, signal) };
  }

  /** Waits for a person's answer to `question`; `cancel` when `signal` aborts or the wait ends. Never rejects. */
  ask(question: AskedQuestion, signal: AbortSignal): Promise<QuestionAnswer> {
    return new Promise((resolve) => {
      const done = (answer: QuestionAnswer) => {
        if (!this.#waiting.delete(question.id)) return;
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        void this.#forget(question.id);
        if (this.#waiting.size === 0 && this.#poll) {
          clearInterval(this.#poll);
          this.#poll = undefined;
        }
        resolve(answer);
      };
      const onAbort = () => done({ action: "cancel" });
      const timer = setTimeout(() => done({ action: "cancel" }), QUESTION_WAIT_MS);
      timer.unref();
      const listed: PendingQuestion = {
        question_id: question.id,
        session_id: question.session_id,
        call_id: question.call_id,
        server: question.server,
        command: question.command,
        message: question.message,
        requested_schema: question.requestedSchema,
        asked_at: new Date().toISOString(),
        display: describeQuestion(question),
      };
      this.#waiting.set(question.id, { question, resolve: done, listed });
      if (signal.aborted) return onAbort();
      signal.addEventListener("abort", onAbort, { once: true });
      void this.#store.putShared("question", question.id, { ...listed }, { quiet: true }).catch(() => {});
      if (!this.#poll) {
        this.#poll = setInterval(() => void this.#takeAnswers(), ANSWER_POLL_MS);
        this.#poll.unref();
      }
    });
  }

  /** Hands answers given on other replicas to the calls waiting here; marks the questions still waiting. Never rejects. */
  async #takeAnswers(): Promise<void> {
    if (this.#polling) return;
    this.#polling = true;
    try {
      const rows = await this.#store.listShared("question");
      for (const r of rows) {
        if (!r.key.startsWith("answer:")) continue;
        const w = this.#waiting.get(r.key.slice("answer:".length));
        // Checked where it was given; checked again here against the question this call asked.
        const checked = w ? checkAnswer(w.question, r.data.answer) : undefined;
        if (w && checked) w.resolve(checked.ok ? checked.answer : { action: "cancel" });
      }
      if (Date.now() - this.#refreshedAt >= REFRESH_MS) {
        this.#refreshedAt = Date.now();
        for (const w of this.#waiting.values()) await this.#store.putShared("question", w.listed.question_id, { ...w.listed }, { quiet: true });
      }
    } catch {
      // The store is out of reach for now: the next round tries again; questions asked here still answer here.
    } finally {
      this.#polling = false;
    }
  }

  async #forget(id: string): Promise<void> {
    await this.#store.putShared("question", id, null, { quiet: true }).catch(() => {});
    await this.#store.putShared("question", answerKey(id), null, { quiet: true }).catch(() => {});
  }

  /** Questions waiting on any replica of the store and not answered yet, oldest first; of one session when `sessionId` is given. */
  async pending(sessionId?: string): Promise<PendingQuestion[]> {
    const rows = await this.#store.listShared("question").catch(() => []);
    const answered = new Set(rows.filter((r) => r.key.startsWith("answer:")).map((r) => r.key.slice("answer:".length)));
    const byId = new Map<string, PendingQuestion>();
    for (const w of this.#waiting.values()) if (!answered.has(w.listed.question_id)) byId.set(w.listed.question_id, w.listed);
    for (const r of rows) {
      if (r.key.startsWith("answer:") || byId.has(r.key) || answered.has(r.key)) continue;
      if (Date.now() - Date.parse(r.updated_at) > QUESTION_STALE_MS) continue;
      byId.set(r.key, r.data as unknown as PendingQuestion);
    }
    return [...byId.values()].filter((q) => sessionId === undefined || q.session_id === sessionId).sort((a, b) => a.asked_at.localeCompare(b.asked_at));
  }

  /**
   * Answers a pending question of `sessionId`, asked on this replica or another one on the store.
   * @throws ApiError 404 when no such question waits in that session; 400 when the answer is
   *   malformed or its content does not match the schema (the question keeps waiting).
   */
  async answer(sessionId: string, questionId: string, answer: unknown): Promise<QuestionAnswer> {
    // Listed: still waiting, and not answered on another replica meanwhile.
    const listed = (await this.pending(sessionId)).find((q) => q.question_id === questionId);
    const w = this.#waiting.get(questionId);
    if (!listed || listed.session_id !== sessionId) throw new ApiError(404, "not_found", `no pending question ${questionId} in session ${sessionId}`);
    const checked = checkAnswer({ requestedSchema: listed.requested_schema }, answer);
    if (!checked.ok) throw new ApiError(400, "invalid_request", checked.message);
    if (w) w.resolve(checked.answer);
    // Asked on another replica: the answer is written beside the question, and that replica takes it.
    else await this.#store.putShared("question", answerKey(questionId), { session_id: sessionId, answer: checked.answer }, { quiet: true });
    return checked.answer;
  }
}

/**
 * Mounts the question routes (see the module docstring). `sessionOr404` resolves a session id or
 * throws 404; `reachable` says whether the request may see a session's questions (app.ts).
 */
export function mountQuestionRoutes(app: Hono, box: QuestionBox, sessionOr404: (id: string) => Promise<{ id: string }>, reachable: (c: Context, sessionId: string) => Promise<boolean>): void {
  app.get("/v1/questions", async (c) => {
    const all = await box.pending();
    const shown = await Promise.all(all.map((q) => reachable(c, q.session_id)));
    return c.json({ pending: all.filter((_, i) => shown[i]) });
  });
  app.get("/v1/sessions/:id/questions", async (c) => {
    const rec = await sessionOr404(c.req.param("id"));
    return c.json({ pending: await box.pending(rec.id) });
  });
  app.post("/v1/sessions/:id/questions", async (c) => {
    const rec = await sessionOr404(c.req.param("id"));
    const b = await body(c);
    const questionId = str(b, "question_id", true);
    const answered = await box.answer(rec.id, questionId, { action: b.action, content: b.content });
    return c.json({ answered: { question_id: questionId, ...answered }, pending: (await box.pending(rec.id)).filter((q) => q.question_id !== questionId) });
  });
}
