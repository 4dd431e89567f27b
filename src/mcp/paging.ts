/**
 * Following `nextCursor` through a paged list (`tools/list`, `resources/list`,
 * `resources/templates/list`, `prompts/list`), one rule for every list of a server.
 *
 * See MCP spec 2025-11-25 "Utilities" → Pagination (the cursor is opaque; a missing `nextCursor`
 * ends the results). A server that gives back a cursor it gave before would page forever and
 * repeat items, so a repeated cursor ends the listing with an error, as does a list longer than
 * {@link MAX_PAGES} pages.
 */

/** Most pages one listing follows before the server's paging is called broken. */
export const MAX_PAGES = 1000;

/** A list whose paging is broken (a repeated cursor, too many pages). */
export class PagingError extends Error {
  override name = "PagingError";
}

/**
 * Every item of a paged list: calls `fetchPage` with no cursor, then with each `nextCursor`
 * until none (or `""`) is given; `method` names the list in errors.
 * @throws PagingError when a cursor repeats or the list passes MAX_PAGES pages; fetchPage's errors as they are.
 */
export async function allPages<T>(method: string, key: string, fetchPage: (cursor: string | undefined) => Promise<Record<string, unknown>>): Promise<T[]> {
  const out: T[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await fetchPage(cursor);
    const items = result[key];
    if (Array.isArray(items)) out.push(...(items as T[]));
    const next = result.nextCursor;
    if (next === undefined || next === null || next === "") return out;
    if (typeof next !== "string") throw new PagingError(`${method} gave a nextCursor that is not a string`);
    if (seen.has(next)) throw new PagingError(`${method} repeated the cursor "${next}" (its paging loops; ${out.length} items read)`);
    seen.add(next);
    cursor = next;
  }
  throw new PagingError(`${method} gave more than ${MAX_PAGES} pages`);
}
