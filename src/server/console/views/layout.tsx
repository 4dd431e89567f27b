/**
 * The page frame of the console: header, navigation with the count of pending approvals, the
 * status line screen readers announce, and the region live updates replace.
 *
 * See README → Console; WAI-ARIA Authoring Practices (landmarks, `aria-current`, `role="status"`
 * live regions).
 */
import type { Child, FC } from "hono/jsx";
import { assetUrl } from "../static.js";

/** The sections of the console, in navigation order. */
export type Section = "approvals" | "sessions" | "scripts" | "triggers" | "servers";

const NAV: Array<{ key: Section; href: string; label: string }> = [
  { key: "approvals", href: "/", label: "Approvals" },
  { key: "sessions", href: "/sessions", label: "Sessions" },
  { key: "scripts", href: "/scripts", label: "Scripts" },
  { key: "triggers", href: "/triggers", label: "Triggers" },
  { key: "servers", href: "/servers", label: "Servers" },
];

/** The document head shared by every page. */
const Head: FC<{ title: string }> = ({ title }) => (
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="color-scheme" content="light dark" />
    <title>{title} · toolshell</title>
    <link rel="icon" href={assetUrl("icon.svg")} type="image/svg+xml" />
    <link rel="stylesheet" href={assetUrl("console.css")} />
    <link rel="stylesheet" href={assetUrl("questions.css")} />
    <script type="module" src={assetUrl("console.js")}></script>
  </head>
);

/**
 * A signed-in page. `live` names what the region shows (e.g. `inbox`, `session:<id>`); the
 * client script fetches `?region=1` of the same URL again when a live message concerns it.
 */
export const Page: FC<{ title: string; section?: Section; pending: number; live?: string; children?: Child }> = ({ title, section, pending, live, children }) => (
  <html lang="en">
    <Head title={title} />
    <body>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href="/">
          toolshell
        </a>
        <nav aria-label="Console">
          <ul>
            {NAV.map((n) => (
              <li>
                <a href={n.href} aria-current={n.key === section ? "page" : undefined}>
                  {n.label}
                  {n.key === "approvals" ? (
                    <span class="badge" id="pending-count" data-count={String(pending)} aria-label={`${pending} pending`}>
                      {pending}
                    </span>
                  ) : null}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <form method="post" action="/logout" class="signout">
          <button type="submit" class="quiet">
            Sign out
          </button>
        </form>
      </header>
      <p id="status" role="status" aria-live="polite" class="status"></p>
      <main id="main" tabindex={-1}>
        <h1>{title}</h1>
        <div id="live" data-live={live ?? ""}>
          {children}
        </div>
      </main>
    </body>
  </html>
);

/**
 * The login page: the one page served without a cookie. `blocked` says why a browser here would
 * drop the sign-in cookie (server/reach.ts); the client script also shows `#insecure-origin`
 * when the browser itself says the page is not a secure context.
 */
export const LoginPage: FC<{ next: string; error?: string; blocked?: string }> = ({ next, error, blocked }) => (
  <html lang="en">
    <Head title="Sign in" />
    <body class="login">
      <main id="main">
        <h1>toolshell console</h1>
        <div id="insecure-origin" class="card warning" role="alert" hidden={!blocked}>
          <h2>Signing in cannot work on this address</h2>
          <p>
            {blocked ??
              "This page is not a secure context in this browser. The sign-in cookie is Secure, so the browser keeps it only over HTTPS or on localhost. Open the console over HTTPS (serve --tls-cert/--tls-key, or a TLS proxy in front with server.trustProxy), or through localhost."}
          </p>
        </div>
        <form method="post" action="/login" class="card login-form">
          <input type="hidden" name="next" value={next} />
          <label for="token">API token</label>
          <input id="token" name="token" type="password" autocomplete="current-password" required aria-describedby={error ? "login-error token-help" : "token-help"} autofocus />
          <p id="token-help" class="help">
            One of the server's operator API tokens (<code>server.tokens</code> with <code>"role": "operator"</code>, or a lone <code>TOOLSHELL_API_TOKEN</code>); an agent's token does not sign in. It is kept in a secure, HTTP-only cookie.
          </p>
          {error ? (
            <p id="login-error" class="error" role="alert">
              {error}
            </p>
          ) : null}
          <button type="submit" class="primary">
            Sign in
          </button>
        </form>
      </main>
    </body>
  </html>
);
