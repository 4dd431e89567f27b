/**
 * The `redact` step: config secrets never leave a call, whatever the surface — not in its output
 * (text, JSON value, raw return) and not in its error message. When redaction itself fails, the
 * call ends in `redactionFailed()`: its output is dropped and nothing of it is shown. See
 * docs/security.md ("Secrets").
 */
import { redactionFailed, ToolCallError } from "../../tool/index.js";
import type { CallState, Step } from "../call.js";
import { redactOutput } from "../redact/off-thread.js";

export const redact: Step = {
  name: "redact",
  when: (s) => s.replayed === undefined && s.env.redactor?.active === true,
  async run(s: CallState) {
    const r = s.env.redactor!;
    try {
      // A large output is scanned in a worker thread (redact/off-thread.ts), not holding the process.
      if (s.output) s.output = await redactOutput(r, s.output);
      if (s.error) {
        const message = r.text(s.error.message);
        if (message !== s.error.message) s.error = new ToolCallError(s.error.code, message, s.error.retryable);
      }
    } catch {
      s.output = undefined;
      s.error = redactionFailed();
    }
  },
};
