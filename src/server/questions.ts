/**
 * Questions an upstream MCP server asks during a shell call of the HTTP API (`elicitation/create`,
 * relayed: see call/person.ts): each waits here until a person answers it over the API, the
 * call ends, or ten minutes pass (then it is cancelled). They are listed like pending approvals.
 *
 * Routes: `GET /v1/questions` (every session's), `GET /v1/sessions/{id}/questions`, and
 * `POST /v1/sessions/{id}/questions` with `{question_id, action, content?}`; an accepted
 * answer's content must match the question's schema (400 otherwise, and the question still waits).
 *
 * Rule source: docs/mcp.md "Elicitation relay"; docs/sessions.md "HTTP API"; MCP spec 2025-11-25
 * "Client Features" → Elicitation (accept with content, decline, cancel).
 */
import type { Context, Hono } from "hono";
import { describeQuestion, type AskedQuestion, type Person } from "../call/index.js";
import { checkAnswer, type QuestionAnswer } from "../tool/index.js";
import { ApiError, body, str } from "./http.js";

/** How long a question waits for a person before it is cancelled (milliseconds). */
export const QUESTION_WAIT_MS = 600_000;

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

/** The questions waiting for a person in one `serve` process. */
export class QuestionBox {
  readonly #waiting = new Map<string, Waiting>();

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
        resolve(answer);
      };
      const onAbort = () => done({ action: "cancel" });
      const timer = setTimeout(() => done({ action: "cancel" }), QUESTION_WAIT_MS);
      timer.unref();
      this.#waiting.set(question.id, {
        question,
        resolve: done,
        listed: {
          question_id: question.id,
          session_id: question.session_id,
          call_id: question.call_id,
          server: question.server,
          command: question.command,
          message: question.message,
          requested_schema: question.requestedSchema,
          asked_at: new Date().toISOString(),
          display: describeQuestion(question),
        },
      });
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Pending questions, oldest first; of one session when `sessionId` is given. */
  pending(sessionId?: string): PendingQuestion[] {
    return [...this.#waiting.values()].map((w) => w.listed).filter((q) => sessionId === undefined || q.session_id === sessionId);
  }

  /**
   * Answers a pending question of `sessionId`.
   * @throws ApiError 404 when no such question waits in that session; 400 when the answer is
   *   malformed or its content does not match the schema (the question keeps waiting).
   */
  answer(sessionId: string, questionId: string, answer: unknown): QuestionAnswer {
    const w = this.#waiting.get(questionId);
    if (!w || w.listed.session_id !== sessionId) throw new ApiError(404, "not_found", `no pending question ${questionId} in session ${sessionId}`);
    const checked = checkAnswer(w.question, answer);
    if (!checked.ok) throw new ApiError(400, "invalid_request", checked.message);
    w.resolve(checked.answer);
    return checked.answer;
  }
}

/**
 * Mounts the question routes (see the module docstring). `sessionOr404` resolves a session id or
 * throws 404; `reachable` says whether the request may see a session's questions (app.ts).
 */
export function mountQuestionRoutes(app: Hono, box: QuestionBox, sessionOr404: (id: string) => Promise<{ id: string }>, reachable: (c: Context, sessionId: string) => Promise<boolean>): void {
  app.get("/v1/questions", async (c) => {
    const all = box.pending();
    const shown = await Promise.all(all.map((q) => reachable(c, q.session_id)));
    return c.json({ pending: all.filter((_, i) => shown[i]) });
  });
  app.get("/v1/sessions/:id/questions", async (c) => {
    const rec = await sessionOr404(c.req.param("id"));
    return c.json({ pending: box.pending(rec.id) });
  });
  app.post("/v1/sessions/:id/questions", async (c) => {
    const rec = await sessionOr404(c.req.param("id"));
    const b = await body(c);
    const questionId = str(b, "question_id", true);
    const answered = box.answer(rec.id, questionId, { action: b.action, content: b.content });
    return c.json({ answered: { question_id: questionId, ...answered }, pending: box.pending(rec.id) });
  });
}
