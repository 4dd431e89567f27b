/**
 * The sessions list and one session's timeline: shell calls in order, each with its script,
 * exit code, duration, output, stop report, the images tools saved, and its nested calls as
 * rows under it; other events (approvals, saved scripts, trigger runs) on rows of their own.
 *
 * See README → Console.
 */
import type { FC } from "hono/jsx";
import type { StopReport } from "../../../runtime/index.js";
import type { SessionRecord, StoredEvent } from "../../../store/index.js";
import type { ShellCallView, TimelineItem } from "../data.js";
import { whyText } from "../data.js";
import { InputLine, SafeLine, SafeText } from "./input.js";
import { duration, Folded, nestedStatusText, Status, Time } from "./parts.js";

/** The sessions list; a trigger's session is named after its trigger (`triggers`: session id → trigger name). */
export const SessionList: FC<{ sessions: SessionRecord[]; pendingBySession: Map<string, number>; goneBySession?: Map<string, number>; triggers?: Map<string, string> }> = ({ sessions, pendingBySession, goneBySession, triggers }) =>
  sessions.length ? (
    <div class="table-wrap">
      <table class="list">
        <caption class="sr-only">Sessions, most recently active first</caption>
        <thead>
          <tr>
            <th scope="col">Session</th>
            <th scope="col">Agent</th>
            <th scope="col">Shell calls</th>
            <th scope="col">Waiting</th>
            <th scope="col">Last active</th>
          </tr>
        </thead>
        <tbody>
          {sessions.map((s) => (
            <tr>
              <th scope="row" data-label="Session">
                <a href={`/sessions/${encodeURIComponent(s.id)}`}>{triggers?.has(s.id) ? `Trigger ${triggers.get(s.id)}` : s.id}</a>
              </th>
              <td data-label="Agent">{s.agent_id}</td>
              <td data-label="Shell calls">{s.shell_calls}</td>
              <td data-label="Waiting">
                {pendingBySession.get(s.id) ? <Status kind="stopped" text={`${pendingBySession.get(s.id)} approval(s)`} /> : null}
                {goneBySession?.get(s.id) ? <Status kind="failed" text={`${goneBySession.get(s.id)} step(s): replica gone`} /> : null}
                {pendingBySession.get(s.id) || goneBySession?.get(s.id) ? null : "—"}
              </td>
              <td data-label="Last active">
                <Time at={s.updated_at} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  ) : (
    <p class="empty">No sessions yet. A session appears here with its first shell call.</p>
  );

function callState(call: ShellCallView): { kind: string; text: string } {
  switch (call.state) {
    case "running":
      return { kind: "running", text: "running" };
    case "ok":
      return { kind: "ok", text: "exit 0" };
    case "stopped":
      return { kind: "stopped", text: `stopped: ${call.stopped === "needs_approval" ? "needs approval" : call.stopped} · exit ${call.exit_code}` };
    case "failed":
      return { kind: "failed", text: `exit ${call.exit_code}` };
    default:
      return { kind: "unfinished", text: "did not end" };
  }
}

const Report: FC<{ report: StopReport }> = ({ report }) => {
  const s = report.stopped;
  return (
    <section class="report" aria-label="Stop report">
      <h4>{s ? "Stop report" : "Report"}</h4>
      <dl class="facts">
        {s ? (
          <div>
            <dt>Stopped</dt>
            <dd>
              <code>{s.reason}</code>
              {s.line ? ` at line ${s.line}` : ""}
              {s.before_start ? " before the script started" : ""}
              {s.why ? ` — ${whyText(s.why)}` : ""}
            </dd>
          </div>
        ) : null}
        {s?.call ? (
          <div>
            <dt>Call</dt>
            <dd>
              <code>{s.call.tool}</code> <InputLine input={s.call.input} />
            </dd>
          </div>
        ) : null}
        {s?.request_id ? (
          <div>
            <dt>Request</dt>
            <dd>
              <code>{s.request_id}</code>
            </dd>
          </div>
        ) : null}
        {s?.message ? (
          <div>
            <dt>Message</dt>
            <dd>{s.message}</dd>
          </div>
        ) : null}
        <div>
          <dt>Done</dt>
          <dd>
            {report.done.length ? (
              <ul class="plain">
                {report.done.map((d) => (
                  <li>
                    <code>{d.tool}</code> <InputLine input={d.input} /> {d.ok ? "ok" : `failed: ${d.error?.code ?? ""} ${d.error?.message ?? ""}`}
                  </li>
                ))}
              </ul>
            ) : (
              "nothing that changes things"
            )}
            {report.read_only_calls ? ` (and ${report.read_only_calls} read-only call${report.read_only_calls === 1 ? "" : "s"})` : ""}
          </dd>
        </div>
        {report.not_reached ? (
          <div>
            <dt>Not reached</dt>
            <dd>{report.not_reached}</dd>
          </div>
        ) : null}
        {report.files_written.length ? (
          <div>
            <dt>Files written</dt>
            <dd>
              {report.files_written.map((f) => (
                <code class="file">{f}</code>
              ))}
            </dd>
          </div>
        ) : null}
      </dl>
    </section>
  );
};

/** One shell call with its nested calls as rows. */
export const ShellCallCard: FC<{ call: ShellCallView; sessionId: string }> = ({ call, sessionId }) => {
  const id = `${call.tool_call_id}-${call.attempt}`;
  const st = callState(call);
  return (
    <article class="card shell" id={`call-${id}`} aria-labelledby={`${id}-title`} data-call={call.tool_call_id} data-state={call.state}>
      <header class="card-head">
        <h2 id={`${id}-title`}>
          bash <code>{call.tool_call_id}</code>
          {call.attempt > 1 ? <span class="more"> (run {call.attempt})</span> : null}
        </h2>
        <Status kind={st.kind} text={st.text} />
        <span class="meta">
          <Time at={call.started_at} /> · {call.state === "running" ? "running…" : duration(call.duration_ms)}
        </span>
      </header>
      <details class="output" id={`${id}-script`} open>
        <summary>Script</summary>
        <pre class="script-text">
          <SafeText text={call.script} />
        </pre>
      </details>
      <div class="table-wrap">
        <table class="nested">
          <caption>{call.nested.length ? `Nested calls (${call.nested.length})` : call.state === "running" ? "Nested calls (none yet)" : "No nested calls"}</caption>
          {call.nested.length ? (
            <thead>
              <tr>
                <th scope="col">Tool</th>
                <th scope="col">Input</th>
                <th scope="col">Status</th>
                <th scope="col">Duration</th>
              </tr>
            </thead>
          ) : null}
          <tbody>
            {call.nested.map((n) => (
              <tr class="nested-row" data-status={n.status}>
                <th scope="row" data-label="Tool">
                  <code>{n.command}</code>
                </th>
                <td data-label="Input">
                  <code class="preview">
                    <SafeLine text={n.input_preview} />
                  </code>
                </td>
                <td data-label="Status">
                  <Status kind={n.status} text={nestedStatusText(n.status) + (n.replayed ? " (replayed)" : "")} />
                  {n.error ? (
                    <span class="err">
                      {" "}
                      <code>{n.error.code}</code> {n.error.message}
                    </span>
                  ) : null}
                </td>
                <td data-label="Duration">{duration(n.duration_ms)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {call.result ? (
        <>
          <Folded label="stdout" text={call.result.stdout} id={`${id}-stdout`} openUnder={8} />
          <Folded label="stderr" text={call.result.stderr} id={`${id}-stderr`} openUnder={4} />
          {call.result.tools ? <Report report={call.result.tools} /> : null}
        </>
      ) : null}
      {call.images.length ? (
        <div class="images" role="group" aria-label="Images tools saved">
          {call.images.map((p) => (
            <figure>
              <img src={`/console/files/${encodeURIComponent(sessionId)}?path=${encodeURIComponent(p)}`} alt={`Image a tool saved: ${p}`} loading="lazy" />
              <figcaption>
                <code>{p}</code>
              </figcaption>
            </figure>
          ))}
        </div>
      ) : null}
    </article>
  );
};

/** A one-line description of an event that is not a shell call. */
export function eventText(e: StoredEvent): string {
  const x = e as Record<string, unknown>;
  switch (e.type) {
    case "approval.requested":
      return `Approval requested for ${x.tool}${x.line ? ` (line ${x.line})` : ""}`;
    case "approval.answered":
      return `Approval answered: ${x.decision} for ${x.tool}${x.by ? ` by ${x.by} (${x.surface ?? "unknown surface"})` : ""}${x.replica ? ` on replica ${x.replica}` : ""}${x.warned ? `. Warned: ${x.warned}` : ""}`;
    case "change.made":
      return `${String(x.what ?? "").replace(/^./, (ch) => ch.toUpperCase())} by ${x.by} (${x.surface})${x.replica ? ` on replica ${x.replica}` : ""}`;
    case "script.saved":
      return `Script saved: ${x.name} v${x.version}`;
    case "script.archived":
      return `Script ${x.archived === false ? "unarchived" : "archived"}: ${x.name}`;
    case "trigger.run":
      return `Trigger ${x.trigger_name ?? x.trigger_id} ran (${x.reason}): ${x.status}`;
    case "step.replayed":
      return `Step ${x.step_id} had completed: its recorded result was returned`;
    case "step.resumed":
      return `Step ${x.step_id} runs again (attempt ${x.attempt}, after ${x.after})`;
    case "step.waiting":
      return `Step ${x.step_id} still waits for approval ${x.request_id}`;
    case "tool.progress":
      return `Progress of ${x.command}: ${x.progress}${x.total !== undefined ? ` of ${x.total}` : ""}${x.message ? ` — ${x.message}` : ""}`;
    case "question.asked":
      return `MCP server ${x.server} asked a question during ${x.command} (${x.question_id})`;
    case "question.answered":
      return `Question ${x.question_id}: ${x.action}${x.unanswered ? ` (${x.unanswered})` : ""}`;
    default: {
      const { type, session_id: _s, at: _a, seq: _q, ...rest } = x;
      const text = JSON.stringify(rest);
      return `${type} ${text.length > 200 ? text.slice(0, 199) + "…" : text}`;
    }
  }
}

/** The timeline region of a session. */
export const Timeline: FC<{ items: TimelineItem[]; sessionId: string }> = ({ items, sessionId }) =>
  items.length ? (
    <ol class="timeline">
      {items.map((it) =>
        it.kind === "shell" ? (
          <li class="t-shell">
            <ShellCallCard call={it.call} sessionId={sessionId} />
          </li>
        ) : (
          <li class={`t-event t-${it.event.type.replace(/[^a-z0-9]+/gi, "-")}`}>
            {/* Event text carries servers' words (progress messages, names): hidden characters shown escaped. */}
            <Time at={it.event.at} /> <span><SafeLine text={eventText(it.event)} /></span>
          </li>
        ),
      )}
    </ol>
  ) : (
    <p class="empty">This session has no events yet.</p>
  );
