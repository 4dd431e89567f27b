/**
 * An example tool with a plain JSON Schema: rates a note's priority from its wording.
 * `tools triage title="Incident 311" text="…"`.
 */
import { defineTool } from "toolshell";

const URGENT = ["incident", "outage", "latency", "blocked", "risk", "spike", "times out"];

export default defineTool({
  description: "Rate the priority of a note (high, normal) from its title and text, with the words that decided it.",
  inputSchema: {
    type: "object",
    properties: {
      title: { type: "string", description: "The note's title" },
      text: { type: "string", description: "The note's text" },
    },
    required: ["title", "text"],
    additionalProperties: false,
  },
  hints: { readOnly: true, openWorld: false },
  execute(input) {
    const body = `${input.title} ${input.text}`.toLowerCase();
    const hits = URGENT.filter((w) => body.includes(w));
    return { title: input.title, priority: hits.length >= 2 ? "high" : "normal", because: hits };
  },
});
