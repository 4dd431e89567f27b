/**
 * How a long-running host that answers over the network (`toolshell serve`, the HTTP gateway)
 * stops on SIGTERM or SIGINT: it takes no new requests, lets the shell calls and steps in flight
 * end — each ends by its time limit at the latest — so their results are recorded and answered,
 * then closes. A second signal stops at once. Stopping in the middle of a call instead would lose
 * the call's record while the tool still ran, and the client's retry would run it again.
 *
 * See docs/deployment.md → Stopping a replica.
 */

/** The signals that stop a host. */
const STOP_SIGNALS = ["SIGINT", "SIGTERM"] as const;

/** Resolves on the next SIGINT or SIGTERM. */
export function nextStopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const handlers = STOP_SIGNALS.map((sig) => {
      const h = () => {
        for (const [s, other] of handlers) process.off(s, other);
        resolve(sig);
      };
      process.on(sig, h);
      return [sig, h] as const;
    });
  });
}

/** What {@link drain} stops: the listener, and the work it waits for. */
export interface Drainable {
  /** Begins stopping the listener: no new requests (serve.ts, gateway/http-server.ts). */
  refuseNew(): void;
  /** The host's work: shell calls and steps running, and a wait for none. */
  shell: { readonly running: number; whenIdle(waitMs: number): Promise<boolean> };
  /** Other work to stop before waiting (the triggers: no new runs). */
  stopMore?: () => Promise<void>;
}

/**
 * Stops taking requests and waits up to `waitMs` for the work in flight, or for another stop
 * signal. `say` gets one line for the operator when there is work to wait for, and one when the
 * wait ends without it. @returns "idle" when nothing runs any more, "timeout" or "signal" else.
 */
export async function drain(d: Drainable, waitMs: number, say: (line: string, fields: Record<string, unknown>) => void): Promise<"idle" | "timeout" | "signal"> {
  d.refuseNew();
  const again = nextStopSignal().then(() => "signal" as const);
  await Promise.race([d.stopMore?.().catch(() => {}), again]);
  const running = d.shell.running;
  if (running > 0) say(`${running} shell call(s) in flight end first (at most ${Math.round(waitMs / 1000)} s); send the signal again to stop at once`, { running, wait_ms: waitMs });
  const ended = await Promise.race([d.shell.whenIdle(waitMs).then((idle) => (idle ? ("idle" as const) : ("timeout" as const))), again]);
  if (ended !== "idle") say(`stopping with ${d.shell.running} shell call(s) still running (${ended === "signal" ? "a second signal" : "the wait ran out"}): they end as interrupted and run again when asked again`, { running: d.shell.running, ended });
  return ended;
}
