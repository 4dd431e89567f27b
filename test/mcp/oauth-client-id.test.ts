/**
 * How toolshell names itself to an authorization server: a Client ID Metadata Document
 * (`oauth.clientMetadataUrl`) where the server supports them, else dynamic registration, else a
 * configured `oauth.clientId`; when none fits, the error names the settings that would.
 */
import assert from "node:assert/strict";
import { createServer, type AddressInfo } from "node:net";
import { test } from "node:test";
import { signIn } from "../../src/mcp/auth/flow.js";
import { startOAuthServer } from "../fixtures/mcp/oauth-server.js";
import { rejection } from "./helpers.js";
import { approve, configFor, oauth } from "./oauth-helpers.js";

const demoEntry = (url: string, oauthKeys: Record<string, unknown> = {}) => configFor("demo", url, { oauth: oauthKeys });
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}
const DOC = "https://toolshell.example/oauth/client.json";

test("an authorization server with Client ID Metadata Documents and no registration: oauth.clientMetadataUrl is the client id", async (t) => {
  const f = await startOAuthServer();
  t.after(() => f.close());
  f.exactRedirectUris = true;
  f.metadata = { registration_endpoint: null, client_id_metadata_document_supported: true };
  const port = await freePort();
  f.clientMetadataDocuments.set(DOC, { redirect_uris: [`http://127.0.0.1:${port}/callback`], client_name: "toolshell" });
  let clientId: string | null = null;
  const status = await signIn(demoEntry(f.url, { clientMetadataUrl: DOC, callbackPort: port }), "default", oauth(t), {
    onUrl: async (url) => {
      clientId = new URL(url).searchParams.get("client_id");
      await approve(url);
    },
  });
  assert.equal(status.state, "signed_in");
  assert.equal(clientId, DOC);
  assert.equal(f.counts.registrations, 0);
});

test("neither registration nor a metadata document fits: the error names oauth.clientId (and oauth.clientMetadataUrl where it would fit)", async (t) => {
  const f = await startOAuthServer();
  t.after(() => f.close());
  f.metadata = { registration_endpoint: null, client_id_metadata_document_supported: true };
  const withCimd = (await rejection(() => signIn(demoEntry(f.url), "default", oauth(t), { onUrl: approve }))) as Error;
  assert.match(withCimd.message, /^MCP server "demo": its authorization server \S+ has no dynamic client registration and this server's entry has no oauth\.clientMetadataUrl\. Register toolshell with it and set oauth\.clientId .*or set oauth\.clientMetadataUrl/);
  f.metadata = { registration_endpoint: null };
  const none = (await rejection(() => signIn(demoEntry(f.url), "default", oauth(t), { onUrl: approve }))) as Error;
  assert.match(none.message, /has no dynamic client registration and does not accept Client ID Metadata Documents\. Register toolshell with it and set oauth\.clientId/);
  assert.equal(f.counts.authorizations, 0);
});

test("config: oauth.clientMetadataUrl must be an https URL with a path", () => {
  assert.throws(() => demoEntry("http://127.0.0.1:1/mcp", { clientMetadataUrl: "http://toolshell.example/client.json" }), /https URL with a path/);
  assert.throws(() => demoEntry("http://127.0.0.1:1/mcp", { clientMetadataUrl: "https://toolshell.example/" }), /https URL with a path/);
});
