/**
 * An example tool with a Zod schema: counts words in a text and names the most frequent ones.
 * The file name is the tool name: `tools word-stats text=…`.
 */
import { defineTool } from "toolshell";
import { z } from "zod";

const STOP = new Set(["the", "a", "an", "on", "of", "to", "and", "in", "after", "add", "is", "for"]);

export default defineTool({
  description: "Count the words of a text and list its most frequent words (stop words left out).",
  inputSchema: z.object({
    text: z.string().describe("The text to measure"),
    top: z.number().int().min(1).max(20).default(3).describe("How many frequent words to list"),
  }),
  hints: { readOnly: true, openWorld: false },
  execute({ text, top }) {
    const words = text.toLowerCase().match(/[a-z0-9']+/g) ?? [];
    const counts = new Map<string, number>();
    for (const w of words) if (!STOP.has(w) && w.length > 2) counts.set(w, (counts.get(w) ?? 0) + 1);
    const frequent = [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, top);
    return { words: words.length, frequent: frequent.map(([word, count]) => ({ word, count })) };
  },
});
