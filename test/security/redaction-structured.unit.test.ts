/**
 * The parts of a structured secret (docs/security.md "What is a secret"): what a program may
 * print alone of a credential file, a PEM key, a YAML/TOML/INI block — and what it must not turn
 * into a secret (neutral fields, ordinary words under keys that only look like credential names).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { createRedactor, REDACTED } from "../../src/call/redact/index.js";
import { credentialKey } from "../../src/call/redact/parts.js";

const hides = (secret: string, printed: string) => createRedactor([secret]).text(`x ${printed} y`) === `x ${REDACTED} y`;
const keeps = (secret: string, printed: string) => createRedactor([secret]).text(`x ${printed} y`) === `x ${printed} y`;

test("a part printed alone is redacted, in every structure a credential comes in", () => {
  const pem = (nl: string) => ["-----BEGIN PRIVATE KEY-----", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj", "-----END PRIVATE KEY-----"].join(nl);
  const cases: Array<[string, string, string]> = [
    ["a name/value pair", JSON.stringify([{ name: "api_key", value: "NvPairSecret7777" }]), "NvPairSecret7777"],
    ["a passphrase", JSON.stringify({ passphrase: "PassPhrase12345" }), "PassPhrase12345"],
    ["a numeric key", '{"api_key": 12345678901234}', "12345678901234"],
    ["JSON in a string", JSON.stringify({ config: JSON.stringify({ client_secret: "NestedSecret999" }) }), "NestedSecret999"],
    ["YAML", "client_secret: YamlSecretVal01\nname: app", "YamlSecretVal01"],
    ["TOML", 'api_key = "TomlSecret12345"', "TomlSecret12345"],
    ["INI", "[db]\npassword = IniSecret98765", "IniSecret98765"],
    ["a URL that is the credential", JSON.stringify({ webhook_token: "https://hooks.example.com/services/T0/B0/SlackSecret123" }), "https://hooks.example.com/services/T0/B0/SlackSecret123"],
    ["camelCase", JSON.stringify({ refreshToken: "RefreshTok12345" }), "RefreshTok12345"],
    ["deep JSON", JSON.stringify(Array.from({ length: 15 }).reduce<object>((inner, _, i) => ({ [`level${i}`]: inner }), { client_secret: "DeepSecret12345" })), "DeepSecret12345"],
    ["PEM with LF", pem("\n"), "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj"],
    ["PEM with CRLF", pem("\r\n"), "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj"],
    ["PEM with bare CR", pem("\r"), "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj"],
  ];
  for (const [name, secret, printed] of cases) assert.ok(hides(secret, printed), name);
});

test("neutral fields, pretty-printed lines and words under keys that only look like credential names stay readable", () => {
  const file = JSON.stringify({ auth_type: "password", keyboard: "standard", author: "Jane Smith", auth_required: "required", monkey: "bananas1", type: "service_account", token_uri: "https://oauth2.example.com/token", client_secret: "RealSecret12345" }, null, 2);
  for (const printed of ["password", "standard", "Jane Smith", "required", "bananas1", "service_account", '"type": "service_account",', '"token_uri": "https://oauth2.example.com/token",', "https://oauth2.example.com/token"]) {
    assert.ok(keeps(file, printed), printed);
  }
  assert.ok(hides(file, "RealSecret12345"), "control: the credential itself");
  for (const [key, is] of [["client_secret", true], ["private_key_id", true], ["apiKey", true], ["x-api-token", true], ["token_uri", false], ["key_type", false], ["keyboard", false], ["author", false], ["auth_required", false]] as const) {
    assert.equal(credentialKey(key), is, key);
  }
});
