/**
 * A call that was approved and in flight when its process died, on each kind of store (stores.ts):
 * a child process (test/fixtures/durable/in-flight-child.ts) is killed with SIGKILL while the
 * charge a person allowed once is running; this process resumes the step from the store. The
 * answer was spent, so the charge asks again — and its card (the API's `card`, `toolshell
 * approvals`) says the same call was approved and had started, and may already have run upstream
 * (docs/sessions.md → The approval card). Controls: a call that never started says nothing of it,
 * and once the charge completes, the same call asked in a new step shows `already_ran` instead.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { approveById, listApprovals } from "../../src/cli/approvals.js";
import { always, defineTool } from "../../src/index.js";
import { ApprovalDetailsReader } from "../../src/server/approval-card.js";
import { openHost } from "../../src/server/index.js";
import { renderTimeline } from "../../src/store/index.js";
import { STORES } from "./stores.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const CHILD = path.join(here, "../fixtures/durable/in-flight-child.ts");
/** Step s1, as the child sends it: a read-only call that completes, then the charge. */
const S1 = "tools count n=7\ntools charge id=c1\n";

for (const kind of STORES) {
  test(`${kind.name}: a re-asked call that was approved and in flight when its process died says it may already have run`, async (t) => {
    const dir = mkdtempSync(path.join(tmpdir(), "toolshell-in-flight-"));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const location = kind.name === "sqlite" ? path.join(dir, "state.db") : await kind.location(t);
    const child = spawn(process.execPath, ["--import", import.meta.resolve("tsx"), CHILD, dir], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, TOOLSHELL_TEST_STORE: location } });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on("exit", (_code, signal) => resolve(signal)));
    t.after(() => void child.kill("SIGKILL"));
    let gone = false;
    void exited.then(() => (gone = true));
    while (!existsSync(path.join(dir, "ready"))) {
      if (gone) throw new Error(`the child exited before the charge started: ${stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    child.kill("SIGKILL");
    assert.equal(await exited, "SIGKILL");
    assert.deepEqual(readFileSync(path.join(dir, "charges.log"), "utf8").split("\n").filter(Boolean), ["c1"]);

    const host = await openHost({
      store: location,
      config: {},
      tools: {
        count: defineTool({ description: "Counts.", hints: { readOnly: true }, inputSchema: { type: "object", properties: { n: { type: "number" } } }, execute: ({ n }) => ({ n }) }),
        charge: defineTool({
          description: "Charges a card; here it never returns (the test kills the process while it runs).",
          inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
          approval: always(),
          execute: ({ id }) => `charged ${id}`,
        }),
      },
    });
    t.after(() => host.close());
    const s = host.session("pay");
    // The step resumes; the charge's one-off answer was spent on the attempt that died, so it asks again.
    const again = await s.bash(S1, { stepId: "s1" });
    assert.equal(again.tools?.stopped?.reason, "needs_approval", JSON.stringify(again));
    const pending = await host.store.pendingApprovals();
    const c1 = pending.find((r) => r.input.id === "c1");
    const c2 = pending.find((r) => r.input.id === "c2");
    assert.ok(c1 && c2, JSON.stringify(pending));
    assert.equal(c1.id, again.tools?.stopped?.request_id);

    const reader = new ApprovalDetailsReader(host);
    const card = await reader.read(c1);
    assert.ok(card.in_flight, `the card of the re-asked charge names the in-flight approval: ${JSON.stringify(card)}`);
    assert.equal(card.in_flight.approved_by, "ops");
    assert.equal(card.in_flight.surface, "cli");
    assert.ok(card.in_flight.approved_at && card.in_flight.started_at >= card.in_flight.approved_at, JSON.stringify(card.in_flight));
    assert.ok(Date.parse(card.in_flight.started_at) > 0);
    assert.equal(card.in_flight.replica, undefined, "a library host is no replica");
    // Times as the console shows them everywhere (display/time.ts), not raw ISO.
    const shown = (iso: string) => `${iso.replace("T", " ").slice(0, 19)} UTC`;
    assert.equal(card.in_flight.warning, `This exact call was approved by ops (cli) at ${shown(card.in_flight.approved_at)} and had started at ${shown(card.in_flight.started_at)} when the process running it stopped; it may already have run upstream. Allowing it runs it again.`);
    assert.equal(card.already_ran, undefined, "it never completed");
    // Asked before this run of the step starts, the card lists what its earlier run completed.
    assert.deepEqual(card.ran_before.map((c) => [c.tool, c.input]), [["tools count", { n: 7 }]], JSON.stringify(card.ran_before));
    assert.match(card.after_answer, /earlier run made the calls listed/, card.after_answer);
    // Control: the charge of s2 never started (it asked and waits): no such warning.
    assert.equal((await reader.read(c2)).in_flight, undefined);

    const listed = await listApprovals(host, {});
    const block = (id: string) => listed.split("\n\n").find((b) => b.startsWith(id)) ?? "";
    assert.match(block(c1.id), /warning: This exact call was approved by ops \(cli\) at .* when the process running it stopped; it may already have run upstream\. Allowing it runs it again\./);
    assert.doesNotMatch(block(c2.id), /approved by|may already have run/);

    // Allowed again (`toolshell approve`), the step runs the charge to the end: its completed
    // record replaces the mark. The history keeps what the person was warned of when allowing.
    await approveById(host, c1.id, "allow", {});
    const events = await host.store.listEvents("pay");
    const answered = events.filter((e) => e.type === "approval.answered");
    assert.equal(answered.find((e) => e.request_id === c1.id)?.warned, card.in_flight.warning, JSON.stringify(answered));
    assert.ok(answered.filter((e) => e.request_id !== c1.id).every((e) => e.warned === undefined), "control: the first answer warned of nothing");
    assert.ok(renderTimeline(events).includes(`answered: allow (tools charge) by `) && renderTimeline(events).includes(`; warned: ${card.in_flight.warning}`), renderTimeline(events));
    const done = await s.bash(S1, { stepId: "s1" });
    assert.equal(done.exit_code, 0, JSON.stringify(done));
    assert.match(done.stdout, /charged c1/);
    const later = await s.bash("tools charge id=c1\n", { stepId: "s3" });
    const c1Later = (await host.store.pendingApprovals()).find((r) => r.id === later.tools?.stopped?.request_id);
    assert.ok(c1Later);
    const laterCard = await new ApprovalDetailsReader(host).read(c1Later);
    assert.equal(laterCard.in_flight, undefined, JSON.stringify(laterCard));
    assert.ok(laterCard.already_ran, "the completed charge is what already ran");
  });
}
