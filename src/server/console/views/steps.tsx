/**
 * The durable steps of a session on its console page (docs/sessions.md → Durable steps): each
 * step's id, state and runs. A step held for approval shows "held for approval"; once a person
 * answered, "answered" with what the agent must do (send the same step_id again: nothing runs
 * until then); a step that ran more than once says it was resumed.
 *
 * See README → Console.
 */
import type { FC } from "hono/jsx";
import type { StepView } from "../../steps.js";
import { Status, Time } from "./parts.js";

/** A step's state in words, and the colour of its label. */
function stepState(s: StepView): { kind: string; text: string } {
  if (s.status === "waiting_approval") return { kind: "stopped", text: "held for approval" };
  if (s.status === "answered") return { kind: "needs", text: "answered" };
  if (s.status === "replica_gone") return { kind: "failed", text: "replica gone" };
  if (s.status === "running") return { kind: "running", text: s.attempt > 1 ? "resumed, running" : "running" };
  return { kind: "completed", text: s.attempt > 1 ? "resumed, done" : "done" };
}

/** Which replica holds a running step (and what to do when it is gone), or which one ran it. */
const ReplicaLine: FC<{ s: StepView }> = ({ s }) => {
  const r = s.replica!;
  const where = r.host ? `${r.host}, pid ${r.pid}` : "no record left";
  if (s.status !== "running" && s.status !== "replica_gone") {
    return (
      <p class="step-note" data-replica={r.id}>
        Ran on replica <code>{r.id}</code> ({where}).
      </p>
    );
  }
  return r.live ? (
    <p class="step-note" data-replica={r.id}>
      On replica <code>{r.id}</code> ({where}).
    </p>
  ) : (
    <p class="step-note" data-replica={r.id}>
      Replica <code>{r.id}</code> ({where}) stopped{r.seen_at ? <> — last seen <Time at={r.seen_at} /></> : null}: nothing runs this step until the agent sends step {s.step_id} again to a live replica; what already ran is then replayed.
    </p>
  );
};

/** The session's steps, or nothing when it has none (a session without `step_id` calls). */
export const StepList: FC<{ steps: StepView[] }> = ({ steps }) =>
  steps.length ? (
    <section class="steps" aria-labelledby="steps-title">
      <h2 id="steps-title">Durable steps</h2>
      <div class="table-wrap">
        <table class="list">
          <caption class="sr-only">Durable steps of this session, in start order</caption>
          <thead>
            <tr>
              <th scope="col">Step</th>
              <th scope="col">State</th>
              <th scope="col">Runs</th>
              <th scope="col">Started</th>
              <th scope="col">Ended</th>
            </tr>
          </thead>
          <tbody>
            {steps.map((s) => {
              const state = stepState(s);
              return (
                <tr data-step={s.step_id} data-status={s.status}>
                  <th scope="row" data-label="Step">
                    <code>{s.step_id}</code> <span class="more">{s.tool_call_id}</span>
                  </th>
                  <td data-label="State">
                    <Status kind={state.kind} text={state.text} />
                    {s.status === "answered" ? <p class="step-note">Answered: nothing runs until the agent sends step {s.step_id} again; what already ran is then replayed, not run again.</p> : null}
                    {s.status === "waiting_approval" ? <p class="step-note">Waits for an answer on the Approvals page.</p> : null}
                    {s.replica ? <ReplicaLine s={s} /> : null}
                  </td>
                  <td data-label="Runs">{s.attempt}</td>
                  <td data-label="Started">
                    <Time at={s.started_at} />
                    {s.resumed_at ? (
                      <span class="more step-resumed">
                        {" "}
                        · latest run <Time at={s.resumed_at} />
                      </span>
                    ) : null}
                  </td>
                  <td data-label="Ended">
                    <Time at={s.ended_at} />
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  ) : null;
