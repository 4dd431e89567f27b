/**
 * The `WWW-Authenticate` header as RFC 9110 §11.6.1 writes it: one or more challenges, each an
 * auth-scheme with either a token68 or comma-separated auth-params (`name = value`, whitespace
 * allowed around `=`, the value a token or a quoted-string with `\` escapes), challenges separated
 * by commas too. Every place toolshell reads a challenge uses {@link bearerChallenge}.
 *
 * See MCP spec "Authorization" → Protected Resource Metadata Discovery, Scope Selection Strategy,
 * Step-Up Authorization Flow; RFC 6750 §3 (the Bearer challenge's parameters).
 */

/** One challenge: its scheme (lower-cased), its parameters (names lower-cased) or its token68. */
export interface Challenge {
  scheme: string;
  params: Record<string, string>;
  token68?: string;
}

const TCHAR = /[!#$%&'*+\-.^_`|~0-9A-Za-z]/;
const TOKEN68 = /[A-Za-z0-9\-._~+/]/;

/** Every challenge of a `WWW-Authenticate` header value; what cannot be read ends the list (never throws). */
export function parseChallenges(header: string | null | undefined): Challenge[] {
  const s = header ?? "";
  let i = 0;
  const out: Challenge[] = [];
  const ws = () => {
    while (i < s.length && (s[i] === " " || s[i] === "\t")) i++;
  };
  const token = (re = TCHAR) => {
    const start = i;
    while (i < s.length && re.test(s[i])) i++;
    return s.slice(start, i);
  };
  const quoted = (): string | undefined => {
    if (s[i] !== '"') return undefined;
    i++;
    let v = "";
    while (i < s.length && s[i] !== '"') {
      if (s[i] === "\\" && i + 1 < s.length) i++;
      v += s[i++];
    }
    if (s[i] !== '"') return undefined;
    i++;
    return v;
  };
  /** Reads `name = value` at i; restores i and returns undefined when what follows is not a parameter. */
  const param = (): [string, string] | undefined => {
    const start = i;
    const name = token();
    ws();
    if (!name || s[i] !== "=") return void (i = start);
    i++;
    ws();
    // A token; leniently, any run without whitespace or comma (an unquoted URL).
    const value = s[i] === '"' ? quoted() : token(/[^\s,"]/);
    if (value === undefined || (value === "" && s[i - 1] !== '"')) return void (i = start);
    return [name.toLowerCase(), value];
  };
  while (i < s.length) {
    ws();
    while (s[i] === "," || s[i] === " " || s[i] === "\t") i++;
    if (i >= s.length) break;
    const scheme = token();
    if (!scheme) break;
    const challenge: Challenge = { scheme: scheme.toLowerCase(), params: {} };
    out.push(challenge);
    ws();
    // token68 (RFC 9110 §11.2): its characters, then only "=" padding, then the end or a comma.
    const at = i;
    const t68 = token(TOKEN68);
    let j = i;
    while (s[j] === "=") j++;
    let k = j;
    while (s[k] === " " || s[k] === "\t") k++;
    if (t68 && (k >= s.length || s[k] === ",")) {
      challenge.token68 = s.slice(at, j);
      i = k;
      continue;
    }
    i = at;
    // auth-params, until something that is not one (the next challenge's scheme).
    for (;;) {
      ws();
      const p = param();
      if (!p) break;
      challenge.params[p[0]] = p[1];
      ws();
      if (s[i] !== ",") break;
      const comma = i;
      i++;
      while (s[i] === "," || s[i] === " " || s[i] === "\t") i++;
      const before = i;
      if (!param()) {
        i = comma;
        break;
      }
      i = before;
    }
    // Challenges are separated by commas: anything else cannot be read, and ends the list.
    ws();
    if (i < s.length && s[i] !== ",") break;
  }
  return out;
}

/** The Bearer challenge's parameters MCP uses, from a response's `WWW-Authenticate` (any position among several). */
export function bearerChallenge(header: string | null | undefined): { resourceMetadataUrl?: URL; scope?: string; error?: string } {
  const bearer = parseChallenges(header).find((c) => c.scheme === "bearer");
  if (!bearer) return {};
  let resourceMetadataUrl: URL | undefined;
  try {
    if (bearer.params.resource_metadata) resourceMetadataUrl = new URL(bearer.params.resource_metadata);
  } catch {}
  const { scope, error } = bearer.params;
  return { ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}), ...(scope ? { scope } : {}), ...(error ? { error } : {}) };
}

/**
 * The response with its `WWW-Authenticate` rewritten as the one Bearer challenge it holds, in the
 * plain form the MCP SDK's transport reads (`Bearer name="value", …`); unchanged when it has none.
 */
export function normalizeChallenge(res: Response): Response {
  const header = res.headers.get("www-authenticate");
  if (!header) return res;
  const bearer = parseChallenges(header).find((c) => c.scheme === "bearer");
  if (!bearer) return res;
  const params = Object.entries(bearer.params).filter(([, v]) => !/["\\\r\n]/.test(v));
  const plain = `Bearer ${params.map(([k, v]) => `${k}="${v}"`).join(", ")}`.trim();
  if (plain === header) return res;
  const headers = new Headers(res.headers);
  headers.set("www-authenticate", plain);
  return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
}
