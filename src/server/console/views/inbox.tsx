/**
 * The approvals inbox: one card per pending request, newest first, with the four answers.
 *
 * See README → Approvals, Console.
 */
import type { FC } from "hono/jsx";
import type { RanCall } from "../../approval-card.js";
import type { ApprovalCard } from "../data.js";
import { InputView, SafeLine, type ShownInput } from "./input.js";
import { Time } from "./parts.js";

/** The four answers, with the button text a person reads. */
export const ANSWERS: ReadonlyArray<{ decision: string; label: string; kind: string }> = [
  { decision: "allow", label: "Allow once", kind: "primary" },
  { decision: "allow_always", label: "Allow always", kind: "secondary" },
  { decision: "reject", label: "Reject", kind: "danger" },
  { decision: "reject_always", label: "Reject always", kind: "danger-secondary" },
];

const ScriptAround: FC<{ script: NonNullable<ApprovalCard["script"]>; id: string; saved?: { name: string; version: number } }> = ({ script, id, saved }) => (
  <figure class="script-around">
    <figcaption id={`${id}-script`}>
      {saved ? `Saved script ${saved.name} (version ${saved.version}): ` : "The script: "}
      {script.line
        ? `line ${script.line} of ${script.total} asked`
        : `${script.total} ${script.total === 1 ? "line" : "lines"}; the call is not written out in it (its words were built while it ran)`}
    </figcaption>
    <ol class="script" aria-labelledby={`${id}-script`}>
      {script.lines.map((l) => (
        <li value={String(l.n)} class={l.n === script.line ? "hit" : undefined} aria-current={l.n === script.line ? "true" : undefined}>
          <code>{l.text ? <SafeLine text={l.text} /> : " "}</code>
        </li>
      ))}
    </ol>
  </figure>
);

/** A call that ran, on one line: the command and its input as JSON (escaped like every shown line). */
const RanLine: FC<{ call: RanCall }> = ({ call }) => (
  <>
    <code>
      <SafeLine text={`${call.tool} ${JSON.stringify(call.input)}`} />
    </code>
    {call.at ? (
      <>
        {" "}
        at <Time at={call.at} />
      </>
    ) : null}
  </>
);

/** Hints as words: only those the tool declared. */
function hintWords(h: NonNullable<ApprovalCard["details"]["hints"]>): string {
  const out: string[] = [];
  if (h.readOnly !== undefined) out.push(h.readOnly ? "read-only" : "changes things");
  if (h.destructive !== undefined) out.push(h.destructive ? "destructive" : "not destructive");
  if (h.idempotent !== undefined) out.push(h.idempotent ? "idempotent" : "not idempotent");
  if (h.openWorld !== undefined) out.push(h.openWorld ? "reaches outside" : "stays inside");
  return out.join(", ");
}

/** One pending request with its answer buttons. */
export const ApprovalCardView: FC<{ card: ApprovalCard; shown: ShownInput }> = ({ card, shown }) => {
  const r = card.request;
  const d = card.details;
  const why = d.risk.replace(/^needs approval: /, "");
  return (
    <article class="card approval" id={`card-${r.id}`} aria-labelledby={`${r.id}-title`} data-request={r.id} tabindex={-1}>
      <header class="card-head">
        <h2 id={`${r.id}-title`}>
          <code><SafeLine text={r.tool} /></code>
        </h2>
        <span class="pill">{card.server ? `server ${card.server}` : "top-level tool"}</span>
      </header>
      {d.description ? <p class="tool-description">{d.description}</p> : null}
      {d.in_flight ? (
        <p class="warn in-flight" role="note">
          <SafeLine text={d.in_flight.warning} />
        </p>
      ) : null}
      {d.already_ran ? (
        <p class="warn already-ran" role="note">
          This exact call (same tool, same input) already ran{d.already_ran.at ? <> at <Time at={d.already_ran.at} /></> : null} in this {d.where.kind === "trigger" ? "trigger's runs" : "session"}. Allowing it runs it again.
        </p>
      ) : null}
      <dl class="facts">
        <div>
          <dt>Risk</dt>
          <dd>
            <span class="risk risk-needs_approval">needs approval</span>
            <span class="why"> — {why}</span>
          </dd>
        </div>
        {d.hints ? (
          <div>
            <dt>Hints</dt>
            <dd>{hintWords(d.hints)}</dd>
          </div>
        ) : null}
        <div>
          <dt>{d.where.kind === "trigger" ? "Trigger" : "Session"}</dt>
          <dd>
            {d.where.kind === "trigger" ? (
              <>
                <a href="/triggers">{d.where.trigger_name}</a> (agent {card.agent_id}; <a href={`/sessions/${encodeURIComponent(r.session_id)}`}>its runs</a>)
              </>
            ) : (
              <>
                <a href={`/sessions/${encodeURIComponent(r.session_id)}`}>{r.session_id}</a> (agent {card.agent_id})
              </>
            )}
          </dd>
        </div>
        {d.line ? (
          <div>
            <dt>Line</dt>
            <dd>{d.script?.saved ? `line ${d.line} of saved script ${d.script.saved.name}` : `line ${d.line} of the script`}</dd>
          </div>
        ) : null}
        <div>
          <dt>Asked</dt>
          <dd>
            <Time at={r.created_at} />
          </dd>
        </div>
      </dl>
      <section aria-label="Input">
        <h3>Input</h3>
        <InputView shown={shown} id={r.id} />
      </section>
      {card.script ? <ScriptAround script={card.script} id={r.id} saved={d.script?.saved} /> : null}
      {d.ran_before.length ? (
        <section aria-label="Already ran in this call" class="ran-before">
          <h3>Already ran before this stop</h3>
          <ul>
            {d.ran_before.map((c) => (
              <li>
                <RanLine call={c} />
              </li>
            ))}
          </ul>
        </section>
      ) : d.before_start ? null : (
        <p class="ran-before none">Nothing ran before this stop in this call.</p>
      )}
      <p class="after-answer">{d.after_answer}</p>
      <form method="post" action="/console/answer" class="answers" data-answer="">
        <input type="hidden" name="session_id" value={r.session_id} />
        <input type="hidden" name="request_id" value={r.id} />
        {ANSWERS.map((a) => (
          <button type="submit" name="decision" value={a.decision} class={a.kind}>
            {a.label}
          </button>
        ))}
      </form>
      <ul class="answer-scope">
        <li>Allow once: this exact call, once.</li>
        <li>{d.scope.allow_always}</li>
        <li>{d.scope.reject_always}</li>
      </ul>
    </article>
  );
};

/** The inbox region: the cards, or a line saying nothing waits. */
export const Inbox: FC<{ cards: Array<{ card: ApprovalCard; shown: ShownInput }> }> = ({ cards }) =>
  cards.length ? (
    <div class="cards">
      <p class="count">{cards.length === 1 ? "1 request waits for an answer." : `${cards.length} requests wait for an answer.`}</p>
      {cards.map((c) => (
        <ApprovalCardView card={c.card} shown={c.shown} />
      ))}
    </div>
  ) : (
    <p class="empty">Nothing waits for an answer. New requests appear here as scripts stop for them.</p>
  );
