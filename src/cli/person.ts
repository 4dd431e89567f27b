/**
 * The person at the CLI: nested calls' progress as lines on stderr (`tools: tools s x: step 2
 * (2/5)`), and an upstream server's question asked on the terminal (only when stdin and stderr
 * are a terminal; otherwise nobody can answer and the question is declined).
 *
 * See docs/mcp.md → Progress, Elicitation relay; MCP spec 2025-11-25 "Client Features" →
 * Elicitation (form mode: flat properties of type string, number, integer, boolean, or a string
 * enum).
 */
import { createInterface } from "node:readline/promises";
import { describeQuestion, progressLine, type AskedQuestion, type CallProgress, type Person } from "../call/index.js";
import { showName, terminalText } from "../display/show-input.js";
import type { QuestionAnswer } from "../tool/index.js";
import type { Terminal } from "./terminal.js";


/**
 * The person of a CLI run: progress lines go to `stderr` (upstream progress only; a call's start
 * and end are not printed), and so does a question declined because nobody can answer here;
 * `terminal` (when given) is where questions are asked.
 */
export function cliPerson(stderr: NodeJS.WritableStream, terminal: Terminal | undefined): Person {
  return {
    progress(report) {
      const line = cliProgressLine(report);
      if (line) stderr.write(terminalText(`tools: ${line}\n`));
    },
    ...(terminal ? { ask: (question: AskedQuestion) => askQuestion(question, terminal) } : {}),
  };
}

/**
 * What the CLI prints of a call's moment (without the `tools: ` prefix): upstream progress, and a
 * question declined because no terminal could ask it (said, so it is not declined silently).
 */
export function cliProgressLine(report: CallProgress): string | undefined {
  if (report.phase === "progress") return progressLine(report);
  // The hint about a terminal only where the want of one was the reason (not a question declined by rule).
  if (report.phase === "declined") return /nobody can answer/.test(report.message ?? "") ? `${progressLine(report)} (questions are asked on a terminal: run toolshell where stdin and stderr are one)` : progressLine(report);
  return undefined;
}


interface Field {
  name: string;
  type: string;
  enum?: string[];
  /** The values as shown (escaped like tool names). */
  shownEnum?: string[];
  required: boolean;
  label: string;
}

function fieldsOf(question: AskedQuestion): Field[] {
  const schema = question.requestedSchema as { properties?: Record<string, Record<string, unknown>>; required?: unknown };
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((x): x is string => typeof x === "string") : []);
  return Object.entries(schema.properties ?? {}).map(([name, p]) => {
    const values = Array.isArray(p.enum) ? p.enum.map(String) : Array.isArray(p.oneOf) ? p.oneOf.map((o) => String((o as { const?: unknown }).const)) : undefined;
    const shownValues = values?.map((v) => showName(v).text);
    const title = typeof p.title === "string" ? p.title : name;
    const description = typeof p.description === "string" ? ` — ${p.description}` : "";
    // Titles and descriptions come from the server: escaped like its tool names.
    return { name, type: typeof p.type === "string" ? p.type : "string", enum: values, shownEnum: shownValues, required: required.has(name), label: showName(`${title}${description}`).text };
  });
}

/** A typed value from what the person typed, or an error message. */
function parse(field: Field, typed: string): { value: unknown } | { error: string } {
  if (field.enum) return field.enum.includes(typed) ? { value: typed } : { error: `one of: ${field.shownEnum!.join(", ")}` };
  if (field.type === "boolean") {
    if (/^(y|yes|true)$/i.test(typed)) return { value: true };
    if (/^(n|no|false)$/i.test(typed)) return { value: false };
    return { error: "yes or no" };
  }
  if (field.type === "number" || field.type === "integer") {
    const n = Number(typed);
    if (typed.trim() === "" || !Number.isFinite(n) || (field.type === "integer" && !Number.isInteger(n))) return { error: field.type === "integer" ? "a whole number" : "a number" };
    return { value: n };
  }
  return { value: typed };
}

/**
 * Asks `question` on `terminal`: the message escaped and flagged (describeQuestion), then
 * whether to answer ([y]es, [n]o = decline, [c]ancel), then each field (an empty line leaves an
 * optional field out; a value of the wrong type is asked again, three times at most).
 * Resolves with the answer (checked against the schema by the caller). Never rejects for a
 * person's typing; a closed terminal answers `cancel`.
 */
export async function askQuestion(question: AskedQuestion, terminal: Terminal): Promise<QuestionAnswer> {
  const rl = createInterface({ input: terminal.input, output: terminal.output, terminal: false });
  const out = terminal.output;
  let closed = false;
  rl.on("close", () => (closed = true));
  const ask = async (prompt: string): Promise<string | undefined> => {
    if (closed) return undefined;
    try {
      return (await rl.question(prompt)).trim();
    } catch {
      return undefined;
    }
  };
  try {
    const shown = describeQuestion(question);
    out.write(`\n${shown.text}\n${shown.warnings.map((w) => `  ⚠ ${w}\n`).join("")}`);
    const first = (await ask("Answer it? [y]es, [n]o (decline), [c]ancel: "))?.toLowerCase();
    if (first === undefined || first === "c" || first === "cancel") return { action: "cancel" };
    if (first !== "y" && first !== "yes") return { action: "decline" };
    const content: Record<string, unknown> = {};
    for (const field of fieldsOf(question)) {
      const hint = field.enum ? `one of ${field.shownEnum!.join(", ")}` : showName(field.type).text;
      for (let tries = 0; ; tries++) {
        const typed = await ask(`  ${field.label} (${hint}${field.required ? ", required" : ", optional"}): `);
        if (typed === undefined) return { action: "cancel" };
        if (typed === "" && !field.required) break;
        const parsed = parse(field, typed);
        if ("value" in parsed) {
          content[field.name] = parsed.value;
          break;
        }
        if (tries >= 2) return { action: "decline" };
        out.write(`  expected ${parsed.error}\n`);
      }
    }
    return { action: "accept", content };
  } finally {
    rl.close();
  }
}
