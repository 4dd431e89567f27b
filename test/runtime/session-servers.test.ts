/**
 * Secrets and time limits of a session whose config names stdio servers: each test starts a real
 * server process (the pure cases of sessions are in session.unit.test.ts).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { createToolShell } from "../../src/index.js";

test("secrets from a server's config never reach the script, even through a start-up error piped through rev", async () => {
  const secret = "sk-live-0123456789abcdef";
  const ts = await createToolShell({
    config: { mcpServers: { leaky: { command: process.execPath, args: ["-e", "console.error('token=' + process.env.API_TOKEN); process.exit(1)"], env: { API_TOKEN: secret }, load: "on_demand" } } },
  });
  const r = await ts.session().bash(`tools leaky x 2>&1 | rev; tools --help | rev`);
  const reversed = secret.split("").reverse().join("");
  assert.equal(r.stdout.includes(reversed), false, r.stdout);
  assert.match(r.stdout, /\]DETCADER\[=nekot/, "the error still names the line, with the secret replaced");
  await ts.close();
});

test("credentials in a server URL's query or in a stdio server's flags are secrets too (a user name or password in the URL is refused at load: test/config/load.unit.test.ts)", async () => {
  const key = "sk_live_url_0123456789";
  const flagToken = "tok_flag_0123456789";
  const ts = await createToolShell({
    config: {
      mcpServers: {
        web: { url: `http://127.0.0.1:59999/mcp?api_key=${key}&mode=fast`, load: "on_demand" },
        cli: { command: process.execPath, args: ["-e", "console.error('args: ' + process.argv.slice(1).join(' ')); process.exit(1)", "--", "--token", flagToken, `--api-key=${flagToken}`], load: "on_demand" },
      },
    },
  });
  const r = await ts.session().bash("tools web x; tools cli x; tools web --help; tools cli --help");
  const all = r.stdout + r.stderr;
  assert.equal(all.includes(key), false, all);
  assert.equal(all.includes(flagToken), false, all);
  assert.match(all, /\[REDACTED\]/, "the errors still say what failed, with the secrets replaced");
  // The redactor learned the URL's credential query value, not its other parameters.
  assert.equal(ts.redactor.text(`http://127.0.0.1:59999/mcp?api_key=${key}&mode=fast`), "http://127.0.0.1:59999/mcp?api_key=[REDACTED]&mode=fast", "a query parameter that is not a credential is left alone");
  await ts.close();
});

test("the time limit covers loading the servers a script names before it starts", async () => {
  const ts = await createToolShell({
    timeoutMs: 800,
    config: { mcpServers: { mute: { command: process.execPath, args: ["-e", "setTimeout(() => {}, 60000)"], load: "on_demand" } } },
  });
  const r = await ts.session().bash(`tools mute --help; echo after`);
  assert.equal(r.exit_code, 1);
  assert.equal(r.stdout, "");
  assert.equal(r.tools?.stopped?.reason, "timeout");
  await ts.close();
});
