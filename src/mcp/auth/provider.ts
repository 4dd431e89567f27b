/**
 * The MCP SDK's {@link OAuthClientProvider} over the credential store: one instance per server
 * and principal. The SDK does the OAuth work (metadata discovery, dynamic client registration,
 * PKCE, the token requests, refresh after a 401); this class only keeps what it is given and
 * hands the authorization URL to the sign-in broker.
 *
 * Two additions the SDK leaves to the client:
 * - refresh before expiry ({@link StoredOAuthProvider.refreshIfExpiring}), so a call does not
 *   first meet a 401;
 * - step-up on HTTP 403 `insufficient_scope`: the SDK would refresh (which keeps the old scopes)
 *   and then give up; {@link StoredOAuthProvider.fetch} notes the challenge so the next
 *   authorization asks for the scopes the server named.
 *
 * See MCP spec 2025-11-25 "Authorization" (Dynamic Client Registration, Resource Parameter
 * Implementation per RFC 8707, Scope Selection Strategy, Step-Up Authorization Flow, Token
 * Handling); RFC 8252 §7.3 (loopback redirect).
 */
import { randomBytes, randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { auth } from "@modelcontextprotocol/client";
import type {
  FetchLike,
  OAuthClientInformationContext,
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  OAuthTokens,
  StoredOAuthClientInformation,
} from "@modelcontextprotocol/client";
import type { HttpServerConfig } from "../../config/index.js";
import { bearerChallenge, normalizeChallenge } from "./challenge.js";
import { checkAuthorizationServer, checkAuthorizationUrl, issuerExpectation } from "./checks.js";
import { expiresAt, subjectOf, type CredentialStore, type OAuthCredentials, type OAuthSettings } from "./credentials.js";
import type { SignInBroker } from "./sign-in.js";
import type { ServerLog } from "../log.js";
import { withServerLog } from "../sdk-console.js";

/** Refresh this long before the access token expires (milliseconds). */
export const REFRESH_MARGIN_MS = 60_000;
/** How long one process may hold a sign-in's refresh right (a token request that hangs longer loses it). */
const REFRESH_HOLD_MS = 30_000;

/** What a provider needs besides the server. */
export interface ProviderOptions {
  principal: string;
  settings: OAuthSettings;
  store: CredentialStore;
  broker: SignInBroker;
  /** Told every token obtained (the redactor learns them). */
  onSecret?: (secret: string) => void;
  /** `toolshell auth`: ignore stored tokens so a new authorization starts. */
  fresh?: boolean;
  /** Which session's call started a sign-in (so the gateway asks that session's person). */
  sessionId?: string;
  /** The server's log: the SDK's console lines during sign-in and refresh go there (sdk-console.ts). */
  log?: ServerLog;
}

/** The SDK's client auth over the store, for one server and principal. */
export class StoredOAuthProvider implements OAuthClientProvider {
  readonly server: HttpServerConfig;
  readonly principal: string;
  readonly #o: ProviderOptions;
  /**
   * The URL of this client's Client ID Metadata Document (`oauth.clientMetadataUrl`), used where the
   * authorization server supports them (SDK). Absent, not `undefined`, when unset: the SDK's
   * interface declares it `clientMetadataUrl?: string` (exactOptionalPropertyTypes consumers).
   */
  readonly clientMetadataUrl?: string;
  #state: string | undefined;
  /** Scopes a 403 `insufficient_scope` challenge asked for, until new tokens arrive. */
  #stepUp: string | undefined;
  #refreshing: Promise<void> | undefined;
  /** The access token {@link tokens} last handed to the SDK. */
  #handedOut: string | undefined;
  /** The server refused a token: the next authorization discovers its authorization server again. */
  #rediscover = false;
  /** Redeeming an authorization code: discovery is what the authorization started with. */
  #exchanging = false;
  /**
   * The PKCE verifier of this provider's authorization in progress. Kept here, not in the shared
   * store: the code comes back to this process's listener and is redeemed by this provider, and
   * another process's sign-in of the same server and principal (a warm host loading the server,
   * `toolshell auth`) must not replace it in between (RFC 7636 §4.5).
   */
  #codeVerifier: string | undefined;
  /** Registering again because the redirect URI changed (see {@link redirectToAuthorization}). */
  #registering = false;
  /** The client registered for the pending authorization, stored with its tokens. */
  #pendingClient: { info: OAuthClientInformationMixed; redirectUris: string[] | undefined } | undefined;
  /** The HTTP status (401 or 403) of the last challenge this provider's fetch saw, until reset. */
  challenged: number | false = false;

  constructor(server: HttpServerConfig, options: ProviderOptions) {
    this.server = server;
    this.principal = options.principal;
    this.#o = options;
    if (options.settings.clientMetadataUrl !== undefined) this.clientMetadataUrl = options.settings.clientMetadataUrl;
  }

  /** The SDK's `auth()` for this server through this provider, its console lines sent to the server's log. */
  authorize(options: Omit<Parameters<typeof auth>[1], "serverUrl" | "fetchFn"> = {}): ReturnType<typeof auth> {
    const run = () => auth(this, { ...options, serverUrl: this.server.url, fetchFn: this.fetch });
    return this.#o.log ? withServerLog(this.#o.log, run) : run();
  }

  /** The session whose call may start the next sign-in (the gateway asks that session's person). */
  get sessionId(): string | undefined {
    return this.#o.sessionId;
  }
  set sessionId(id: string | undefined) {
    this.#o.sessionId = id;
  }

  get redirectUrl(): string {
    return this.#o.broker.redirectUrl(this.#o.settings.callbackPort ?? 0);
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "toolshell",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: this.#o.settings.clientSecret ? "client_secret_basic" : "none",
      ...(this.#o.settings.scope ? { scope: this.#o.settings.scope } : {}),
    };
  }

  state(): string {
    this.#state = randomBytes(16).toString("base64url");
    return this.#state;
  }

  async clientInformation(ctx?: OAuthClientInformationContext): Promise<StoredOAuthClientInformation | undefined> {
    const { clientId, clientSecret } = this.#o.settings;
    // A configured client is the person's for whichever authorization server the resource names.
    if (clientId) return { client_id: clientId, ...(clientSecret ? { client_secret: clientSecret } : {}), ...(ctx ? { issuer: ctx.issuer } : {}) };
    if (this.#registering) return this.#pendingClient?.info ?? this.#noClient();
    if (this.#pendingClient && this.#o.broker.pendingFor(this.server.name, this.principal)) return this.#pendingClient.info;
    this.#pendingClient = undefined;
    return (await this.#read())?.clientInformation ?? this.#noClient();
  }


  /**
   * No client yet: the SDK will use the Client ID Metadata Document or register one. When the
   * authorization server offers neither way, say which setting fits instead of the SDK's
   * "does not support dynamic client registration".
   */
  async #noClient(): Promise<undefined> {
    const metadata = (await this.#read())?.discoveryState?.authorizationServerMetadata as (Record<string, unknown> & { issuer?: string }) | undefined;
    if (!metadata) return undefined;
    const cimd = metadata.client_id_metadata_document_supported === true;
    if ((cimd && this.clientMetadataUrl) || metadata.registration_endpoint) return undefined;
    throw new Error(
      `MCP server "${this.server.name}": its authorization server ${metadata.issuer ?? ""} has no dynamic client registration${cimd ? " and this server's entry has no oauth.clientMetadataUrl" : " and does not accept Client ID Metadata Documents"}. ` +
        `Register toolshell with it and set oauth.clientId (and oauth.clientSecret for a confidential client)${cimd ? ", or set oauth.clientMetadataUrl to the https URL of a Client ID Metadata Document naming this redirect URI" : ""} in the server's config entry`,
    );
  }

  async saveClientInformation(info: OAuthClientInformationMixed): Promise<void> {
    if (this.#o.settings.clientId) return;
    if (info.client_secret) this.#o.onSecret?.(info.client_secret); // a registered client's secret (RFC 7591 §3.2.1)
    const stored = await this.#read();
    // A Client ID Metadata Document names its own redirect URIs; a registration is bound to ours.
    const redirectUris =
      info.client_id === this.#o.settings.clientMetadataUrl
        ? undefined
        : stored?.clientInformation?.client_id === info.client_id && stored.clientRedirectUris
          ? stored.clientRedirectUris
          : [this.redirectUrl];
    // A registration made because the redirect changed replaces the stored one only when its
    // sign-in ends with tokens: until then, the stored tokens stay refreshable with their client.
    if (this.#registering) this.#pendingClient = { info, redirectUris };
    else await this.#update({ clientInformation: info, clientRedirectUris: redirectUris });
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    if (this.#o.fresh || this.#registering) return undefined;
    const tokens = (await this.#read())?.tokens;
    if (!tokens) return undefined;
    // A step-up needs a new authorization with more scopes: a refresh would keep the old ones.
    this.#handedOut = tokens.access_token;
    if (this.#stepUp !== undefined) return { ...tokens, refresh_token: undefined };
    return tokens;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    this.#o.onSecret?.(tokens.access_token);
    if (tokens.refresh_token) this.#o.onSecret?.(tokens.refresh_token);
    this.#stepUp = undefined;
    this.#o.fresh = false;
    this.#codeVerifier = undefined;
    const client = this.#pendingClient;
    this.#pendingClient = undefined;
    await this.#update({
      tokens,
      savedAt: Date.now(),
      codeVerifier: undefined,
      subject: subjectOf(tokens),
      ...(client ? { clientInformation: client.info, clientRedirectUris: client.redirectUris } : {}),
    });
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    if (await this.#registeredElsewhere(authorizationUrl)) {
      // The stored client was registered with another redirect URI (another loopback port, e.g.
      // of another process): the authorization server would refuse this one. Register again and
      // start over with the new client.
      this.#registering = true;
      try {
        await this.authorize({ scope: authorizationUrl.searchParams.get("scope") ?? undefined });
      } finally {
        this.#registering = false;
      }
      return;
    }
    // One check for every surface that shows this URL (README "Sign-in", docs/security.md).
    const metadata = (await this.#read())?.discoveryState?.authorizationServerMetadata;
    checkAuthorizationServer(this.server.name, metadata);
    checkAuthorizationUrl(this.server.name, authorizationUrl);
    this.#o.broker.pend({
      server: this.server.name,
      principal: this.principal,
      url: authorizationUrl.href,
      issuer: issuerExpectation(metadata),
      state: this.#state ?? authorizationUrl.searchParams.get("state") ?? "",
      sessionId: this.#o.sessionId,
      complete: async (code, iss) => {
        // The code is redeemed at the authorization server discovered for this authorization:
        // the SDK checks the callback against the stored discovery state (and `iss`, RFC 9207).
        this.#exchanging = true;
        try {
          const result = await this.authorize({ authorizationCode: code, iss });
          if (result !== "AUTHORIZED") throw new Error("the authorization server did not issue tokens");
        } finally {
          this.#exchanging = false;
        }
      },
    });
  }

  /** True when the authorization URL's client was registered (by us) without this redirect URI. */
  async #registeredElsewhere(authorizationUrl: URL): Promise<boolean> {
    if (this.#o.settings.clientId || this.#registering) return false;
    const creds = await this.#read();
    const uris = creds?.clientRedirectUris;
    return !!uris && creds?.clientInformation?.client_id === authorizationUrl.searchParams.get("client_id") && !uris.includes(this.redirectUrl);
  }

  async saveCodeVerifier(codeVerifier: string): Promise<void> {
    this.#codeVerifier = codeVerifier;
  }

  async codeVerifier(): Promise<string> {
    const v = this.#codeVerifier;
    if (!v) throw new Error(`no sign-in to MCP server "${this.server.name}" is in progress`);
    return v;
  }

  async invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): Promise<void> {
    if (scope === "all" || scope === "verifier") this.#codeVerifier = undefined;
    if (scope === "all") return this.#update({ tokens: undefined, savedAt: undefined, clientInformation: undefined, codeVerifier: undefined, discoveryState: undefined });
    if (scope === "tokens") {
      // The SDK forgets tokens whose refresh failed: only those this provider handed out, not
      // newer ones another process saved meanwhile (its refresh used the same refresh token).
      const stored = (await this.#read())?.tokens;
      if (stored && this.#handedOut !== undefined && stored.access_token !== this.#handedOut) return;
      return this.#update({ tokens: undefined, savedAt: undefined });
    }
    if (scope === "client") return this.#update({ clientInformation: undefined });
    if (scope === "verifier") return this.#update({ codeVerifier: undefined });
    return this.#update({ discoveryState: undefined });
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    await this.#o.broker.listen(this.#o.settings.callbackPort ?? 0);
    // A new sign-in (`toolshell auth`) and the first authorization after the server refused a
    // token discover again: the resource may have moved to another authorization server, whose
    // issuer the stored tokens and client are bound to (the SDK drops those of another issuer).
    // The code of an authorization is redeemed where that authorization was discovered.
    if ((this.#o.fresh || this.#rediscover) && !this.#exchanging) return undefined;
    return (await this.#read())?.discoveryState;
  }

  async saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    // Refused before any client is registered at it (checks.ts).
    checkAuthorizationServer(this.server.name, state.authorizationServerMetadata);
    this.#rediscover = false;
    await this.#update({ discoveryState: state });
  }

  /**
   * The fetch the transport uses: notes 401/403 challenges (a 403 `insufficient_scope` starts a
   * step-up: the next authorization asks for the challenge's scopes), read by challenge.ts.
   */
  readonly fetch: FetchLike = async (url, init) => {
    let res = await fetch(url, init);
    if (res.status === 401) res = (await this.#afterRefresh(url, init)) ?? res;
    if (res.status === 401 || res.status === 403) {
      this.challenged = res.status;
      // The SDK answers a challenge with an authorization whose first step reads `redirectUrl`
      // (the client metadata): the loopback listener must be up before that.
      await this.#o.broker.listen(this.#o.settings.callbackPort ?? 0);
      if (res.status === 401) this.#rediscover = true;
      const { error, scope } = bearerChallenge(res.headers.get("www-authenticate"));
      if (res.status === 403 && error === "insufficient_scope") this.#stepUp = scope ?? "";
      // The SDK's transport reads the challenge too: hand it the Bearer one, as it reads it.
      return normalizeChallenge(res);
    }
    return res;
  };

  /**
   * Refreshes the access token when it expires within {@link REFRESH_MARGIN_MS} and a refresh
   * token is stored. A failed refresh is left to the next request (whose 401 the SDK answers by
   * refreshing again or asking for a sign-in). Never throws.
   */
  async refreshIfExpiring(): Promise<void> {
    const creds = await this.#read();
    const at = expiresAt(creds);
    if (!creds?.tokens?.refresh_token || at === undefined || at - Date.now() > REFRESH_MARGIN_MS) return;
    await this.#refreshOnce(creds.tokens.access_token);
  }

  /**
   * A request refused with 401 whose bearer token is (or was) the stored one: refreshes once for
   * every process sharing the store, then sends the request again with the new token.
   * @returns the second answer, or undefined when there is no new token to send.
   */
  async #afterRefresh(url: string | URL, init: RequestInit | undefined): Promise<Response | undefined> {
    const headers = new Headers(init?.headers);
    const sent = /^Bearer (.+)$/i.exec(headers.get("authorization") ?? "")?.[1];
    const creds = await this.#read();
    if (!sent || !creds?.tokens?.refresh_token || this.#stepUp !== undefined) return undefined;
    if (creds.tokens.access_token === sent) await this.#refreshOnce(sent);
    const now = (await this.#read())?.tokens?.access_token;
    if (!now || now === sent) return undefined;
    headers.set("authorization", `Bearer ${now}`);
    return fetch(url, { ...init, headers });
  }

  /**
   * Refreshes the tokens whose access token is `seen`, one refresh for every process and replica
   * sharing the store: the first takes the store's refresh right (CredentialStore.acquireRefresh)
   * and refreshes; the others wait until the stored token is no longer `seen` (or the right is
   * free again) and use what it saved. An authorization server that rotates refresh tokens (OAuth
   * 2.1) accepts each one once, so two refreshes at the same moment would sign one process out.
   * Never throws.
   */
  #refreshOnce(seen: string): Promise<void> {
    this.#refreshing ??= (async () => {
      const holder = randomUUID();
      const { name } = this.server;
      const giveUp = Date.now() + REFRESH_HOLD_MS;
      try {
        while ((await this.#read())?.tokens?.access_token === seen) {
          if (await this.#o.store.acquireRefresh(name, this.principal, holder, REFRESH_HOLD_MS)) {
            try {
              if ((await this.#read())?.tokens?.access_token !== seen) return;
              await this.#o.broker.listen(this.#o.settings.callbackPort ?? 0);
              await this.authorize();
            } finally {
              await this.#o.store.releaseRefresh(name, this.principal, holder);
            }
            return;
          }
          if (Date.now() > giveUp) return;
          await sleep(25);
        }
      } catch {
        // The request itself will meet the expired token and the SDK's 401 handling.
      } finally {
        this.#refreshing = undefined;
      }
    })();
    return this.#refreshing;
  }

  /** The stored credentials for this server's URL (those of another URL are not ours: audience). */
  async #read(): Promise<OAuthCredentials | undefined> {
    const c = await this.#o.store.get(this.server.name, this.principal);
    return c && c.serverUrl === this.server.url ? c : undefined;
  }

  /** Read-change-write of the stored credentials, one at a time so no patch is lost. */
  #update(patch: Partial<OAuthCredentials>): Promise<void> {
    const write = async () => {
      const next: OAuthCredentials = { ...((await this.#read()) ?? { serverUrl: this.server.url }), ...patch, serverUrl: this.server.url };
      for (const k of Object.keys(next) as Array<keyof OAuthCredentials>) if (next[k] === undefined) delete next[k];
      await this.#o.store.put(this.server.name, this.principal, next);
    };
    this.#writes = this.#writes.then(write, write);
    return this.#writes;
  }
  #writes: Promise<void> = Promise.resolve();
}
