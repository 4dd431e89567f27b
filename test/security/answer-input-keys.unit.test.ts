/**
 * An input holds no field the approval card never showed: `__proto__`, `constructor` and
 * `prototype` as field names are refused with `invalid_input` on every surface (a script's JSON
 * argument, its pairs, its stdin, a direct call from code, the MCP gateway), and an input whose
 * prototype carries a field is refused too. Control on each surface: the plain input, once
 * approved, runs with exactly what the card showed.
 * See docs/security.md ("Answers are bound to what was shown").
 */
import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import { createToolShell, defineTool, always } from "../../src/index.js";

async function payShell(t: TestContext) {
  const paid: unknown[] = [];
  const shell = await createToolShell({
    config: { keepVisible: ["pay"] },
    tools: {
      pay: defineTool({
        description: "Pays someone.",
        inputSchema: { type: "object", properties: { to: { type: "string" }, memo: { type: "object" } } },
        approval: always(),
        // The tool reads `to` however it is reached, own or inherited: what the attack aims at.
        execute: (input) => {
          paid.push({ to: (input as { to?: unknown }).to, memo: (input as { memo?: unknown }).memo });
          return "paid";
        },
      }),
    },
  });
  t.after(() => shell.close());
  return { shell, paid };
}

const smuggled = (paid: unknown[]) => JSON.stringify(paid).includes("mallory");

test("a script's input with __proto__ / constructor / prototype keys is refused in every form; control: the plain call runs once approved", async (t) => {
  const { shell, paid } = await payShell(t);
  const s = shell.session("shell-keys");
  const forms = [
    `tools pay '{"to":"bob","__proto__":{"to":"mallory"}}'`,
    `tools pay '{"__proto__":{"to":"mallory"}}'`,
    `tools pay to=bob __proto__='{"to":"mallory"}'`,
    `tools pay to=bob constructor='{"prototype":{"to":"mallory"}}'`,
    `tools pay '{"to":"bob","memo":{"constructor":{"prototype":{"to":"mallory"}}}}'`,
    `tools pay '{"to":"bob","memo":{"a":[{"__proto__":{"to":"mallory"}}]}}'`,
    `echo '{"to":"bob","prototype":{"to":"mallory"}}' | tools pay -`,
    `tools pay --to bob --__proto__ '{"to":"mallory"}'`,
  ];
  for (const form of forms) {
    const r = await s.bash(form);
    assert.match(r.stderr, /"code":"invalid_input"/, `${form}: ${JSON.stringify(r)}`);
    assert.equal(r.tools?.stopped, undefined, `${form}: a card was raised for it`);
    const plan = await s.bash(`tools plan <<'EOF'\n${form}\nEOF`);
    // The plan names the refusal and shows no smuggled field as the call's input.
    for (const c of JSON.parse(plan.stdout).calls as Array<{ input: unknown; note?: string; risk: string }>) {
      assert.ok(!JSON.stringify(c.input).includes("mallory"), `${form}: the plan shows ${JSON.stringify(c)}`);
      assert.ok(/invalid input/.test(c.note ?? "") || c.risk === "checked_at_run_time", `${form}: the plan does not say the input is refused: ${JSON.stringify(c)}`);
    }
  }
  assert.equal((await s.pendingApprovals()).length, 0);
  assert.ok(!smuggled(paid));
  const ok = await s.bash(`tools pay to=bob`);
  await s.answer(ok.tools!.stopped!.request_id!, "allow");
  assert.equal((await s.bash(`tools pay to=bob`)).stdout, "paid\n");
  assert.deepEqual(paid, [{ to: "bob", memo: undefined }]);
});

test("a direct call from code with such keys, or with a field on its prototype, is refused; control: the plain input runs once approved", async (t) => {
  const { callDirect } = await import("../../src/surface/index.js");
  const { shell, paid } = await payShell(t);
  const session = shell.session("direct-keys");
  const tool = (await session.freshCatalog()).topLevelTools().find((x) => x.name === "pay")!;
  const inherited = Object.create({ to: "mallory" }) as Record<string, unknown>;
  const assigned: Record<string, unknown> = { to: "bob" };
  // A parser that assigns keys one by one sets the prototype for `__proto__`.
  Object.setPrototypeOf(assigned, { memo: { to: "mallory" } });
  for (const input of [JSON.parse('{"to":"bob","__proto__":{"to":"mallory"}}'), JSON.parse('{"to":"bob","constructor":{"to":"mallory"}}'), inherited, assigned]) {
    const r = await callDirect(shell, session, tool, input, { callId: "k" });
    assert.equal(r.status, "error", JSON.stringify(r));
    assert.equal(r.status === "error" && r.error.code, "invalid_input");
  }
  assert.equal((await session.pendingApprovals()).length, 0);
  const first = await callDirect(shell, session, tool, { to: "bob" }, { callId: "ok" });
  assert.equal(first.status, "needs_approval");
  await session.answer(first.status === "needs_approval" ? first.requestId : "", "allow");
  assert.equal((await callDirect(shell, session, tool, { to: "bob" }, { callId: "ok2" })).status, "ok");
  assert.deepEqual(paid, [{ to: "bob", memo: undefined }]);
});

test("through the MCP gateway, a direct tool's arguments with such keys never hand the tool a field the card did not show; control: the approved call pays whom the card named", async (t) => {
  const { createGatewayServer } = await import("../../src/gateway/index.js");
  const { shell, paid } = await payShell(t);
  const session = shell.session("gateway-keys");
  const server = createGatewayServer(shell, session, { elicitation: false });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "keys", version: "1" });
  await Promise.all([server.connect(b), client.connect(a)]);
  t.after(() => client.close());
  const shown: unknown[] = [];
  for (const args of [JSON.parse('{"to":"bob","__proto__":{"to":"mallory"}}'), JSON.parse('{"to":"bob","constructor":{"prototype":{"to":"mallory"}}}'), JSON.parse('{"to":"bob","memo":{"__proto__":{"to":"mallory"}}}')]) {
    await client.callTool({ name: "pay", arguments: args });
    for (const r of await session.pendingApprovals()) {
      shown.push(r.input);
      await session.answer(r.id, "allow");
      await client.callTool({ name: "pay", arguments: args });
    }
  }
  assert.ok(!smuggled(paid), `the tool got a field the card never showed: paid ${JSON.stringify(paid)}, shown ${JSON.stringify(shown)}`);
  // Whatever ran got exactly what its card showed.
  for (const p of paid) assert.ok(shown.some((x) => JSON.stringify(x) === JSON.stringify(Object.fromEntries(Object.entries(p as object).filter(([, v]) => v !== undefined)))), JSON.stringify({ paid, shown }));
  const before = paid.length;
  await client.callTool({ name: "pay", arguments: { to: "carol" } });
  const [req] = await session.pendingApprovals();
  assert.deepEqual(req!.input, { to: "carol" });
  await session.answer(req!.id, "allow");
  await client.callTool({ name: "pay", arguments: { to: "carol" } });
  assert.deepEqual(paid.slice(before), [{ to: "carol", memo: undefined }], "control");
});
