/**
 * Input templates of triggers: every string in a trigger's `input` may hold `{{path}}`
 * placeholders over the run's scope (`payload`, `trigger`, `now`, `scheduled_at`). A string that
 * is exactly one placeholder takes the value's JSON type (`"{{payload.count}}"` → 7, an object
 * stays an object); placeholders inside longer strings are replaced by text (objects as JSON).
 * A missing value leaves its key out when the string is one placeholder (so an optional field is
 * simply absent; a required one fails the script's schema check), is `null` as an array item, and
 * is empty text inside a longer string.
 *
 * Paths are dot-separated names; array items by number (`payload.commits.0.id` or
 * `payload.commits[0].id`).
 *
 * See docs/sessions.md → Triggers.
 */

const ONE = /^\{\{\s*([^{}]+?)\s*\}\}$/;
const ANY = /\{\{\s*([^{}]+?)\s*\}\}/g;

/**
 * The value at `path` in `scope`, or undefined. Only own properties are followed (no prototype
 * look-ups such as `constructor`).
 */
export function lookup(scope: unknown, path: string): unknown {
  const parts = path.replace(/\[(\d+)\]/g, ".$1").split(".").filter(Boolean);
  let cur: unknown = scope;
  for (const p of parts) {
    if (cur === null || typeof cur !== "object") return undefined;
    if (!Object.prototype.hasOwnProperty.call(cur, p)) return undefined;
    cur = (cur as Record<string, unknown>)[p];
  }
  return cur;
}

/**
 * Fills the templates of every string in `value` (objects and arrays walked). A string that is
 * one placeholder of a missing value gives `undefined`: dropped from objects, `null` in arrays.
 */
export function fillTemplates(value: unknown, scope: Record<string, unknown>): unknown {
  if (typeof value === "string") {
    const one = ONE.exec(value);
    if (one) return lookup(scope, one[1]);
    return value.replace(ANY, (_m, p: string) => {
      const v = lookup(scope, p);
      if (v === undefined || v === null) return "";
      return typeof v === "string" ? v : JSON.stringify(v);
    });
  }
  if (Array.isArray(value)) return value.map((v) => fillTemplates(v, scope) ?? null);
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const filled = fillTemplates(v, scope);
      // Defined, not assigned: a key named `__proto__` stays data instead of setting the prototype.
      if (filled !== undefined) Object.defineProperty(out, k, { value: filled, enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return value;
}
