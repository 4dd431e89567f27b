/**
 * The console's routes: pages (server-rendered with hono's JSX), the live event stream, the
 * images tools saved, and the forms. Pages read the host and its store; every form that changes
 * something is sent on to the HTTP API with the signed-in token, so an answer given here goes
 * through exactly the checks of `POST /v1/sessions/{id}/tool-approvals`.
 *
 * Each page answers `?region=1` with only its live region (`<div id="live">`), which the client
 * script (static/console.js) fetches again when a live message concerns it.
 *
 * See README → Console.
 */
import type { Context, Hono, MiddlewareHandler } from "hono";
import { Hono as HonoApp } from "hono";
import { html } from "hono/html";
import type { Child } from "hono/jsx";
import { streamSSE } from "hono/streaming";
import { showInput } from "../../display/show-input.js";
import { CONSOLE_ENV, tokenMatches } from "../http.js";
import { clientAddress, signInBlocked, type Transport } from "../reach.js";
import { TokenGuard } from "../token-guard.js";
import type { Host } from "../host.js";
import { localPath, noteSig, requireSignIn, signedInToken, signedNote, signIn, signOut, crossSite, staleSignIn } from "./auth.js";
import { agentIds, approvalCards, isToolImage, sessionTimeline, sourceViews } from "./data.js";
import { holdOpen, LiveHub } from "./live.js";
import { assets } from "./static.js";
import { ANSWERS, Inbox } from "./views/inbox.js";
import { contentOf, Questions } from "./views/questions.js";
import type { QuestionBox } from "../questions.js";
import { LoginPage, Page, type Section } from "./views/layout.js";
import { ScriptList, ScriptPage, TriggerList } from "./views/scripts.js";
import { AddServer, Servers } from "./views/servers.js";
import { Replicas } from "./views/replicas.js";
import { liveReplicas } from "../shared-state.js";
import { triggerSessionId } from "../trigger-run.js";
import { SessionList, Timeline } from "./views/sessions.js";
import { StepList } from "./views/steps.js";
import { goneStepsBySession, sessionSteps } from "../steps.js";

/** Options of {@link createConsole}. */
export interface ConsoleOptions {
  /** The accepted API tokens (the same as the HTTP API's). */
  tokens: string[];
  /** The HTTP API app: the console's forms are sent to it. */
  api: Hono;
  /** How requests reach the server (TLS here, a believed proxy): decides whether sign-in can work. */
  transport?: Transport;
  /** Wrong tokens per source address, shared with the API (token-guard.ts). */
  guard?: TokenGuard;
  /** Questions MCP servers asked during the API's shell calls, on any replica (questions.ts). */
  questions?: QuestionBox;
  /** The live updates, shared with the API's event streams (default: the console's own). */
  hub?: LiveHub;
}

/** Content types of the images tools save (shell/commands/tools/output.ts). */
const IMAGE_TYPES: Record<string, string> = { png: "image/png", jpg: "image/jpeg", jpeg: "image/jpeg", gif: "image/gif", webp: "image/webp", svg: "image/svg+xml" };

const PAGE_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/** Headers every console response carries: no framing, no sniffing, a strict content policy. */
const secure: MiddlewareHandler = async (c, next) => {
  await next();
  if (!c.res.headers.has("Content-Security-Policy")) c.res.headers.set("Content-Security-Policy", PAGE_CSP);
  c.res.headers.set("X-Content-Type-Options", "nosniff");
  c.res.headers.set("X-Frame-Options", "DENY");
  c.res.headers.set("Referrer-Policy", "same-origin");
};

/**
 * The console as a Hono app to mount at `/` of the HTTP API app. Its middleware is attached to
 * each route (a `*` middleware of a mounted app would run for the API's routes too).
 */
