/**
 * Why a trigger run failed or stopped, in words, as `toolshell triggers runs` and the console's
 * Triggers page show it (docs/sessions.md → Triggers): the run's own error, else the stop
 * report's reason, else the exit code and the script's last error line.
 */

/** The fields of a trigger run (the store's `TriggerRunRecord`) this text uses; display/ imports no other folder. */
export interface FailedRun {
  status: string;
  error?: string;
  result?: unknown;
}

/** A `tools` error line's message (`{"error":{"message":…}}`), else the line as it is. */
function errorMessage(line: string): string {
  try {
    const m = (JSON.parse(line) as { error?: { message?: unknown } }).error?.message;
    return typeof m === "string" ? m : line;
  } catch {
    return line;
  }
}

/** E.g. "exit 1: unknown field \"label\". Signature: tick({})"; "" for a run that did not fail or stop. */
export function runFailureText(run: FailedRun): string {
  if (run.status !== "failed" && run.status !== "stopped") return "";
  if (run.error) return run.error;
  const res = (run.result ?? {}) as { exit_code?: number; stderr?: string; tools?: { stopped?: { reason?: string; message?: string } } };
  const stopped = res.tools?.stopped;
  if (stopped) return `${stopped.reason}${stopped.message ? `: ${stopped.message}` : ""}`;
  const last = errorMessage(String(res.stderr ?? "").trim().split("\n").pop() ?? "");
  return [res.exit_code !== undefined ? `exit ${res.exit_code}` : "", last].filter(Boolean).join(": ");
}

/**
 * That a run ran again after the process running it ended mid-run (a replica killed), e.g. "ran
 * again after its process ended mid-run (1×)"; "" for a run that was not cut short.
 */
export function runInterruptedText(run: { interrupted_at?: string[]; replicas?: string[] }): string {
  const n = run.interrupted_at?.length ?? 0;
  const where = (run.replicas?.length ?? 0) > 1 ? `; on ${run.replicas!.join(", then ")}` : "";
  return n ? `ran again after its process ended mid-run (${n}×; what had completed was replayed${where})` : "";
}
