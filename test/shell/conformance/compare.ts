/**
 * How an actual result is compared with a vector: stdout and exit code exactly,
 * stderr by class — the kind of message, not its wording, since jq 1.7.1 and 1.6 (and
 * just-bash and bash) word messages differently.
 */
export interface Outcome {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** Classify a stderr text: "" (empty) or a coarse kind. */
export function stderrClass(stderr: string): string {
  const s = stderr.trim();
  if (s === "") return "";
  if (/compile error|syntax error|is not defined|not a valid format/.test(s)) return "jq-compile";
  if (/Could not open|No such file|Is a directory|Permission denied|Read-only file system|cannot open|not a directory/i.test(s)) return "io";
  if (/Bad JSON in --|invalid JSON text passed|takes|Unknown option|Use jq --help|Usage:|usage:|invalid option|unrecognized option|option requires/.test(s)) return "usage";
  if (/parse error|Unfinished JSON|Invalid numeric literal|Invalid literal|Expected separator|Unmatched|Unfinished abandoned text|Invalid escape/i.test(s)) return "parse";
  if (/^jq: error/.test(s)) return "jq-runtime";
  if (/command not found/.test(s)) return "not-found";
  if (/unbound variable/.test(s)) return "unbound";
  if (/syntax error|unexpected/.test(s)) return "syntax";
  if (/^(bash: )?.*(line \d+: )?.*: /.test(s)) return "error";
  return "other";
}

/** Whether an actual outcome matches the expected one; `why` names the first difference. */
export function compareOutcome(expected: Outcome, actual: Outcome): { ok: boolean; why: string } {
  if (expected.stdout !== actual.stdout) return { ok: false, why: `stdout ${JSON.stringify(expected.stdout).slice(0, 200)} != ${JSON.stringify(actual.stdout).slice(0, 200)}` };
  if (expected.exitCode !== actual.exitCode) return { ok: false, why: `exit ${expected.exitCode} != ${actual.exitCode}` };
  const ec = stderrClass(expected.stderr);
  const ac = stderrClass(actual.stderr);
  if (ec !== ac) {
    // Messages that are neither jq's nor the shell's (halt_error text) compare exactly.
    return { ok: false, why: `stderr class ${ec || "empty"} != ${ac || "empty"}: ${JSON.stringify(actual.stderr).slice(0, 200)}` };
  }
  if (ec === "other" && expected.stderr !== actual.stderr) return { ok: false, why: `stderr ${JSON.stringify(expected.stderr)} != ${JSON.stringify(actual.stderr)}` };
  return { ok: true, why: "" };
}
