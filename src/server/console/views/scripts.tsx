/**
 * Saved scripts (versions, a diff between two versions) and triggers (schedule or webhook, last
 * runs, enable/disable, run now).
 *
 * See README → Console; docs/sessions.md → Saved scripts, Triggers.
 */
import { runFailureText, runInterruptedText } from "../../../display/run-failure.js";
import { waitedText } from "../../../display/run-waits.js";
import { shownTime } from "../../../display/time.js";
import { diffLines } from "diff";
import type { FC } from "hono/jsx";
import type { ScriptRecord, ScriptVersion, TriggerRecord, TriggerRunRecord } from "../../../store/index.js";
import { Status, Time } from "./parts.js";

/** Every agent's saved scripts. */
export const ScriptList: FC<{ byAgent: Array<{ agent: string; scripts: ScriptRecord[] }> }> = ({ byAgent }) => {
  const any = byAgent.some((a) => a.scripts.length);
  if (!any) return <p class="empty">No saved scripts yet. A script saved with <code>tools scripts save</code> or the API appears here.</p>;
  return (
    <>
      {byAgent
        .filter((a) => a.scripts.length)
        .map((a) => (
          <section class="card" aria-labelledby={`agent-${a.agent}`}>
            <h2 id={`agent-${a.agent}`}>Agent {a.agent}</h2>
            <div class="table-wrap">
              <table class="list">
                <thead>
                  <tr>
                    <th scope="col">Script</th>
                    <th scope="col">Version</th>
                    <th scope="col">Description</th>
                    <th scope="col">Saved</th>
                  </tr>
                </thead>
                <tbody>
                  {a.scripts.map((s) => (
                    <tr>
                      <th scope="row" data-label="Script">
                        <a href={`/scripts/${encodeURIComponent(a.agent)}/${encodeURIComponent(s.name)}`}>{s.name}</a>
                        {s.archived ? <span class="pill"> archived</span> : null}
                      </th>
                      <td data-label="Version">v{s.version}</td>
                      <td data-label="Description">{s.description}</td>
                      <td data-label="Saved">
                        <Time at={s.updated_at} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </section>
        ))}
    </>
  );
};

/** A line diff of two texts, `-` and `+` lines marked (and named for screen readers). */
export const Diff: FC<{ from: ScriptVersion; to: ScriptVersion }> = ({ from, to }) => {
  const parts = diffLines(from.body, to.body);
  const changed = parts.some((p) => p.added || p.removed);
  return (
    <figure class="diff-wrap">
      <figcaption>
        Changes from v{from.version} to v{to.version}
        {changed ? "" : ": the bodies are the same"}
      </figcaption>
      <pre class="diff">
        {parts.flatMap((p) =>
          p.value
            .replace(/\n$/, "")
            .split("\n")
            .map((line) =>
              p.added ? (
                <ins class="add">
                  <span class="sr-only">added: </span>+ {line}
                  {"\n"}
                </ins>
              ) : p.removed ? (
                <del class="del">
                  <span class="sr-only">removed: </span>- {line}
                  {"\n"}
                </del>
              ) : (
                <span class="same">
                  {"  "}
                  {line}
                  {"\n"}
                </span>
              ),
            ),
        )}
      </pre>
    </figure>
  );
};

/** One script: its versions, the current body, a diff between two chosen versions. */
export const ScriptPage: FC<{ script: ScriptRecord; versions: ScriptVersion[]; from?: ScriptVersion; to?: ScriptVersion }> = ({ script, versions, from, to }) => (
  <>
    <section class="card" aria-labelledby="versions-h">
      <h2 id="versions-h">Versions</h2>
      <div class="table-wrap">
        <table class="list">
          <thead>
            <tr>
              <th scope="col">Version</th>
              <th scope="col">Saved</th>
              <th scope="col">By</th>
              <th scope="col">Description</th>
            </tr>
          </thead>
          <tbody>
            {[...versions].reverse().map((v) => (
              <tr>
                <th scope="row" data-label="Version">
                  v{v.version}
                </th>
                <td data-label="Saved">
                  <Time at={v.created_at} />
                </td>
                <td data-label="By">{v.created_by}</td>
                <td data-label="Description">{v.description}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {versions.length > 1 ? (
        <form method="get" class="diff-form">
          <label>
            From version{" "}
            <select name="from">
              {versions.map((v) => (
                <option value={String(v.version)} selected={v.version === from?.version}>
                  v{v.version}
                </option>
              ))}
            </select>
          </label>
          <label>
            To version{" "}
            <select name="to">
              {versions.map((v) => (
                <option value={String(v.version)} selected={v.version === to?.version}>
                  v{v.version}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" class="secondary">
            Show diff
          </button>
        </form>
      ) : null}
      {from && to ? <Diff from={from} to={to} /> : null}
    </section>
    <section class="card" aria-labelledby="current-h">
      <h2 id="current-h">
        v{script.version} {script.archived ? "(archived)" : ""}
      </h2>
      <p>{script.description}</p>
      <section aria-labelledby="body-h">
        <h3 id="body-h">Body (v{script.version})</h3>
        <pre class="script-text">{script.body}</pre>
      </section>
      <section aria-labelledby="schema-h">
        <h3 id="schema-h">Input schema</h3>
        <details class="output">
          <summary>Show the input schema (JSON Schema of the script's input)</summary>
          <pre>{JSON.stringify(script.input_schema, null, 2)}</pre>
        </details>
      </section>
    </section>
  </>
);

/** Why a run failed or stopped, in words (display/run-failure.ts); why a skipped run did not start. */
const RunFailure: FC<{ run: TriggerRunRecord }> = ({ run }) => {
  if (run.status === "skipped") return <p class="run-skipped">Did not start: {run.skipped?.reason ?? "an earlier run waits for approval"}.</p>;
  const text = runFailureText(run);
  return text ? <p class="err run-failure">{text.slice(0, 500)}</p> : null;
};

function runKind(status: TriggerRunRecord["status"]): string {
  return status === "ok" || status === "running" || status === "stopped" || status === "skipped" ? status : "failed";
}

/** The triggers with their last runs and their buttons. */
export const TriggerList: FC<{ triggers: Array<{ trigger: Omit<TriggerRecord, "secret_hash">; runs: TriggerRunRecord[] }> }> = ({ triggers }) =>
  triggers.length ? (
    <div class="cards">
      {triggers.map(({ trigger: t, runs }) => (
        <article class="card trigger" id={`trigger-${t.id}`} aria-labelledby={`${t.id}-title`}>
          <header class="card-head">
            <h2 id={`${t.id}-title`}>{t.name}</h2>
            <Status kind={t.enabled ? "ok" : "unfinished"} text={t.enabled ? "enabled" : "disabled"} />
          </header>
          <dl class="facts">
            <div>
              <dt>{t.kind === "schedule" ? "Schedule" : "Webhook"}</dt>
              <dd>
                {t.kind === "schedule" ? (
                  <>
                    <code>{t.cron}</code> ({t.timezone ?? "UTC"}){t.next_run_at ? <> · next <Time at={t.next_run_at} /></> : null}
                  </>
                ) : (
                  <code>POST /v1/webhooks/{t.id}</code>
                )}
              </dd>
            </div>
            <div>
              <dt>Runs</dt>
              <dd>
                script <code>{t.script}</code> of agent {t.agent_id}
              </dd>
            </div>
            <div>
              <dt>Acts for</dt>
              <dd>{t.principal ?? `agent ${t.agent_id}`} (whose sign-ins its calls use)</dd>
            </div>
          </dl>
          <h3>Last runs</h3>
          {runs.length ? (
            <ul class="runs">
              {runs.map((r) => (
                <li>
                  <Status kind={runKind(r.status)} text={r.status} /> <Time at={r.started_at} /> ({r.reason}){" "}
                  <a href={`/sessions/${encodeURIComponent(r.session_id)}`} aria-label={`Timeline of ${t.name}'s run of ${shownTime(r.started_at)}`}>
                    timeline
                  </a>
                  {(r.approvals ?? []).map((a) => (
                    <p class="run-wait" data-request={a.request_id}>
                      {waitedText(a)}
                    </p>
                  ))}
                  <RunFailure run={r} />
                  {r.interrupted_at?.length ? <p class="run-wait">{runInterruptedText(r)}</p> : null}
                </li>
              ))}
            </ul>
          ) : (
            <p class="empty">Not run yet.</p>
          )}
          <div class="actions">
            <form method="post" action={`/console/triggers/${encodeURIComponent(t.id)}/enabled`} data-action="">
              <input type="hidden" name="enabled" value={t.enabled ? "false" : "true"} />
              <button type="submit" class="secondary">
                {t.enabled ? "Disable" : "Enable"}
              </button>
            </form>
            <form method="post" action={`/console/triggers/${encodeURIComponent(t.id)}/run`} data-action="" class="run-form">
              {t.kind === "webhook" ? (
                <label>
                  Payload (JSON)
                  <textarea name="payload" rows={2} placeholder='{ "ref": "main" }' spellcheck={false}></textarea>
                  <span class="help">Optional: the body a delivery would carry (empty is {"{}"}).</span>
                </label>
              ) : null}
              <button type="submit" class="primary">
                Run now
              </button>
            </form>
          </div>
        </article>
      ))}
    </div>
  ) : (
    <p class="empty">No triggers. Add them in the config's <code>triggers</code> or with the API.</p>
  );
