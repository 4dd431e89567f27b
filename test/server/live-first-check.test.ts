/**
 * The console's live check (src/server/console/live.ts) with a real SQLite store: what another
 * process writes between a page's drawing and the first check of its session reaches the page
 * as a change. Before, the first check only noted where the session was, so an event (or a step
 * gone stale on a dead replica) landing in that window never reached the open page.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { LiveHub, type LiveMessage } from "../../src/server/console/live.js";
import { openHost } from "../../src/server/index.js";
import { eventually } from "../fixtures/eventually.js";
import { tempDir } from "../fixtures/temp.js";

test("an event written by another process between a page's drawing and its first check is sent to the page", async (t) => {
  const dir = tempDir(t);
  const host = await openHost({ store: path.join(dir, "state.db"), config: { mcpServers: {} } });
  t.after(() => host.close());
  await host.session("s1").bash("echo drawn");
  const hub = new LiveHub(host);
  const seen: LiveMessage[] = [];
  t.after(hub.subscribe((m) => seen.push(m)));
  // The page is drawn; then another process writes to the session's store (not through this host).
  host.store.appendEvent({ session_id: "s1", at: new Date().toISOString(), type: "shell_call.started", tool_call_id: "call_bash_99", script_preview: "echo elsewhere" });
  t.after(hub.watch("s1"));
  const told = await eventually("the page is told of s1", () => seen.find((m) => m.kind === "session" && m.session_id === "s1"), { limitMs: 8000 });
  assert.equal(told.kind, "session");
});
