/**
 * Store locations that name a PostgreSQL database: `postgres://` or `postgresql://` URLs
 * (`postgres://user:password@host:5432/database`, query options as libpq and node-postgres read
 * them, e.g. `?sslmode=require`, or `?host=/run/postgresql` for a unix socket).
 *
 * See docs/sessions.md → The store.
 */
import { isPostgresUrl } from "../../config/index.js";

export { isPostgresUrl };

/**
 * Checks a PostgreSQL URL and gives the store's `location`: the same URL without its password
 * (neither the user-info password nor a `password` query option).
 * @throws Error `not a valid PostgreSQL URL …` when it does not parse or names no database host.
 */
export function postgresLocation(url: string): string {
  let u: URL;
  try {
    u = new URL(url.trim());
  } catch {
    throw new Error(`the store ${JSON.stringify(redact(url))} is not a valid PostgreSQL URL (expected postgres://user:password@host:port/database)`);
  }
  if (!/^postgres(?:ql)?:$/i.test(u.protocol)) throw new Error(`the store URL must start with postgres:// or postgresql://, got ${u.protocol}//`);
  if (!u.hostname && !u.searchParams.get("host")) throw new Error(`the store URL ${JSON.stringify(redact(url))} names no host (expected postgres://user:password@host:port/database)`);
  u.password = "";
  u.searchParams.delete("password");
  return u.toString();
}

/** `url` with anything after `user:` up to `@` hidden, for error messages about a URL that does not parse. */
function redact(url: string): string {
  return url.replace(/^([a-z]+:\/\/[^:/@]*:)[^@]*@/i, "$1***@");
}