export function createConsole(host: Host, options: ConsoleOptions): HonoApp {
  const app = new HonoApp();
  const questions = options.questions;
  const hub = options.hub ?? new LiveHub(host, questions ? async () => (await questions.pending()).map((q) => q.question_id) : undefined);
  const transport: Transport = options.transport ?? { tls: false, trustProxy: false };
  const tokenGuard = options.guard ?? new TokenGuard();
  const from = (c: Context) => clientAddress(c, transport);
  const guard = [secure, requireSignIn(options.tokens, tokenGuard, from)] as const;

  /** A whole page, or only its live region for `?region=1`. */
  const render = async (c: Context, page: { title: string; section?: Section; live?: string }, body: Child) => {
    if (c.req.query("region")) return c.html(<>{body}</>);
    const pending = await hub.pendingCount();
    const failed = c.req.query("kind") === "error";
    const note = signedNote(c.req.query("note"), c.req.query("sig"), failed);
    return c.html(
      html`<!doctype html>${(
        <Page title={page.title} section={page.section} pending={pending} live={page.live}>
          {note ? (
            failed ? (
              <p class="error note-error" role="alert">
                {note.slice(0, 300)}
              </p>
            ) : (
              <p class="note">{note.slice(0, 300)}</p>
            )
          ) : null}
          {body}
        </Page>
      )}`,
    );
  };

  /** Sends a form on to the API with the signed-in token: ok, or the API's error message. */
  const callApi = async (c: Context, method: string, path: string, body: unknown): Promise<{ ok: boolean; status: number; error?: string; json?: unknown }> => {
    const token = signedInToken(c, options.tokens)!;
    // CONSOLE_ENV: the API records the console as the surface (a network request cannot set it),
    // and logs the browser's address as the client.
    const res = await options.api.request(
      path,
      {
        method,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      },
      { ...CONSOLE_ENV, toolshellClient: from(c) },
    );
    const json = (await res.json().catch(() => ({}))) as { error?: { message?: string } };
    return { ok: res.ok, status: res.status, error: res.ok ? undefined : (json.error?.message ?? `the API answered ${res.status}`), json };
  };

  /**
   * The answer to a form: JSON for the client script (with `to`, the page to show with the note),
   * a redirect with a signed note for a plain form; a failure's note is shown as an error.
   */
  const reply = (c: Context, result: { ok: boolean; status: number; error?: string }, done: string, back: string) => {
    const message = result.ok ? done : result.error!;
    const to = `${back}?note=${encodeURIComponent(message)}&sig=${noteSig(message, !result.ok)}${result.ok ? "" : "&kind=error"}`;
    if ((c.req.header("accept") ?? "").includes("application/json")) return c.json({ ok: result.ok, message, to }, result.ok ? 200 : (result.status as 400));
    return c.redirect(to, 303);
  };

  // ── sign-in ─────────────────────────────────────────────────────────────────
  app.get("/login", secure, (c) => {
    const next = localPath(c.req.query("next"));
    if (signedInToken(c, options.tokens)) return c.redirect(next, 303);
    // A sign-in whose token was removed or rotated since: say so, and forget it.
    const stale = staleSignIn(c, options.tokens);
    if (stale) signOut(c);
    const error = stale ? "Your sign-in is no longer accepted: its token was removed or rotated on this server, or no longer has the operator role. Sign in with a current operator token." : undefined;
    return c.html(html`<!doctype html>${<LoginPage next={next} blocked={signInBlocked(c, transport)} {...(error ? { error } : {})} />}`);
  });

  app.post("/login", secure, async (c) => {
    if (crossSite(c)) return c.text("refused: the form came from another site", 403);
    const form = await c.req.parseBody();
    const token = typeof form.token === "string" ? form.token.trim() : "";
    const next = localPath(typeof form.next === "string" ? form.next : undefined);
    // Wrong tokens slow their sender down (token-guard.ts): past the first few, it waits.
    const judged = token ? tokenGuard.weigh(from(c), () => options.tokens.length > 0 && tokenMatches(token, options.tokens)) : { ok: false, wait: 0 };
    const wait = judged.wait;
    if (wait > 0) {
      c.header("Retry-After", String(wait));
      return c.html(html`<!doctype html>${<LoginPage next={next} error={`Too many wrong tokens from this address: try again in ${wait} s.`} blocked={signInBlocked(c, transport)} />}`, 429);
    }
    if (!judged.ok) {
      return c.html(html`<!doctype html>${<LoginPage next={next} error="That is not one of this server's API tokens with the operator role (only those sign in to the console)." blocked={signInBlocked(c, transport)} />}`, 401);
    }
    signIn(c, token);
    return c.redirect(next, 303);
  });

  app.post("/logout", secure, (c) => {
    if (crossSite(c)) return c.text("refused: the form came from another site", 403);
    signOut(c);
    return c.redirect("/login", 303);
  });

  app.get("/console/static/:name", (c) => {
    const a = assets().get(c.req.param("name"));
    if (!a) return c.text("not found", 404);
    c.header("Content-Type", a.type);
    c.header("Cache-Control", c.req.query("v") === a.hash ? "public, max-age=31536000, immutable" : "no-cache");
    c.header("X-Content-Type-Options", "nosniff");
    return c.body(a.body);
  });

  // ── pages ───────────────────────────────────────────────────────────────────
  app.get("/", ...guard, async (c) => {
    const cards = (await approvalCards(host)).map((card) => ({ card, shown: showInput(card.request.input, { pretty: true }) }));
    const asked = questions ? await questions.pending() : [];
    return (
      render(c, { title: "Approvals", section: "approvals", live: "inbox" }, <>
        <Questions questions={asked} />
        {cards.length || !asked.length ? <Inbox cards={cards} /> : null}
      </>)
    );
  });

  app.get("/sessions", ...guard, async (c) => {
    const pending = new Map<string, number>();
    for (const r of await host.store.pendingApprovals()) pending.set(r.session_id, (pending.get(r.session_id) ?? 0) + 1);
    const triggers = new Map((await host.store.listTriggers()).map((t) => [triggerSessionId(t), t.name]));
    const gone = await goneStepsBySession(host.store);
    return render(c, { title: "Sessions", section: "sessions", live: "sessions" }, <SessionList sessions={await host.store.listSessions({ limit: 200 })} pendingBySession={pending} goneBySession={gone} triggers={triggers} />);
  });

  app.get("/sessions/:id", ...guard, async (c) => {
    const id = c.req.param("id");
    const rec = await host.store.getSession(id);
    if (!rec) return render(c, { title: "No such session", section: "sessions" }, <p class="empty">There is no session {id}.</p>);
    // A trigger's session is named after its trigger (people never meet the `trg_trg_…` id).
    const trigger = id.startsWith("trg_") ? (await host.store.listTriggers()).find((t) => triggerSessionId(t) === id) : undefined;
    const title = trigger ? `Trigger ${trigger.name}` : `Session ${id}`;
    const steps = await sessionSteps(host.store, id);
    return render(
      c,
      { title, section: "sessions", live: `session:${id}` },
      <>
        <StepList steps={steps} />
        <Timeline items={await sessionTimeline(host, id, steps)} sessionId={id} />
      </>,
    );
  });

  app.get("/scripts", ...guard, async (c) => {
    const byAgent = await Promise.all((await agentIds(host)).map(async (agent) => ({ agent, scripts: await host.store.listScripts(agent, { includeArchived: true }) })));
    return render(c, { title: "Saved scripts", section: "scripts", live: "scripts" }, <ScriptList byAgent={byAgent} />);
  });

  app.get("/scripts/:agent/:name", ...guard, async (c) => {
    const agent = c.req.param("agent");
    const script = await host.store.getScript(agent, c.req.param("name"));
    if (!script) return render(c, { title: "No such script", section: "scripts" }, <p class="empty">Agent {agent} has no script {c.req.param("name")}.</p>);
    const versions = await host.store.scriptVersions(agent, script.id);
    const pick = (q: string | undefined, fallback: number) => versions.find((v) => v.version === Number(q)) ?? versions.find((v) => v.version === fallback);
    const to = versions.length > 1 ? pick(c.req.query("to"), script.version) : undefined;
    const from = versions.length > 1 ? pick(c.req.query("from"), (to?.version ?? script.version) - 1) : undefined;
    // No live refresh here: it would reset the version pickers while a person uses them.
    return render(c, { title: `Script ${script.name}`, section: "scripts" }, <ScriptPage script={script} versions={versions} from={from} to={to} />);
  });

  app.get("/triggers", ...guard, async (c) => {
    const triggers = await Promise.all((await host.store.listTriggers()).map(async ({ secret_hash: _s, ...trigger }) => ({ trigger, runs: await host.store.listTriggerRuns(trigger.id, { limit: 5 }) })));
    return render(c, { title: "Triggers", section: "triggers", live: "triggers" }, <TriggerList triggers={triggers} />);
  });

  // No live refresh here: it would empty the server forms while a person fills them in.
  const renderServers = async (c: Context, add: Child) =>
    render(
      c,
      { title: "Servers and tools", section: "servers" },
      <>
        {add}
        <Replicas replicas={await liveReplicas(host.store).catch(() => [])} self={host.store.holder} />
        <Servers sources={sourceViews(host)} />
      </>,
    );
  app.get("/servers", ...guard, async (c) => renderServers(c, <AddServer />));

  // ── live updates and files ──────────────────────────────────────────────────
  // `?session=ID`: the session page also hears of events another replica wrote (LiveHub.watch).
  app.get("/console/events", ...guard, async (c) =>
    streamSSE(c, async (stream) => {
      const off = hub.subscribe((msg) => {
        void stream.writeSSE({ event: "change", data: JSON.stringify(msg) }).catch(() => {});
      });
      const sid = c.req.query("session");
      const unwatch = sid && (await host.store.getSession(sid)) ? hub.watch(sid) : undefined;
      try {
        await stream.writeSSE({ event: "change", data: JSON.stringify({ kind: "hello", pending: await hub.pendingCount() }) });
        await holdOpen(stream);
      } finally {
        unwatch?.();
        off();
      }
    }),
  );

  app.get("/console/files/:session", ...guard, async (c) => {
    const sid = c.req.param("session");
    const p = c.req.query("path") ?? "";
    if (!await host.store.getSession(sid) || !isToolImage(p)) return c.text("not found", 404);
    // The console is an operator's (signed in with an operator token): it reaches every session,
    // whoever owns it (docs/security.md "Who acts for whom").
    const session = host.session(sid, {}, { anyOwner: true });
    await session.ready;
    const { fs, cwd } = session.engine;
    const full = fs.resolvePath(cwd, p);
    if (!isToolImage(full)) return c.text("not found", 404);
    let bytes: Uint8Array;
    try {
      bytes = await fs.readFileBuffer(full);
    } catch {
      return c.text("not found", 404);
    }
    const ext = full.slice(full.lastIndexOf(".") + 1).toLowerCase();
    c.header("Content-Type", IMAGE_TYPES[ext] ?? "application/octet-stream");
    c.header("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; sandbox");
    return c.body(new Uint8Array(bytes));
  });

  // ── forms (sent on to the API) ──────────────────────────────────────────────
  app.post("/console/answer", ...guard, async (c) => {
    const form = await c.req.parseBody();
    const sid = String(form.session_id ?? "");
    const rid = String(form.request_id ?? "");
    const decision = String(form.decision ?? "");
    const label = ANSWERS.find((a) => a.decision === decision)?.label ?? decision;
    const pending = (await host.store.pendingApprovals()).find((r) => r.id === rid);
    if (!sid || !rid) return reply(c, { ok: false, status: 400, error: "the answer names no session or request: answer from an approval card" }, "", "/");
    const tool = pending?.tool ?? rid;
    const result = await callApi(c, "POST", `/v1/sessions/${encodeURIComponent(sid)}/tool-approvals`, { decisions: [{ request_id: rid, decision }] });
    return reply(c, result, `${label}: ${tool}`, "/");
  });

  app.post("/console/questions", ...guard, async (c) => {
    const form = await c.req.parseBody();
    const sid = String(form.session_id ?? "");
    const qid = String(form.question_id ?? "");
    const action = String(form.reply ?? "");
    const q = (await questions?.pending(sid))?.find((x) => x.question_id === qid);
    if (!q) return reply(c, { ok: false, status: 404, error: `no question ${qid} waits in session ${sid} (answered already, or its call ended)` }, "", "/");
    const sent = action === "accept" ? { question_id: qid, action, content: contentOf(q.requested_schema, form) } : { question_id: qid, action };
    const result = await callApi(c, "POST", `/v1/sessions/${encodeURIComponent(sid)}/questions`, sent);
    return reply(c, result, action === "accept" ? `Answered the question of MCP server ${q.server}` : `Declined the question of MCP server ${q.server}`, "/");
  });

  app.post("/console/triggers/:id/enabled", ...guard, async (c) => {
    const id = c.req.param("id");
    const enabled = String((await c.req.parseBody()).enabled ?? "") === "true";
    const t = await host.store.getTrigger(id);
    const result = await callApi(c, "PATCH", `/v1/agents/${encodeURIComponent(t?.agent_id ?? "-")}/triggers/${encodeURIComponent(id)}`, { enabled });
    return reply(c, result, `${enabled ? "Enabled" : "Disabled"} trigger ${t?.name ?? id}`, "/triggers");
  });

  app.post("/console/triggers/:id/run", ...guard, async (c) => {
    const id = c.req.param("id");
    const t = await host.store.getTrigger(id);
    if (!t) return reply(c, { ok: false, status: 404, error: `no trigger ${id}` }, "", "/triggers");
    // A webhook trigger's run may carry a payload, as a delivery would (README "Triggers").
    const text = String((await c.req.parseBody()).payload ?? "").trim();
    let payload: unknown = {};
    try {
      if (text) payload = JSON.parse(text);
    } catch (err) {
      return reply(c, { ok: false, status: 400, error: `The payload is not JSON: ${(err as Error).message}. Nothing ran.` }, "", "/triggers");
    }
    // The run may take as long as its script: it is started, and the page follows it live.
    void callApi(c, "POST", `/v1/agents/${encodeURIComponent(t.agent_id)}/triggers/${encodeURIComponent(id)}/run`, { payload }).catch(() => {});
    return reply(c, { ok: true, status: 200 }, `Started trigger ${t.name}; its run appears under Last runs.`, "/triggers");
  });

  // Servers: the forms go to /v1/servers, whose checks are those of the config file's entries.
  /** What an added or changed server did on starting, when it failed: the note says so beside "Added". */
  const startedAs = (listing: unknown): string => {
    const l = listing as { state?: string; message?: string } | undefined;
    return l?.state === "failed" ? `, but it failed to start: ${l.message ?? "see its card below"}` : "";
  };
  /** The form's `entry` as JSON, or the reason it is not. */
  const entryOf = async (c: Context): Promise<{ entry?: unknown; error?: string; name: string; text: string }> => {
    const form = await c.req.parseBody();
    const name = String(form.name ?? c.req.param("name") ?? "").trim();
    const text = String(form.entry ?? "");
    try {
      return { name, text, entry: JSON.parse(text) };
    } catch (err) {
      return { name, text, error: `the entry of ${name || "the server"} is not JSON: ${(err as Error).message}` };
    }
  };

  app.post("/console/servers", ...guard, async (c) => {
    const { name, entry, error, text } = await entryOf(c);
    const result = error ? { ok: false, status: 400, error } : await callApi(c, "POST", "/v1/servers", { name, entry });
    // Refused, for a plain form: the page again with what was typed and the error under the form.
    if (!result.ok && !(c.req.header("accept") ?? "").includes("application/json")) {
      c.status(400);
      return renderServers(c, <AddServer name={name} entry={text} error={result.error} />);
    }
    return reply(c, result, `Added server ${name}${startedAs(result.json)}`, "/servers");
  });

  app.post("/console/servers/:name", ...guard, async (c) => {
    const { name, entry, error } = await entryOf(c);
    if (error) return reply(c, { ok: false, status: 400, error }, "", "/servers");
    const result = await callApi(c, "PUT", `/v1/servers/${encodeURIComponent(name)}`, { entry });
    return reply(c, result, `Changed server ${name}${startedAs(result.json)}`, "/servers");
  });

  app.post("/console/servers/:name/remove", ...guard, async (c) => {
    const name = c.req.param("name");
    const form = await c.req.parseBody();
    if (form.confirm !== "yes") return reply(c, { ok: false, status: 400, error: `Tick the box to remove ${name}: nothing was removed.` }, "", "/servers");
    return reply(c, await callApi(c, "DELETE", `/v1/servers/${encodeURIComponent(name)}`, {}), `Removed server ${name}`, "/servers");
  });

  return app;
}
