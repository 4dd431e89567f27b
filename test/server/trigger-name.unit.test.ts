import assert from "node:assert/strict";
import { test } from "node:test";
import { parseTriggerSpec } from "../../src/config/index.js";

test("a trigger's script must be a plain script name: shell words cannot ride into the run", () => {
  assert.throws(() => parseTriggerSpec({ name: "t", webhook: true, script: "nosuch; echo INJECTED > /workspace/x #" }, "triggers[0]"), /triggers\[0\]\.script: .* is not a script name/);
  assert.equal(parseTriggerSpec({ name: "t", webhook: true, script: "triage-prs" }, "triggers[0]").script, "triage-prs");
});
