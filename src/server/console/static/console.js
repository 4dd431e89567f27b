// toolshell console: live updates and forms without reloading the page.
// The page works without this script (plain links and forms); with it, the page's live region
// (#live) is fetched again (`?region=1`) when the server-sent event stream says it changed, and
// the answer buttons send their form in the background.
/* global document, window, location, fetch, EventSource, FormData, URL, URLSearchParams, setTimeout, clearTimeout, CustomEvent, CSS */

// The login page: the browser knows best whether it keeps a Secure cookie here (a secure context).
const insecure = document.getElementById("insecure-origin");
if (insecure) insecure.hidden = window.isSecureContext;

const live = document.getElementById("live");
const status = document.getElementById("status");
const badge = document.getElementById("pending-count");
const kind = live ? live.dataset.live || "" : "";

/** Says `text` in the status line (announced by screen readers). */
function say(text) {
  if (!status) return;
  status.textContent = "";
  // A new text node after a tick makes screen readers announce the same text twice too.
  setTimeout(() => {
    status.textContent = text;
  }, 30);
}

function setPending(n) {
  if (!badge || typeof n !== "number") return;
  badge.textContent = String(n);
  badge.dataset.count = String(n);
  badge.setAttribute("aria-label", `${n} pending`);
}

let inFlight = false;
let again = false;
let timer;
// After an answer, where keyboard focus goes once the region is fetched again: the ids of the
// cards that followed the answered one, then those before it (nearest first).
let focusNext = null;

/** The cards of the live region after and before `card`, nearest first, for {@link focusNext}. */
function cardsAround(card) {
  const ids = [...live.querySelectorAll("article.card[id]")].map((c) => c.id);
  const at = ids.indexOf(card.id);
  return at < 0 ? [] : [...ids.slice(at + 1), ...ids.slice(0, at).reverse()];
}

/** What a keyboard can focus inside a card. */
const FOCUSABLE = "a[href], button, input, select, textarea, summary, [tabindex]";

/** Fetches the live region again and swaps it in, keeping open/closed sections and focus. */
async function refresh() {
  if (!live || !kind) return;
  if (inFlight) {
    again = true;
    return;
  }
  inFlight = true;
  try {
    const url = new URL(location.href);
    url.searchParams.set("region", "1");
    url.searchParams.delete("note");
    const res = await fetch(url, { headers: { Accept: "text/html" }, credentials: "same-origin", cache: "no-store" });
    if (res.status === 401) {
      location.href = `/login?next=${encodeURIComponent(location.pathname)}`;
      return;
    }
    if (!res.ok) return;
    const text = await res.text();
    const open = new Map();
    for (const d of live.querySelectorAll("details[id]")) open.set(d.id, d.open);
    const kept = keepForms();
    const active = document.activeElement;
    const focusId = active && live.contains(active) && active.id ? active.id : undefined;
    // A control without an id (a card's button): the same control of the same card after the swap.
    const holder = active && live.contains(active) && !focusId ? active.closest("[id]") : null;
    const holderId = holder && live.contains(holder) ? holder.id : undefined;
    const spot = holderId ? [...holder.querySelectorAll(FOCUSABLE)].indexOf(active) : -1;
    const lostFocus = active && live.contains(active) && !focusId && !holderId;
    live.innerHTML = text;
    for (const [id, isOpen] of open) {
      const d = document.getElementById(id);
      if (d && d.tagName === "DETAILS") d.open = isOpen;
    }
    kept();
    if (focusNext) {
      // The answered card is gone: the next card still shown takes focus (the page, when none is).
      const ids = focusNext;
      focusNext = null;
      const next = ids.map((id) => document.getElementById(id)).find((el) => el && live.contains(el));
      (next || document.getElementById("main"))?.focus();
    } else if (focusId && document.getElementById(focusId)) document.getElementById(focusId).focus();
    else if (holderId && document.getElementById(holderId)) {
      const card = document.getElementById(holderId);
      (card.querySelectorAll(FOCUSABLE)[spot] || card).focus();
    } else if (lostFocus || holderId) document.getElementById("main")?.focus();
    live.dispatchEvent(new CustomEvent("console:updated", { bubbles: true }));
  } catch {
    // The next message or reconnect fetches again.
  } finally {
    inFlight = false;
    if (again) {
      again = false;
      schedule(50);
    }
  }
}

function schedule(ms) {
  clearTimeout(timer);
  timer = setTimeout(refresh, ms);
}

/** True when a live message changes what this page shows. */
function concerns(msg) {
  // On (re)connecting: whatever changed between the page's render and now is fetched once.
  if (msg.kind === "hello") return true;
  if (kind === "inbox") return msg.kind === "approvals";
  if (kind === "sessions") return msg.kind === "session" || msg.kind === "approvals";
  if (kind.startsWith("session:")) return msg.kind === "session" && msg.session_id === kind.slice("session:".length);
  if (kind === "triggers") return msg.kind === "session" && (msg.type === "trigger.run" || String(msg.session_id).startsWith("trg_"));
  if (kind === "scripts") return msg.kind === "session" && String(msg.type).startsWith("script.");
  return false;
}

