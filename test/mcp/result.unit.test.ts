/** toToolOutput on the result shapes the servers in the other tests do not produce. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { toToolOutput } from "../../src/mcp/index.js";
import { ToolCallError } from "../../src/tool/types.js";

const PNG = "iVBORw0KGgo=";

test("text blocks are joined with a newline", () => {
  const result = { content: [{ type: "text", text: "a" }, { type: "text", text: "b" }] };
  assert.deepEqual(toToolOutput(result, "s", "t"), { kind: "text", text: "a\nb", raw: result });
});

test("an image-only result is empty text with the image in media", () => {
  const out = toToolOutput({ content: [{ type: "image", data: PNG, mimeType: "image/png" }, { type: "audio", data: "AAAA", mimeType: "audio/wav" }] }, "s", "t");
  assert.equal(out.kind, "text");
  assert.equal(out.text, "");
  assert.deepEqual(out.media, [
    { kind: "image", mimeType: "image/png", data: PNG },
    { kind: "audio", mimeType: "audio/wav", data: "AAAA" },
  ]);
});

test("no content at all is empty text", () => {
  assert.deepEqual(toToolOutput({ content: [] }, "s", "t"), { kind: "text", text: "", raw: { content: [] } });
});

test("structuredContent wins over text and keeps media", () => {
  const out = toToolOutput({ content: [{ type: "text", text: "{\"n\":1}" }, { type: "image", data: PNG, mimeType: "image/png" }], structuredContent: { n: 1 } }, "s", "t");
  assert.equal(out.kind, "json");
  assert.deepEqual(out.value, { n: 1 });
  assert.equal(out.media?.length, 1);
});

test("isError with only non-text content is tool_error carrying the content as JSON", () => {
  assert.throws(
    () => toToolOutput({ isError: true, content: [{ type: "resource_link", uri: "x://y", name: "y" }] }, "s", "t"),
    (error: unknown) => error instanceof ToolCallError && error.code === "tool_error" && error.message === '[{"type":"resource_link","uri":"x://y","name":"y"}]',
  );
});
