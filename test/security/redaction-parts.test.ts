/**
 * The parts of a compound secret (docs/security.md "Secrets"): a server that quotes only the
 * password of its DSN, a cookie's value, or the password inside a connection-string argument, on
 * stderr before it exits, shows none of them in the start-up error, through the library and the
 * CLI (`--no-daemon`). Control: the ordinary words of the same values (user, host, `dark`) show.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { createToolShell } from "../../src/index.js";
import { LEAKY_SERVER, REPO_ROOT, tsxCommand } from "../fixtures/mcp/index.js";
import { tempDir } from "../fixtures/temp.js";

const CLI = path.join(REPO_ROOT, "dist/cli/main.js");

const PARTS = ["EnvPw12345", "ExpandPw9876", "CookieSid998877", "OdbcPw55555", "QueryKey8888", "HunterPw2026x", "Pw2ndSecret99", "LibpqPw777x"];
/** Words of the same values that are not credentials: they must stay readable. */
const WORDS = ["admin", "db.internal", "theme", "dark", "region", "eu-west", "Server", "host"];

/** Three servers (a start-up error quotes the last few lines of stderr): secrets in env values, in `${VAR}`s, in arguments. */
const servers = {
  pga: { ...tsxCommand(LEAKY_SERVER, ["fail"]), env: { LEAK_DSN: "postgresql://admin:EnvPw12345@db.internal/prod", LEAK_COOKIE: "sid=CookieSid998877; theme=dark" } },
  pgb: {
    ...tsxCommand(LEAKY_SERVER, ["fail"]),
    env: { LEAK_EXPANDED: "${PG_DSN}", LEAK_ODBC: "Driver={PG};Server=db01;Uid=admin;Pwd=OdbcPw55555;", LEAK_API: "https://api.example.com/v1?api_key=QueryKey8888&region=eu-west" },
  },
  pgc: tsxCommand(LEAKY_SERVER, ["fail", "postgresql://admin:HunterPw2026x@db.internal/prod", "--password", "Pw2ndSecret99", "--dsn=host=db user=admin password=LibpqPw777x"]),
};
const SCRIPT = "tools pga x; tools pgb x; tools pgc x";
const PG_DSN = "postgres://app:ExpandPw9876@db.internal:5432/app";

function assertParts(text: string, where: string): void {
  for (const part of PARTS) assert.ok(!text.includes(part), `${where} showed ${part}: ${text.slice(0, 3000)}`);
  assert.equal(text.match(/server stderr/g)?.length, 3, `${where}: each server's error quotes its stderr: ${text}`);
  assert.equal(text.match(/\\?"\[REDACTED\]\\?"/g)?.length, 8, `${where}: each part was quoted redacted`);
  for (const word of WORDS) assert.ok(new RegExp(`\\\\?"${word}\\\\?"`).test(text), `control: ${where} shows the word ${word}: ${text.slice(0, 3000)}`);
}

test("the password of a DSN, a cookie's value, an ODBC Pwd, a URL's api_key, and the passwords in connection-string arguments are redacted when a server quotes them alone; control: user, host and cookie words show", async (t) => {
  const shell = await createToolShell({ config: { mcpServers: servers }, env: { ...process.env, PG_DSN } });
  t.after(() => shell.close());
  const session = shell.session("parts");
  await session.ready;
  const r = await session.bash(SCRIPT);
  assertParts(r.stdout + r.stderr, "the script");
  assert.ok(!PARTS.some((p) => JSON.stringify(session.events).includes(p)), "events hold no part");
});

test("the CLI (--no-daemon) shows a server's start-up error with the parts of its secrets redacted; control: the other words show", async (t) => {
  assert.ok(existsSync(CLI), "run `npm run build` first");
  const work = tempDir(t, "toolshell-parts-");
  writeFileSync(path.join(work, "toolshell.config.json"), JSON.stringify({ mcpServers: servers }));
  const child = spawn(process.execPath, [CLI, "--no-daemon", "exec", SCRIPT], { cwd: work, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, PG_DSN } });
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += String(d)));
  child.stderr.on("data", (d: Buffer) => (out += String(d)));
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  assert.notEqual(code, 0);
  assertParts(out, "the CLI");
});

/** Credential files in variables (a service account's JSON, cut in two: a start-up error quotes lines of ≤ 300 characters) and a PEM private key in another. */
const KEY_LINE = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj";
const KEY_LINE2 = "Zm9yIHRoZSB0ZXN0cyBvbmx5IG5vdCBhIHJlYWwga2V5IGF0IGFsbCBvayB5ZXM";
const CREDENTIAL = JSON.stringify({ type: "service_account", private_key_id: "a1b2c3d4e5f60718293a4b5c6d7e8f90", private_key: `-----BEGIN PRIVATE KEY-----\n${KEY_LINE2}\n-----END PRIVATE KEY-----\n` });
const CLIENT = JSON.stringify({ installed: { project_id: "acme-prod", client_email: "bot@acme-prod.iam.example.com", client_secret: "GOCSPX-abcDEF123ghiJKL456", token_uri: "https://oauth2.example.com/token" } });
const PEM = `-----BEGIN PRIVATE KEY-----\n${KEY_LINE}\n-----END PRIVATE KEY-----`;

test("a field of a JSON credential and a line of a PEM key are redacted when a server quotes them alone; control: the file's neutral fields (type, email, token URL) and the PEM armor words show", async (t) => {
  const leaky = (env: Record<string, string>) => ({ ...tsxCommand(LEAKY_SERVER, ["fail"]), env });
  const mcpServers = { cred: leaky({ LEAK_JSON: "${GOOGLE_CREDENTIALS}" }), client: leaky({ LEAK_CLIENT: CLIENT }), pem: leaky({ LEAK_PEM: PEM }) };
  const shell = await createToolShell({ config: { mcpServers }, env: { ...process.env, GOOGLE_CREDENTIALS: CREDENTIAL } });
  t.after(() => shell.close());
  const session = shell.session("structured");
  await session.ready;
  const r = await session.bash("tools cred x; tools client x; tools pem x");
  const text = r.stdout + r.stderr;
  for (const part of ["a1b2c3d4e5f60718293a4b5c6d7e8f90", "GOCSPX-abcDEF123ghiJKL456", KEY_LINE, KEY_LINE2]) {
    assert.ok(!text.includes(part), `the script showed ${part}: ${text}`);
    assert.ok(!JSON.stringify(session.events).includes(part), `events hold ${part}`);
  }
  for (const word of ["service_account", "acme-prod", "private_key_id", "client_secret", "iam.example.com", "oauth2.example.com", "-----BEGIN", "PRIVATE"]) {
    assert.ok(text.includes(`${word}\\"`), `control: the script shows ${word}: ${text}`);
  }
});
