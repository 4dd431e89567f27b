/**
 * Questions MCP servers asked during HTTP API shell calls, waiting for a person on any replica of
 * the store (server/questions.ts): the question as every surface shows it (escaped), and a form
 * with one field per property of its schema. Form mode's schema is a flat object of strings,
 * numbers, integers, booleans and enums (MCP spec 2025-11-25 "Elicitation" → Requested Schema).
 *
 * See README → Console; docs/mcp.md → Elicitation relay.
 */
import type { FC } from "hono/jsx";
import type { PendingQuestion } from "../../questions.js";
import { Time } from "./parts.js";

/** One property of a question's schema, as far as a form field needs it. */
interface Field {
  name: string;
  type: string;
  title?: string;
  description?: string;
  enum?: unknown[];
  required: boolean;
}

/** The fields of a question's form, in the schema's order. */
export function fieldsOf(schema: Record<string, unknown>): Field[] {
  const props = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
  return Object.entries(props).map(([name, p]) => ({
    name,
    type: typeof p.type === "string" ? p.type : "string",
    title: typeof p.title === "string" ? p.title : undefined,
    description: typeof p.description === "string" ? p.description : undefined,
    enum: Array.isArray(p.enum) ? p.enum : undefined,
    required: required.has(name),
  }));
}

/**
 * The content of an accepted answer from the form's fields (`f.<name>`), typed by the schema:
 * numbers as numbers, a checkbox as true or false, an empty optional field left out. What does
 * not fit the schema is left as typed: the API's check then says what is wrong.
 */
export function contentOf(schema: Record<string, unknown>, form: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fieldsOf(schema)) {
    const raw = form[`f.${f.name}`];
    if (f.type === "boolean") {
      out[f.name] = raw === "true" || raw === "on";
      continue;
    }
    const text = typeof raw === "string" ? raw : "";
    if (text === "" && !f.required) continue;
    if ((f.type === "number" || f.type === "integer") && text.trim() !== "" && Number.isFinite(Number(text))) out[f.name] = Number(text);
    else out[f.name] = text;
  }
  return out;
}

const FieldInput: FC<{ f: Field; id: string }> = ({ f, id }) => {
  const fid = `${id}-${f.name}`;
  const label = f.title ?? f.name;
  if (f.type === "boolean") {
    return (
      <p class="field">
        <label for={fid}>
          <input type="checkbox" id={fid} name={`f.${f.name}`} value="true" /> {label}
        </label>
        {f.description ? <span class="help"> {f.description}</span> : null}
      </p>
    );
  }
  return (
    <p class="field">
      <label for={fid}>
        {label}
        {f.required ? " (required)" : ""}
      </label>
      {f.description ? <span class="help"> {f.description}</span> : null}
      {f.enum ? (
        <select id={fid} name={`f.${f.name}`}>
          {f.required ? null : <option value="">—</option>}
          {f.enum.map((v) => (
            <option value={String(v)}>{String(v)}</option>
          ))}
        </select>
      ) : (
        <input id={fid} name={`f.${f.name}`} type={f.type === "number" || f.type === "integer" ? "number" : "text"} step={f.type === "number" ? "any" : undefined} />
      )}
    </p>
  );
};

/** One waiting question with its form. */
const QuestionCard: FC<{ q: PendingQuestion }> = ({ q }) => {
  const id = `question-${q.question_id}`;
  return (
    <article class="card question" id={id} aria-labelledby={`${id}-title`} data-question={q.question_id}>
      <header class="card-head">
        <h2 id={`${id}-title`}>Question from MCP server {q.server}</h2>
        <span class="pill">
          session <a href={`/sessions/${encodeURIComponent(q.session_id)}`}>{q.session_id}</a>
        </span>
      </header>
      <pre class="question-text">{q.display.text}</pre>
      {q.display.warnings.length ? (
        <ul class="warn">
          {q.display.warnings.map((w) => (
            <li>{w}</li>
          ))}
        </ul>
      ) : null}
      <p class="meta">
        Asked <Time at={q.asked_at} />; the call waits for the answer (ten minutes at most).
      </p>
      <form method="post" action="/console/questions" class="answers" data-answer="">
        <input type="hidden" name="session_id" value={q.session_id} />
        <input type="hidden" name="question_id" value={q.question_id} />
        {fieldsOf(q.requested_schema).map((f) => (
          <FieldInput f={f} id={id} />
        ))}
        <button type="submit" name="reply" value="accept" class="primary">
          Answer
        </button>
        <button type="submit" name="reply" value="decline" class="secondary">
          Decline
        </button>
      </form>
    </article>
  );
};

/** The questions waiting, or nothing when none waits. */
export const Questions: FC<{ questions: PendingQuestion[] }> = ({ questions }) =>
  questions.length ? (
    <section class="cards questions" aria-label="Questions from MCP servers">
      <p class="count">{questions.length === 1 ? "1 question from an MCP server waits for an answer." : `${questions.length} questions from MCP servers wait for an answer.`}</p>
      {questions.map((q) => (
        <QuestionCard q={q} />
      ))}
    </section>
  ) : null;
