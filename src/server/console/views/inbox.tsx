/**
 * The approvals inbox: one card per pending request, newest first, with the four answers.
 *
 * Rule source: README → Approvals (the answers allow, allow_always, reject,
 * reject_always; "the person is asked about the stopped call in the same step"); README
 * "Approvals" and "Console".
 */
import type { FC } from "hono/jsx";
import type { ApprovalCard } from "../data.js";
import { whyText } from "../data.js";
import { InputView, SafeLine, type ShownInput } from "./input.js";
import { Time } from "./parts.js";

/** The four answers, with the button text a person reads. */
export const ANSWERS: ReadonlyArray<{ decision: string; label: string; kind: string }> = [
  { decision: "allow", label: "Allow once", kind: "primary" },
  { decision: "allow_always", label: "Allow always", kind: "secondary" },
  { decision: "reject", label: "Reject", kind: "danger" },
  { decision: "reject_always", label: "Reject always", kind: "danger-secondary" },
];

const ScriptAround: FC<{ script: NonNullable<ApprovalCard["script"]>; id: string }> = ({ script, id }) => (
  <figure class="script-around">
    <figcaption id={`${id}-script`}>
      {script.line ? `Line ${script.line} of ${script.total} of the script` : `The script (${script.total} lines; the call is not on one literal line)`}
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

/** One pending request with its answer buttons. */
export const ApprovalCardView: FC<{ card: ApprovalCard; shown: ShownInput }> = ({ card, shown }) => {
  const r = card.request;
  const why = whyText(r.why);
  return (
    <article class="card approval" id={`card-${r.id}`} aria-labelledby={`${r.id}-title`} data-request={r.id}>
      <header class="card-head">
        <h2 id={`${r.id}-title`}>
          <code><SafeLine text={r.tool} /></code>
        </h2>
        <span class="pill">{card.server ? `server ${card.server}` : "top-level tool"}</span>
      </header>
      <dl class="facts">
        <div>
          <dt>Risk</dt>
          <dd>
            <span class="risk risk-needs_approval">needs approval</span>
            {why ? (
              <span class="why">
                {" "}
                — {why} (<code>{r.why}</code>)
              </span>
            ) : null}
          </dd>
        </div>
        <div>
          <dt>Session</dt>
          <dd>
            <a href={`/sessions/${encodeURIComponent(r.session_id)}`}>{r.session_id}</a> (agent {card.agent_id})
          </dd>
        </div>
        <div>
          <dt>Call</dt>
          <dd>
            <code>{r.tool_call_id}</code>
          </dd>
        </div>
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
      {card.script ? <ScriptAround script={card.script} id={r.id} /> : null}
      <form method="post" action="/console/answer" class="answers" data-answer="">
        <input type="hidden" name="session_id" value={r.session_id} />
        <input type="hidden" name="request_id" value={r.id} />
        {ANSWERS.map((a) => (
          <button type="submit" name="decision" value={a.decision} class={a.kind}>
            {a.label}
          </button>
        ))}
      </form>
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
