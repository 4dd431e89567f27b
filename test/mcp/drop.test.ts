/**
 * A Streamable HTTP or HTTP+SSE server whose connection drops mid-call answers `unavailable`
 * at once (not after the call timeout), and the next call connects again. Real servers on
 * 127.0.0.1 whose socket is destroyed while the call is pending.
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { ToolCallError } from "../../src/tool/types.js";
import { startDroppingServer } from "../fixtures/mcp/index.js";
import { call, closeAll, rejection, sourceFor } from "./helpers.js";

after(closeAll);

for (const kind of ["http", "sse"] as const) {
  test(`${kind}: a dropped connection answers unavailable well before the call timeout`, { timeout: 20_000 }, async (t) => {
    const server = await startDroppingServer(kind);
    t.after(() => server.close());
    // A call timeout far beyond the test's own timeout: only the drop can end the call in time.
    const source = sourceFor(`drop-${kind}`, { type: kind, url: server.url, callTimeoutMs: 600_000 });
    await source.load();
    assert.equal((await call(source, "echo", { text: "before" })).text, "echo: before");
    const error = await rejection(() => call(source, "drop"));
    assert.ok(error instanceof ToolCallError, String(error));
    assert.equal(error.code, "unavailable");
    assert.equal(error.retryable, true);
    assert.match(error.message, /drop/);
    assert.equal((await call(source, "echo", { text: "after" })).text, "echo: after", "the next call connects again");
  });
}