function listen() {
  // A session page asks to hear of that session's events written on other replicas too.
  const watched = kind.startsWith("session:") ? `?session=${encodeURIComponent(kind.slice("session:".length))}` : "";
  const es = new EventSource(`/console/events${watched}`);
  es.addEventListener("change", (ev) => {
    let msg;
    try {
      msg = JSON.parse(ev.data);
    } catch {
      return;
    }
    if ("pending" in msg) setPending(msg.pending);
    if (msg.kind === "hello") document.documentElement.dataset.live = "connected";
    if (concerns(msg)) schedule(kind === "sessions" ? 300 : 60);
  });
  es.addEventListener("error", () => {
    document.documentElement.dataset.live = "reconnecting";
    if (es.readyState === EventSource.CLOSED) {
      // Refused (signed out, or the server went away): check once, then try again later.
      refresh();
      setTimeout(listen, 5000);
    }
  });
}

/**
 * What the forms of the live region hold that a refresh would lose (typed values, a form's note),
 * by form action; the returned function puts it back into the new region's forms.
 */
function keepForms() {
  const saved = [...live.querySelectorAll("form[data-action]")].map((f) => ({
    action: f.getAttribute("action"),
    values: [...f.querySelectorAll("textarea, input:not([type=hidden])")].map((el) => [el.name, el.value]),
    note: f.querySelector(".form-note, .form-error"),
  }));
  return () => {
    for (const s of saved) {
      const f = live.querySelector(`form[action="${CSS.escape(s.action)}"]`);
      if (!f) continue;
      for (const [name, value] of s.values) if (name && f.elements[name]) f.elements[name].value = value;
      if (s.note) f.append(s.note);
    }
  };
}

/** Shows a form's own note under it: what happened (`note`), what went wrong (`error`), or what it waits for (`pending`). */
function formNote(form, kind, text) {
  for (const old of form.querySelectorAll(".form-note, .form-error")) old.remove();
  form.removeAttribute("aria-busy");
  if (!kind) return;
  const p = document.createElement("p");
  p.className = kind === "error" ? "error form-error" : kind === "pending" ? "pending form-note" : "note form-note";
  p.setAttribute("role", kind === "error" ? "alert" : "status");
  p.textContent = text;
  if (kind === "pending") form.setAttribute("aria-busy", "true");
  form.append(p);
}

/** Sends a form in the background and says what happened, beside the form and in the status line. */
async function send(form, submitter) {
  const data = new FormData(form, submitter || undefined);
  const card = "answer" in form.dataset ? form.closest("article.card[id]") : null;
  const around = card ? cardsAround(card) : null;
  const buttons = [...form.querySelectorAll("button")];
  for (const b of buttons) b.disabled = true;
  const pending = form.dataset.pending;
  const name = form.elements.name ? form.elements.name.value : "";
  formNote(form, pending ? "pending" : undefined, pending ? pending.replace("{name}", name) : "");
  try {
    const res = await fetch(form.action, {
      method: "POST",
      headers: { Accept: "application/json" },
      body: new URLSearchParams(data),
      credentials: "same-origin",
    });
    if (res.status === 401) {
      location.href = `/login?next=${encodeURIComponent(location.pathname)}`;
      return;
    }
    const json = await res.json().catch(() => ({ ok: false, message: `the server answered ${res.status}` }));
    const message = json.message || (json.ok ? "Done." : "That did not work.");
    // A page without a live region (the servers page) is loaded again, with the note.
    if (json.ok && json.to && !kind) {
      location.assign(json.to);
      return;
    }
    if ("answer" in form.dataset) say(message);
    else formNote(form, json.ok ? "note" : "error", message);
    for (const b of buttons) b.disabled = json.ok && "answer" in form.dataset;
    // Disabled buttons let focus fall to the page: an answered card hands it to the next card,
    // a refused answer gives it back to the button pressed.
    if (around && json.ok) focusNext = around;
    else if (submitter && !submitter.disabled) submitter.focus();
    schedule(0);
  } catch {
    for (const b of buttons) b.disabled = false;
    if (submitter) submitter.focus();
    formNote(form, "error", "The server could not be reached; nothing was sent.");
    say("The server could not be reached; nothing was sent.");
  }
}

document.addEventListener("submit", (ev) => {
  const form = ev.target;
  if (!(form instanceof window.HTMLFormElement)) return;
  if (!("answer" in form.dataset) && !("action" in form.dataset)) return;
  ev.preventDefault();
  send(form, ev.submitter);
});

if (live) listen();

// The tab bar on a narrow screen scrolls: the active tab is brought into view, and `data-more`
// says on which side tabs are hidden (start, end, both), which the style sheet shows as a fade.
const tabs = document.querySelector("header.top nav");
if (tabs) {
  const mark = () => {
    const hiddenStart = tabs.scrollLeft > 1;
    const hiddenEnd = tabs.scrollLeft + tabs.clientWidth < tabs.scrollWidth - 1;
    if (hiddenStart || hiddenEnd) tabs.dataset.more = hiddenStart && hiddenEnd ? "both" : hiddenStart ? "start" : "end";
    else delete tabs.dataset.more;
  };
  const current = tabs.querySelector('a[aria-current="page"]');
  if (current && tabs.scrollWidth > tabs.clientWidth) current.scrollIntoView({ block: "nearest", inline: "nearest" });
  mark();
  tabs.addEventListener("scroll", mark, { passive: true });
  window.addEventListener("resize", mark);
}
