/**
 * What kind of store a config's `store` names: a `postgres://` or `postgresql://` URL is a
 * PostgreSQL database (kept as written, after `${VAR}` expansion); anything else is a SQLite
 * file (resolved against the config's folder) or `:memory:`.
 *
 * See README → Configuration; docs/sessions.md → The store.
 */

/** True when `location` is a PostgreSQL URL (`postgres://…` or `postgresql://…`, any case). */
export function isPostgresUrl(location: string): boolean {
  return /^postgres(?:ql)?:\/\//i.test(location.trim());
}
