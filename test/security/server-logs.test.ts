/**
 * Secrets in the files toolshell writes (docs/security.md "Secrets" → Server logs): a server whose
 * start-up fails prints a `${VAR}` secret of its entry, a password in its arguments and a secret
 * the host learned while running on stderr, then exits. Neither its stderr in its log file nor
 * toolshell's own lines there (`starting …` with its command line, `start failed: … (server
 * stderr: …)`) nor the error the script sees hold any of them. Control: the rest of each line,
 * and words of the same server that are no secret, are in the log.
 */
import assert from "node:assert/strict";
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { createToolShell } from "../../src/index.js";
import { LEAKY_SERVER, tsxCommand } from "../fixtures/mcp/index.js";
import { tempDir } from "../fixtures/temp.js";

const TOKEN = "deploy-Tok3n-5566778899";
const PASSWORD = "pg-Pa55word-4471";
/** Not in the config: the host learns it while running, as it learns an OAuth token. */
const LEARNED = "learned-Acce55-20261207";

test("a server's start-up error quoting its secrets on stderr leaves none in its log file or the script's error; control: the rest of each line is there", async (t) => {
  const logDir = tempDir(t, "toolshell-server-logs-");
  const db = {
    ...tsxCommand(LEAKY_SERVER, ["fail", "--url", "postgres://app:${PGPASS}@127.0.0.1:1/db", "--note", LEARNED]),
    env: { LEAK_TOKEN: "${DEPLOY_TOKEN}" },
  };
  const shell = await createToolShell({ config: { logDir, mcpServers: { db } }, env: { ...process.env, PGPASS: PASSWORD, DEPLOY_TOKEN: TOKEN }, connect: false });
  t.after(() => shell.close());
  assert.equal(shell.redactor.text(LEARNED), LEARNED, "precondition: the learned value is no config secret");
  shell.redactor.add(LEARNED);
  const session = shell.session("logs");
  await session.ready;

  const r = await session.bash("tools db x");
  await shell.close(); // the log is flushed and closed
  const file = path.join(logDir, "db.log");
  const log = readFileSync(file, "utf8");

  for (const [where, text] of [["the log file", log], ["the script's error", r.stdout + r.stderr]] as const) {
    for (const secret of [TOKEN, PASSWORD, LEARNED]) assert.ok(!text.includes(secret), `${where} holds ${secret}:\n${text}`);
  }
  // The script's error: the start failure, its stderr quoted redacted.
  assert.match(r.stderr, /server stderr: .*could not connect with fail --url postgres:\/\/app:\[REDACTED\]@127\.0\.0\.1:1\/db --note \[REDACTED\]/s, r.stderr);
  // toolshell's own lines: the command line it starts, and the start failure quoting the stderr.
  assert.match(log, /toolshell: starting .*leaky-server\.ts fail --url postgres:\/\/app:\[REDACTED\]@127\.0\.0\.1:1\/db --note \[REDACTED\]\n/, log);
  assert.match(log, /toolshell: start failed: .*\(server stderr: [^]*password "\[REDACTED\]"[^]*could not connect with fail --url postgres:\/\/app:\[REDACTED\]@127\.0\.0\.1:1\/db --note \[REDACTED\]\)/, log);
  // The server's own stderr lines, redacted where a secret was; control: its other words stay.
  assert.match(log, /^password "fail" "--url" "postgres" "app" "\[REDACTED\]" "127\.0\.0\.1" "1" "db" "--note" "\[REDACTED\]"$/m, log);
  assert.match(log, /^password "\[REDACTED\]"$/m, "the ${VAR} of its env, as the server printed it");
  assert.match(log, /^could not connect with fail --url postgres:\/\/app:\[REDACTED\]@127\.0\.0\.1:1\/db --note \[REDACTED\]$/m, log);
  assert.equal(statSync(file).mode & 0o777, 0o600, "the log is its owner's only");
});

test("a start failure quoting a secret is redacted before the `tools` listing shortens it: no first half of the secret shows; control: the failure is listed", async (t) => {
  // The secret straddles the 70th character of the failure message the listing shows.
  const secret = "cutSecretPathPart-0123456789abcdefghijKLMNOPQRST";
  const logDir = tempDir(t, "toolshell-server-logs-");
  const shell = await createToolShell({ config: { logDir, mcpServers: { r: { command: "/opt/${CUT_SECRET}/bin/server" } } }, env: { ...process.env, CUT_SECRET: secret }, connect: false });
  t.after(() => shell.close());
  const s = shell.session("listing");
  const failed = await s.bash("tools r x");
  assert.match(failed.stderr, /could not start: spawn \/opt\/\[REDACTED\]\/bin\/server/, failed.stderr);
  const listing = await s.bash("tools --help");
  const line = listing.stdout.split("\n").find((l) => /^\s+r\s/.test(l)) ?? "";
  assert.match(line, /\(failed: MCP server "r" could not start: spawn \/opt\/\[REDACTED\]/, listing.stdout);
  assert.ok(!listing.stdout.includes(secret.slice(0, 12)), `the listing shows the secret's first part: ${line}`);
});
