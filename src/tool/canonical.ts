/**
 * Canonical JSON: object keys sorted at every depth, so `{a,b}` and `{b,a}` are one value.
 *
 * See README → Approvals; JSON Schema `uniqueItems` (items equal as JSON values, key order aside).
 */

/** JSON text with object keys sorted at every depth; `undefined` members dropped as JSON does. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v) => {
    if (v && typeof v === "object" && !Array.isArray(v)) {
      // A null-prototype object keeps an own `__proto__` key as data (the approval key must
      // never lose a field).
      const out: Record<string, unknown> = Object.create(null);
      for (const k of Object.keys(v).sort()) out[k] = (v as Record<string, unknown>)[k];
      return out;
    }
    return v;
  });
}
