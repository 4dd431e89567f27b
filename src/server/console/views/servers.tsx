/**
 * Servers and tools: each source's state (loaded, not loaded, failed with its log tail) and its
 * tools with signature, hints and risk; forms to add an MCP server, change its entry or remove it
 * (sent on to `/v1/servers`, checked like the config file's entries).
 *
 * See README → Console, Configuration, Approvals.
 */
import type { FC } from "hono/jsx";
import type { SourceView } from "../data.js";
import { whyText } from "../data.js";
import { Status } from "./parts.js";

const STATE: Record<string, { kind: string; text: string }> = {
  ready: { kind: "ok", text: "loaded" },
  not_loaded: { kind: "unfinished", text: "not loaded" },
  failed: { kind: "failed", text: "failed" },
};

/** What the add and change forms say while the API starts the server (console.js puts the name in). */
const PENDING = "Adding {name}: the server is started and its tools listed before it is added. A slow server takes a while (up to its start timeout); this page waits.";

const ENTRY_EXAMPLE = '{ "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"], "load": "on_demand" }';

/**
 * The form that adds an MCP server: a name and its entry as JSON (the config file's `mcpServers`
 * format). A refused form comes back with what was typed and the error (without the client script).
 */
export const AddServer: FC<{ name?: string; entry?: string; error?: string }> = ({ name, entry, error }) => (
  <section class="card server-form" aria-labelledby="add-server-title">
    <h2 id="add-server-title">Add an MCP server</h2>
    <p class="help">
      Checked like an <code>mcpServers</code> entry of the config file, and kept in the store, not in the file: every replica on the store
      runs it within about a second, it outlasts a restart, and a later edit of the config file keeps it (docs/deployment.md). The next shell
      call of every session sees it.
    </p>
    <form method="post" action="/console/servers" data-action="" data-pending={PENDING}>
      <label>
        Name <input name="name" required pattern="[A-Za-z0-9][A-Za-z0-9._\-]*" autocomplete="off" value={name} />
      </label>
      <label>
        Entry (JSON) <textarea name="entry" rows={3} required placeholder={ENTRY_EXAMPLE} spellcheck={false}>{entry}</textarea>
      </label>
      <button type="submit">Add server</button>
      {error ? (
        <p class="error form-error" role="alert">
          {error}
        </p>
      ) : null}
    </form>
  </section>
);

/**
 * The entry an MCP server runs with now; change (a new entry as JSON) and remove, for one MCP
 * server. Removing asks for a ticked box first (the browser holds the form until it is ticked,
 * and the server refuses a removal without it), as removing stops the server on every replica.
 */
const ServerActions: FC<{ name: string; entry?: string }> = ({ name, entry }) => {
  const path = `/console/servers/${encodeURIComponent(name)}`;
  return (
    <details class="server-actions">
      <summary>Entry, change or remove {name}</summary>
      {entry ? (
        <>
          <h3>Current entry</h3>
          <pre>{entry}</pre>
        </>
      ) : null}
      <form method="post" action={path} data-action="" data-pending={PENDING.replace("Adding {name}", `Changing ${name}`)}>
        <label>
          New entry for {name} (JSON; replaces the whole entry — write <code>env</code> and <code>headers</code> values again — and its process restarts)
          <textarea name="entry" rows={3} required placeholder={ENTRY_EXAMPLE} spellcheck={false}></textarea>
        </label>
        <button type="submit">Save entry</button>
      </form>
      <form method="post" action={`${path}/remove`} data-action="">
        <label class="confirm">
          <input type="checkbox" name="confirm" value="yes" required /> Remove {name} from every replica: its tools go away from every session's next shell call
        </label>
        <button type="submit" class="danger">
          Remove {name}
        </button>
      </form>
    </details>
  );
};

/** Every source with its tools. */
export const Servers: FC<{ sources: SourceView[] }> = ({ sources }) =>
  sources.length ? (
    <div class="cards">
      {sources.map((s) => {
        const st = STATE[s.state] ?? { kind: "unfinished", text: s.state };
        const id = `source-${s.name.replace(/[^A-Za-z0-9_-]/g, "_")}`;
        return (
          <section class="card source" id={id} aria-labelledby={`${id}-title`}>
            <header class="card-head">
              <h2 id={`${id}-title`}>{s.name}</h2>
              <span class="pill">{s.kind === "mcp" ? "MCP server" : s.kind}</span>
              <Status kind={st.kind} text={st.text} />
            </header>
            {s.failure ? (
              <p class="error" role="note">
                {s.failure}
              </p>
            ) : null}
            {s.logTail ? (
              <details class="output" open>
                <summary>End of its log</summary>
                <pre>{s.logTail}</pre>
              </details>
            ) : null}
            {s.state === "not_loaded" ? <p class="help">Loaded on demand: the first script that names it starts it.</p> : null}
            {s.kind === "mcp" ? <ServerActions name={s.name} entry={s.entry} /> : null}
            {s.tools.length ? (
              <div class="table-wrap">
                <table class="list tools">
                  <caption class="sr-only">Tools of {s.name}</caption>
                  <thead>
                    <tr>
                      <th scope="col">Tool</th>
                      <th scope="col">Risk</th>
                      <th scope="col">Hints</th>
                    </tr>
                  </thead>
                  <tbody>
                    {s.tools.map((t) => (
                      <tr>
                        <th scope="row" data-label="Tool">
                          <code>{t.command}</code>
                          <div class="sig">
                            <code>{t.signature}</code>
                          </div>
                          <div class="desc">{t.description.split("\n")[0]}</div>
                        </th>
                        <td data-label="Risk">
                          <span class={`risk risk-${t.risk}`}>{t.risk.replace(/_/g, " ")}</span>
                          {t.why ? <div class="why">{whyText(t.why)}</div> : null}
                        </td>
                        <td data-label="Hints">{t.hints.length ? t.hints.join(", ") : "none declared"}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            ) : s.state === "ready" ? (
              <p class="empty">No tools.</p>
            ) : null}
          </section>
        );
      })}
    </div>
  ) : (
    <p class="empty">No tool sources are configured.</p>
  );
