/**
 * A server's question across replicas (docs/deployment.md "What is shared"): a question an
 * upstream MCP server asks during an HTTP API shell call on replica A is listed by replica B on
 * the same PostgreSQL, an answer off its schema is refused there (the question keeps waiting),
 * and B's answer reaches the call still running on A; the same in B's console in Chromium (the
 * question's form, screenshots at desktop width and 390 px). A question whose replica was killed
 * is not listed once its marks lapse.
 */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { launchChromium } from "../fixtures/chromium.js";
import { FEATURE_SERVER, REPO_ROOT, tsxCommand } from "../fixtures/mcp/index.js";
import { api, deployment, kill, TOKEN, until } from "./helpers.js";

const SHOTS = path.join(REPO_ROOT, "test/out/console");

test("a question asked on replica A is listed and answered on replica B; the answer reaches A's call", async (t) => {
  const d = await deployment(t, { mcpServers: { feature: tsxCommand(FEATURE_SERVER) } });
  const [a, b] = await Promise.all([d.start("A"), d.start("B")]);
  assert.equal((await api(a, "POST", "/v1/sessions", { id: "s1" })).status, 201);

  const running = api(a, "POST", "/v1/sessions/s1/bash", { script: "tools feature ask message='Which name?'" });
  const q = await until(async () => (await api(b, "GET", "/v1/sessions/s1/questions")).json.pending?.[0], "replica B to list the question asked on A");
  assert.equal(q.server, "feature");
  assert.equal(q.command, "tools feature ask");
  assert.equal(q.message, "Which name?");
  assert.deepEqual(q.requested_schema.required, ["name"]);
  assert.deepEqual((await api(b, "GET", "/v1/questions")).json.pending.map((x: { question_id: string }) => x.question_id), [q.question_id]);

  const bad = await api(b, "POST", "/v1/sessions/s1/questions", { question_id: q.question_id, action: "accept", content: { count: 2 } });
  assert.equal(bad.status, 400);
  assert.match(bad.json.error.message, /does not match the question's schema/);
  assert.equal((await api(a, "GET", "/v1/sessions/s1/questions")).json.pending.length, 1, "a refused answer leaves the question waiting");

  const answered = await api(b, "POST", "/v1/sessions/s1/questions", { question_id: q.question_id, action: "accept", content: { name: "Ada" } });
  assert.equal(answered.status, 200, JSON.stringify(answered.json));
  assert.deepEqual(answered.json.answered, { question_id: q.question_id, action: "accept", content: { name: "Ada" } });
  assert.deepEqual(answered.json.pending, []);
  assert.equal((await api(a, "POST", "/v1/sessions/s1/questions", { question_id: q.question_id, action: "decline" })).status, 404, "an answered question is not answered twice");

  const result = (await running).json;
  assert.equal(result.exit_code, 0, result.stderr);
  assert.equal(result.stdout, 'answer: {"name":"Ada"}\n');
  assert.deepEqual((await api(b, "GET", "/v1/questions")).json.pending, []);
  const events = (await api(b, "GET", "/v1/sessions/s1/events")).json.events as Array<Record<string, unknown>>;
  assert.deepEqual(events.filter((e) => String(e.type).startsWith("question.")).map((e) => [e.type, e.question_id, e.action]), [
    ["question.asked", q.question_id, undefined],
    ["question.answered", q.question_id, "accept"],
  ]);

  // In B's console: the question asked on A shows in the inbox with its form; the answer reaches A's call.
  mkdirSync(SHOTS, { recursive: true });
  const browser = await launchChromium(t);
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  page.setDefaultTimeout(20_000);
  await page.goto(b.url + "/");
  await page.getByLabel("API token").fill(TOKEN);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Approvals" }).waitFor();
  const second = api(a, "POST", "/v1/sessions/s1/bash", { script: "tools feature ask message='Your name, please'" });
  const card = page.getByRole("article", { name: "Question from MCP server feature" });
  await card.waitFor();
  assert.match(await card.locator("pre.question-text").innerText(), /MCP server feature asks \(during tools feature ask\):\n> Your name, please/);
  await card.getByLabel("Name (required)").fill("Grace");
  await card.getByLabel("Count").fill("3");
  await page.screenshot({ path: path.join(SHOTS, "question-replica.png"), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: path.join(SHOTS, "question-replica-390.png"), fullPage: true });
  await card.getByRole("button", { name: "Answer" }).click();
  await page.getByText("Answered the question of MCP server feature").waitFor();
  const viaConsole = (await second).json;
  assert.equal(viaConsole.exit_code, 0, viaConsole.stderr);
  assert.equal(viaConsole.stdout, 'answer: {"name":"Grace","count":3}\n', "the form's number field is sent as a number");
  await card.waitFor({ state: "detached" });

  // A question whose replica was killed stops being listed once it is no longer marked as waiting.
  assert.equal((await api(a, "POST", "/v1/sessions", { id: "s2" })).status, 201);
  void api(a, "POST", "/v1/sessions/s2/bash", { script: "tools feature ask message='Still there?'" }).catch(() => {});
  await until(async () => (await api(b, "GET", "/v1/sessions/s2/questions")).json.pending?.[0], "replica B to list the second question");
  await kill(a);
  await until(async () => ((await api(b, "GET", "/v1/questions")).json.pending.length === 0 ? true : undefined), "the killed replica's question to drop out", 300, 100);
});
